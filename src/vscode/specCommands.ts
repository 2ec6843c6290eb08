// Spec workflows in the editor: "Baton: Start Spec Workflow from tasks.md…" (palette, explorer, CodeLens) and the
// CodeLens over every tasks.md, which starts one or shows the one running on the file.
import { resolve } from 'node:path';
import * as vscode from 'vscode';
import { BatonError } from '../core/errors.js';
import { plural } from '../shared/labels.js';
import { ExecutionPanel } from './panels/executionPanel.js';
import type { Services } from './services.js';
import { isTasksFile, specLenses, TASKS_EXCLUDE, TASKS_GLOB, workspaceRelative } from './specSources.js';

/** The setting that turns the CodeLens off. */
export const SPEC_CODELENS_SETTING = 'baton.specs.codeLens';
const LENS_REFRESH_MS = 200;
const DRIFT_REFRESH_MS = 500;

/** The tasks.md the command works on: its argument (CodeLens, explorer), the active editor's, or one picked from the workspace. */
async function chooseTasksFile(arg: unknown): Promise<vscode.Uri | undefined> {
  if (arg instanceof vscode.Uri) return arg;
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active && active.scheme === 'file' && isTasksFile(active.fsPath)) return active;
  const found = await vscode.workspace.findFiles(TASKS_GLOB, TASKS_EXCLUDE, 500);
  if (!found.length) {
    void vscode.window.showInformationMessage('Baton: no tasks.md in this workspace. A spec workflow runs the phases of a tasks.md (spec-kit, Kiro, spec-workflow-mcp or the spec format); open or create one first.');
    return undefined;
  }
  if (found.length === 1) return found[0];
  const picked = await vscode.window.showQuickPick(
    found.map((uri) => ({ label: vscode.workspace.asRelativePath(uri, false), uri })).sort((a, b) => a.label.localeCompare(b.label)),
    { title: 'Baton: Start Spec Workflow', placeHolder: 'Choose the tasks.md whose phases the agent works through', matchOnDescription: true },
  );
  return picked?.uri;
}

/**
 * A tasks.md Baton could not read: `file:line: problem` in one line with a button that opens the file at that line,
 * both taken from the error's details (the message's wording is for people, and a path may hold ", line 2:"); the
 * examples of each format (many lines, which a notification runs together) go to the log.
 */
async function showParseError(s: Services, folder: string, ex: BatonError): Promise<void> {
  const d = ex.details;
  const file = typeof d.file === 'string' ? d.file : typeof d.path === 'string' ? d.path : undefined;
  const line = typeof d.line === 'number' && Number.isInteger(d.line) && d.line >= 1 ? d.line : undefined;
  if (file === undefined || line === undefined) return void vscode.window.showErrorMessage(`Baton: ${ex.message}`);
  s.log.warn(`Baton: ${ex.message}`);
  const said = typeof d.problem === 'string' ? `${d.problem}${typeof d.expected === 'string' ? `. Expected ${d.expected}` : ''}` : firstLine(ex.message);
  const example = typeof d.example === 'string' ? ' (an example: Baton: Show Log)' : '';
  const open = 'Open File';
  const path = resolve(folder, file);
  const picked = await vscode.window.showErrorMessage(`Baton: ${workspaceRelative(folder, path) ?? path}:${line}: ${said}${example}.`, open);
  if (picked === open) await openAt(path, line);
}

/** Opens a file with the cursor at the start of a line (1-based). */
async function openAt(path: string, line: number): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line - 1, 0, line - 1, 0) });
}

/**
 * What the parse found wrong in a tasks.md that started all the same (a task id written twice): the first as
 * `file:line: …` with a button that opens the file at that line, and every one of them in the log.
 */
async function showParseWarnings(s: Services, folder: string, source: string, executionId: string): Promise<void> {
  const { warnings = [] } = await s.connection.specStatus(executionId);
  if (!warnings.length) return;
  for (const w of warnings) s.log.warn(`Baton: ${source}:${w.line}: ${w.message}`);
  const first = warnings[0]!;
  const more = warnings.length > 1 ? ` (${warnings.length - 1} more: Baton: Show Log)` : '';
  const open = 'Open File';
  const picked = await vscode.window.showWarningMessage(`Baton: ${source}:${first.line}: ${first.message}${more}`, open);
  if (picked === open) await openAt(resolve(folder, source), first.line);
}

/** A message's first line, without a trailing full stop (the notification adds its own). */
function firstLine(message: string): string {
  return message.split('\n')[0]!.replace(/[.:]$/, '');
}

/** `baton.startSpecWorkflow`: starts a spec workflow on a tasks.md and opens its panel; an agent takes Phase 0. */
export async function startSpecWorkflow(s: Services, arg?: unknown): Promise<string | undefined> {
  // A database that could not be opened is said now, not after the person chose among the workspace's tasks.md files.
  await s.connection.ready();
  const uri = await chooseTasksFile(arg);
  if (!uri) return undefined;
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const source = folder ? workspaceRelative(folder, uri.fsPath) : undefined;
  if (!source) {
    void vscode.window.showErrorMessage(`Baton: ${uri.fsPath} is not inside the workspace folder Baton serves (${folder ?? 'none open'}); open its folder first.`);
    return undefined;
  }
  let started;
  try {
    started = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Baton: starting a spec workflow on ${source}…` },
      () => s.connection.startSpec({ source }),
    );
  } catch (ex) {
    if (!BatonError.is(ex)) throw ex;
    if (ex.reason === 'source_parse_failed') void showParseError(s, folder!, ex);
    else void vscode.window.showErrorMessage(`Baton: ${ex.message}`);
    return undefined;
  }
  // Beside the tasks.md, which stays in view: its CodeLens and its ticks are part of what the person follows.
  ExecutionPanel.show(s.context, s.connection, started.execution_id, vscode.ViewColumn.Beside);
  s.tree.refresh();
  void showParseWarnings(s, folder!, source, started.execution_id).catch((ex: unknown) => s.log.warn(`showing the warnings of ${source} failed`, ex));
  void vscode.window
    .showInformationMessage(
      `Baton: started a spec workflow on ${source} (Phase 0 and ${plural(started.total_phases - 1, 'phase')} from the file). Ask your agent to take it on; each phase passes its gate before the next opens.`,
      'Copy Agent Prompt',
    )
    .then((pick) => pick && vscode.commands.executeCommand('baton.copyHandoffPrompt', { executionId: started.execution_id }));
  return started.execution_id;
}

/** The CodeLens over tasks.md files (see specSources.ts for why that name, anywhere). */
class SpecCodeLensProvider implements vscode.CodeLensProvider {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(private readonly s: Services) {}

  /** Asks the editor for the lenses again (a workflow started, moved on or ended; the setting changed). */
  refresh(): void {
    this.changed.fire();
  }

  async provideCodeLenses(doc: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    if (!vscode.workspace.getConfiguration().get<boolean>(SPEC_CODELENS_SETTING, true)) return [];
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const source = folder && doc.uri.scheme === 'file' ? workspaceRelative(folder, doc.uri.fsPath) : undefined;
    if (!source || !isTasksFile(source)) return [];
    const c = this.s.connection;
    const specs = c.state === 'ready' ? await c.listSpecs({ source, limit: 20 }).catch(() => []) : [];
    const top = new vscode.Range(0, 0, 0, 0);
    return specLenses(specs).map((l) => new vscode.CodeLens(top, {
      title: l.title,
      command: l.command,
      arguments: l.executionId ? [l.executionId] : [doc.uri],
      tooltip: l.executionId ? 'Open the spec workflow running on this file' : 'Start a Baton spec workflow: an agent works through these phases, each gated by its validation gate',
    }));
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** Registers the CodeLens; it follows executions starting, moving and ending, and the setting. */
export function registerSpecCodeLens(s: Services): vscode.Disposable {
  const provider = new SpecCodeLensProvider(s);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(() => provider.refresh(), LENS_REFRESH_MS);
  };
  const events = s.connection.onEvent((e) => {
    if (e.type === 'execution' || e.type === 'step') soon();
  });
  // An edit of a tasks.md may make it drift from a running workflow's snapshot (or bring it back): the panels say so.
  let drift: ReturnType<typeof setTimeout> | undefined;
  const edited = vscode.workspace.onDidChangeTextDocument((e) => {
    if (e.document.uri.scheme !== 'file' || !isTasksFile(e.document.uri.fsPath) || !e.contentChanges.length) return;
    clearTimeout(drift);
    drift = setTimeout(() => ExecutionPanel.refreshAll(), DRIFT_REFRESH_MS);
  });
  return vscode.Disposable.from(
    vscode.languages.registerCodeLensProvider({ scheme: 'file', pattern: TASKS_GLOB }, provider),
    s.connection.onDidChange(soon),
    vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(SPEC_CODELENS_SETTING) && soon()),
    edited,
    { dispose: () => { clearTimeout(timer); clearTimeout(drift); events.dispose(); } },
    provider,
  );
}
