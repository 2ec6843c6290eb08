// The Problems panel for the workspace's own Baton files: agents, rules and workflows (.baton/agents/*.md,
// .baton/rules/*.md|mdc, .baton/workflows/*.yaml|md), pipelines (.baton/pipelines/*.yaml) and blueprints
// (.baton/blueprints/*.yaml), read again when such a file is created, changed or deleted, when the workspace is
// trusted (an untrusted workspace's .baton is not loaded, so it has no problems to show) and when the folders change;
// and a team workflow file (anywhere) when it is opened or saved, until it is closed. A file Baton leaves out is an
// error at its line, one it uses with a problem (a step whose agent is not defined, say) a warning. Computed here
// with the loaders the engine and the commands use, whichever process owns the database.
import * as vscode from 'vscode';
import { teamFileProblems, workspaceProblems, type FileProblem, type ProblemsByFile } from './contentProblems.js';
import type { BatonLog } from './log.js';

/** The files read from a workspace's `.baton`. */
const WATCHED = [
  '**/.baton/agents/*.md', '**/.baton/rules/*.{md,mdc}', '**/.baton/workflows/*.md', '**/.baton/{workflows,pipelines,blueprints}/*.{yaml,yml}',
];
/** How long after the last change the files are read again. */
const SETTLE_MS = 250;

function toDiagnostic(p: FileProblem): vscode.Diagnostic {
  const line = Math.max(0, (p.line ?? 1) - 1);
  const d = new vscode.Diagnostic(
    new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER),
    p.leftOut && !/until this file is valid|this file is ignored/.test(p.message) ? `${p.message} (Baton leaves this file out until it is fixed)` : p.message,
    p.leftOut ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
  );
  d.source = 'Baton';
  return d;
}

function publish(collection: vscode.DiagnosticCollection, byFile: ProblemsByFile): void {
  for (const [path, problems] of byFile) collection.set(vscode.Uri.file(path), problems.map(toDiagnostic));
}

/** Publishes the problems of the workspace's Baton files and keeps them current. */
export function registerContentDiagnostics(log: BatonLog): vscode.Disposable {
  const workspace = vscode.languages.createDiagnosticCollection('baton');
  const teams = vscode.languages.createDiagnosticCollection('baton-teams');
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;
  const folder = () => {
    const f = vscode.workspace.workspaceFolders?.[0];
    return f && f.uri.scheme === 'file' && vscode.workspace.isTrusted ? f.uri.fsPath : undefined;
  };
  const refresh = async (): Promise<void> => {
    const gen = ++generation;
    const root = folder();
    const byFile = root ? await workspaceProblems(root) : new Map();
    if (gen !== generation) return; // a newer refresh is under way
    workspace.clear();
    publish(workspace, byFile);
  };
  const soon = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh().catch((ex: unknown) => log.warn('reading the workspace\'s Baton files for the Problems panel failed', ex)), SETTLE_MS);
  };
  // A team file may be anywhere: it is checked as it is opened or saved (a .baton file is the workspace's above).
  const checkTeam = (doc: vscode.TextDocument): void => {
    if (doc.uri.scheme !== 'file' || !/\.ya?ml$/.test(doc.uri.fsPath) || !folder()) return;
    const own = teamFileProblems(doc.uri.fsPath);
    if (own?.length) teams.set(doc.uri, own.map(toDiagnostic));
    else teams.delete(doc.uri);
  };
  const watchers = WATCHED.map((glob) => vscode.workspace.createFileSystemWatcher(glob));
  for (const w of watchers) {
    w.onDidCreate(soon);
    w.onDidChange(soon);
    w.onDidDelete(soon);
  }
  soon();
  for (const doc of vscode.workspace.textDocuments) checkTeam(doc);
  return vscode.Disposable.from(
    workspace,
    teams,
    ...watchers,
    vscode.workspace.onDidOpenTextDocument(checkTeam),
    vscode.workspace.onDidSaveTextDocument(checkTeam),
    vscode.workspace.onDidCloseTextDocument((doc) => teams.delete(doc.uri)),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      soon();
      for (const doc of vscode.workspace.textDocuments) checkTeam(doc);
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(soon),
    { dispose: () => clearTimeout(timer) },
  );
}
