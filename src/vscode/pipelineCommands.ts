// "Baton: Run Pipeline…": pick one of the workspace's systems (.baton/pipelines/*.yaml) or a blueprint (asked for its
// inputs), give the task ({{system.input}}), and the run starts in the editor's core — or in the database's owner when
// a terminal Baton holds it, as `baton pipeline run` does — with its panel open beside the work.
import { relative } from 'node:path';
import * as vscode from 'vscode';
import type { ContentProblem } from '../core/api.js';
import { folderOrAsk } from './openFolder.js';
import { refuseUntrusted } from './workspaceTrust.js';
import { instantiateBlueprint } from '../core/pipelines/blueprint.js';
import { RUNNER_KINDS, type RunnerKind } from '../core/pipelines/runner.js';
import { formatProblems } from '../core/pipelines/systemFile.js';
import type { BlueprintInput, System, SystemBlueprint } from '../core/pipelines/types.js';
import { bundledContentDir } from '../host/openBaton.js';
import { blueprintDirs, listBlueprints, listSystems, type SystemListing } from '../host/pipelines/systemFiles.js';
import { ExecutionPanel } from './panels/executionPanel.js';
import { budgetPauseOf } from './pipelines/budgetPause.js';
import type { Services } from './services.js';
import type { TreeNode } from './views/treeModel.js';

type Choice =
  | { kind: 'system'; listing: SystemListing }
  | { kind: 'blueprint'; id: string; path: string; blueprint: SystemBlueprint | undefined; problems: ContentProblem[] };

interface ChoiceItem extends vscode.QuickPickItem {
  choice?: Choice;
}

function choiceItems(folder: string): ChoiceItem[] {
  const systems = listSystems(folder);
  const blueprints = listBlueprints(blueprintDirs(bundledContentDir(), folder));
  const items: ChoiceItem[] = [{ label: 'Pipelines of this workspace', kind: vscode.QuickPickItemKind.Separator }];
  for (const l of systems) {
    items.push({
      label: `$(symbol-structure) ${l.name}`, description: relative(folder, l.path),
      detail: l.system ? `${l.system.description || 'No description'} · ${l.system.agents.length} agents` : `$(error) Not valid: ${l.problems[0]?.message ?? 'see the file'}`,
      choice: { kind: 'system', listing: l },
    });
  }
  if (!systems.length) items.push({ label: '$(info) No pipelines in .baton/pipelines yet: start from a blueprint below', alwaysShow: true });
  items.push({ label: 'Blueprints', kind: vscode.QuickPickItemKind.Separator });
  for (const b of blueprints) {
    items.push({
      label: `$(library) ${b.blueprint?.name ?? b.id}`, description: `blueprint ${b.id}`,
      detail: b.blueprint ? `${b.blueprint.description} · inputs: ${b.blueprint.requiredInputs.map((i) => i.name).join(', ') || 'none'}` : `$(error) Not valid: ${b.problems[0]?.message ?? ''}`,
      choice: { kind: 'blueprint', ...b },
    });
  }
  return items;
}

/** Shows a file's problems (file:line: message) with a button that opens the file at the first one's line. */
export async function showProblems(s: Services, what: string, path: string, problems: readonly ContentProblem[]): Promise<void> {
  const first = problems.find((p) => p.line !== null) ?? problems[0];
  s.log.warn(`${what} ${path} is not valid:\n${formatProblems(problems)}`);
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more; see Baton: Show Log)` : '';
  const open = 'Open File';
  const text = first ? formatProblems([first]) : `${path}: not valid`;
  const picked = await vscode.window.showErrorMessage(`Baton: ${what} is not valid: ${text}${more}`, open);
  if (picked !== open) return;
  const line = Math.max(0, (first?.line ?? 1) - 1);
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(first?.path ?? path));
  await vscode.window.showTextDocument(doc, { selection: new vscode.Range(line, 0, line, 0) });
}

async function askInput(input: BlueprintInput, blueprint: string): Promise<string | undefined> {
  const title = `Blueprint ${blueprint}: ${input.name}`;
  if (input.type === 'selection' || input.type === 'boolean') {
    const options = input.type === 'boolean' ? ['true', 'false'] : input.options ?? [];
    const items = options.map((o) => ({ label: o, description: o === input.default ? 'default' : undefined }));
    return (await vscode.window.showQuickPick(items, { title, placeHolder: input.description, ignoreFocusOut: true }))?.label;
  }
  return vscode.window.showInputBox({
    title, prompt: `${input.description} (${input.type})`, value: input.default ?? '', ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? `${input.name} is required` : input.type === 'number' && !Number.isFinite(Number(v)) ? `${input.name} must be a number` : undefined),
  });
}

/** Instantiates a blueprint with the person's inputs and runner; undefined when they escape. */
async function fromBlueprint(bp: SystemBlueprint): Promise<System | undefined> {
  const inputs: Record<string, string> = {};
  for (const input of bp.requiredInputs) {
    const v = await askInput(input, bp.id);
    if (v === undefined) return undefined;
    inputs[input.name] = v;
  }
  const runners: Array<vscode.QuickPickItem & { runner?: RunnerKind }> = [
    { label: 'As the blueprint suggests', description: bp.agentTemplates.map((t) => `${t.id}: ${t.runner ?? t.suggestedModels[0] ?? '?'}`).join(', ') },
    ...RUNNER_KINDS.filter((k) => k !== 'command').map((k) => ({ label: k, runner: k, description: k === 'vscode-lm' ? "this editor's language models" : undefined })),
  ];
  const runner = await vscode.window.showQuickPick(runners, { title: `Blueprint ${bp.id}: who runs the agents?`, ignoreFocusOut: true });
  if (!runner) return undefined;
  return instantiateBlueprint(bp, { name: bp.id, inputs, runner: runner.runner });
}

/** The system the person chose (checked), with its file; undefined when they escape or it is not valid. */
async function chooseSystem(s: Services, folder: string, arg: unknown): Promise<{ system: System; path?: string } | undefined> {
  const ref = (arg as Partial<TreeNode> | undefined)?.ref;
  let choice: Choice | undefined;
  const listing = ref?.kind === 'pipeline' && ref.path ? listSystems(folder).find((l) => l.path === ref.path) : undefined;
  if (listing) choice = { kind: 'system', listing };
  else {
    // Kept open when focus moves, as the later steps of this command are.
    const picked = await vscode.window.showQuickPick(choiceItems(folder), {
      title: 'Baton: Run Pipeline', placeHolder: 'A pipeline of this workspace, or a blueprint', matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true,
    });
    choice = picked?.choice;
  }
  if (!choice) return undefined;
  if (choice.kind === 'system') {
    const { listing } = choice;
    if (!listing.system) return void (await showProblems(s, 'Pipeline', listing.path, listing.problems));
    return { system: listing.system, path: listing.path };
  }
  if (!choice.blueprint) return void (await showProblems(s, 'Blueprint', choice.path, choice.problems));
  const system = await fromBlueprint(choice.blueprint);
  return system ? { system } : undefined;
}

/** `baton.runPipeline`: see the file comment. The argument may be a pipeline node of the tree. */
export async function runPipeline(s: Services, arg?: unknown): Promise<string | undefined> {
  const folder = folderOrAsk('Run Pipeline needs an open folder: its .baton/pipelines holds the systems, and the agents work in it.');
  if (!folder || refuseUntrusted('Run Pipeline')) return undefined;
  // A database that could not be opened is said now, not after the person chose a pipeline and typed the task.
  await s.connection.ready();
  const chosen = await chooseSystem(s, folder, arg);
  if (!chosen) return undefined;
  const input = await vscode.window.showInputBox({
    title: `Run ${chosen.system.name}`, prompt: 'The task for the agents ({{system.input}} in their prompts)', ignoreFocusOut: true,
    validateInput: (v) => (v.trim() === '' ? 'Say what the agents should do' : undefined),
  });
  if (input === undefined) return undefined;
  const pipelines = await s.connection.pipelines();
  const runId = await pipelines.start(chosen.system, { input, cwd: folder, ...(chosen.path ? { source: chosen.path } : {}) });
  s.log.info(`pipeline ${chosen.system.name} started as run ${runId}${pipelines.live ? '' : ' in the owner process'}`);
  s.tree.refresh();
  ExecutionPanel.show(s.context, s.connection, runId);
  return runId;
}

/** Notifies once per pause when a pipeline run pauses at its budget, with Show (its panel: Raise budget and resume). */
export function registerBudgetNotifications(s: Services): vscode.Disposable {
  const sub = s.connection.onEvent((e) => {
    if (e.type !== 'execution' || e.status !== 'paused') return;
    void notifyBudgetPause(s, e.execution_id).catch((ex: unknown) => s.log.error('budget notification failed', ex));
  });
  return new vscode.Disposable(() => sub.dispose());
}

async function notifyBudgetPause(s: Services, runId: string): Promise<void> {
  const message = await budgetPauseOf((id) => s.connection.pipelineView(id), runId);
  if (message === null) return;
  if ((await vscode.window.showWarningMessage(message, 'Show')) === 'Show') ExecutionPanel.show(s.context, s.connection, runId);
}
