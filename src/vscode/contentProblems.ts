// The problems of the workspace's own content files (.baton/agents, rules, workflows) as the Problems panel shows
// them: per file, each with its line and whether the file is left out (an error) or loads with it (a warning). The
// editor computes them itself, with the loader the engine uses, so they show whichever process owns the database.
// No 'vscode' import.
import { sep } from 'node:path';
import type { LoadedContent } from '../core/content/loadContent.js';

/** One problem of a file, for the Problems panel. */
export interface FileProblem {
  /** 1-based, or null when the problem is the file's as a whole. */
  line: number | null;
  message: string;
  /** Whether the file is left out until it is fixed (else it loads, and the problem is a warning). */
  leftOut: boolean;
}

/** The problems of the files under `workspaceContent` (the workspace's `.baton`), by absolute path; bundled ones are not the person's to fix. */
export function workspaceContentProblems(loaded: LoadedContent, workspaceContent: string): Map<string, FileProblem[]> {
  const prefix = workspaceContent.endsWith(sep) ? workspaceContent : workspaceContent + sep;
  const used = new Set<string>([...loaded.agents, ...loaded.rules, ...loaded.workflows].map((item) => item.path));
  const byFile = new Map<string, FileProblem[]>();
  for (const p of loaded.problems) {
    if (!p.path.startsWith(prefix)) continue;
    const list = byFile.get(p.path) ?? [];
    list.push({ line: p.line, message: p.message, leftOut: !used.has(p.path) });
    byFile.set(p.path, list);
  }
  return byFile;
}
