// The Problems panel for the workspace's own agents, rules and workflows (.baton/agents/*.md, .baton/rules/*.md,
// .baton/workflows/*.yaml): a file the engine leaves out is an error at its line, one it loads with a problem (a step
// whose agent is not defined, say) a warning. Refreshed when such a file is created, changed or deleted, when the
// workspace is trusted (an untrusted workspace's content is not loaded, so it has no problems to show) and when the
// folders change. Computed here with the engine's loader, whichever process owns the database.
import { join } from 'node:path';
import * as vscode from 'vscode';
import { loadContent } from '../core/content/loadContent.js';
import { bundledContentDir } from '../host/openBaton.js';
import { nodeCrypto, nodeFileSystem } from '../host/nodePorts.js';
import { workspaceContentProblems, type FileProblem } from './contentProblems.js';
import type { BatonLog } from './log.js';

/** The files the engine loads from a workspace's `.baton`. */
const CONTENT_GLOBS = ['**/.baton/agents/*.md', '**/.baton/rules/*.md', '**/.baton/workflows/*.{yaml,yml}'];
/** How long after the last change the files are read again. */
const SETTLE_MS = 250;

function toDiagnostic(p: FileProblem): vscode.Diagnostic {
  const line = Math.max(0, (p.line ?? 1) - 1);
  const d = new vscode.Diagnostic(
    new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER),
    p.leftOut ? `${p.message} (Baton leaves this file out until it is fixed)` : p.message,
    p.leftOut ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
  );
  d.source = 'Baton';
  return d;
}

/** Publishes the workspace content's problems and keeps them current. */
export function registerContentDiagnostics(log: BatonLog): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection('baton');
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;
  const refresh = async (): Promise<void> => {
    const gen = ++generation;
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file' || !vscode.workspace.isTrusted) {
      collection.clear();
      return;
    }
    const dir = join(folder.uri.fsPath, '.baton');
    const loaded = await loadContent(nodeFileSystem, [bundledContentDir(), dir], nodeCrypto);
    if (gen !== generation) return; // a newer refresh is under way
    collection.clear();
    for (const [path, problems] of workspaceContentProblems(loaded, dir)) collection.set(vscode.Uri.file(path), problems.map(toDiagnostic));
  };
  const soon = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => void refresh().catch((ex: unknown) => log.warn('reading the workspace content for the Problems panel failed', ex)), SETTLE_MS);
  };
  const watchers = CONTENT_GLOBS.map((glob) => vscode.workspace.createFileSystemWatcher(glob));
  for (const w of watchers) {
    w.onDidCreate(soon);
    w.onDidChange(soon);
    w.onDidDelete(soon);
  }
  soon();
  return vscode.Disposable.from(
    collection,
    ...watchers,
    vscode.workspace.onDidGrantWorkspaceTrust(soon),
    vscode.workspace.onDidChangeWorkspaceFolders(soon),
    { dispose: () => clearTimeout(timer) },
  );
}
