// The problems of the workspace's own Baton files as the Problems panel shows them: per file, each with its line and
// whether the file is left out (an error) or used with it (a warning). Read with the loaders the engine and the
// commands use: the content in .baton/agents, rules and workflows, the pipelines in .baton/pipelines, the blueprints
// in .baton/blueprints, and a team workflow file (which may be anywhere). No 'vscode' import.
import { join, sep } from 'node:path';
import type { ContentProblem } from '../core/api.js';
import { loadContent, type LoadedContent } from '../core/content/loadContent.js';
import { bundledContentDir } from '../host/openBaton.js';
import { nodeCrypto, nodeFileSystem } from '../host/nodePorts.js';
import { blueprintDirs, listBlueprints, listSystems } from '../host/pipelines/systemFiles.js';
import { readTeamFile } from './teams/teamFiles.js';

/** One problem of a file, for the Problems panel. */
export interface FileProblem {
  /** 1-based, or null when the problem is the file's as a whole. */
  line: number | null;
  message: string;
  /** Whether the file is left out until it is fixed (else it is used, and the problem is a warning). */
  leftOut: boolean;
}

/** Problems by absolute path. */
export type ProblemsByFile = Map<string, FileProblem[]>;

function add(byFile: ProblemsByFile, problems: readonly ContentProblem[], leftOut: (path: string) => boolean): void {
  for (const p of problems) {
    const list = byFile.get(p.path) ?? [];
    list.push({ line: p.line, message: p.message, leftOut: leftOut(p.path) });
    byFile.set(p.path, list);
  }
}

/** The problems of the content files under `workspaceContent` (the workspace's `.baton`); bundled ones are not the person's to fix. */
export function workspaceContentProblems(loaded: LoadedContent, workspaceContent: string): ProblemsByFile {
  const prefix = workspaceContent.endsWith(sep) ? workspaceContent : workspaceContent + sep;
  const used = new Set<string>([...loaded.agents, ...loaded.rules, ...loaded.workflows].map((item) => item.path));
  const byFile: ProblemsByFile = new Map();
  add(byFile, loaded.problems.filter((p) => p.path.startsWith(prefix)), (path) => !used.has(path));
  return byFile;
}

/** The problems of every Baton file under `folder`'s `.baton`: content, pipelines and the workspace's blueprints. */
export async function workspaceProblems(folder: string): Promise<ProblemsByFile> {
  const workspaceContent = join(folder, '.baton'); // the engine's workspace content folder (openBaton)
  const loaded = await loadContent(nodeFileSystem, [bundledContentDir(), workspaceContent], nodeCrypto);
  const byFile = workspaceContentProblems(loaded, workspaceContent);
  for (const s of listSystems(folder)) add(byFile, s.problems, () => !s.system);
  const ownBlueprints = blueprintDirs(bundledContentDir(), folder).slice(1);
  for (const b of listBlueprints(ownBlueprints)) add(byFile, b.problems, () => !b.blueprint);
  return byFile;
}

/** The problems of `path` itself if it is a team workflow file; undefined when it is not one. */
export function teamFileProblems(path: string): FileProblem[] | undefined {
  const team = readTeamFile(path);
  if (!team) return undefined;
  return team.problems.filter((p) => p.path === path).map((p) => ({ line: p.line, message: p.message, leftOut: !team.workflow }));
}
