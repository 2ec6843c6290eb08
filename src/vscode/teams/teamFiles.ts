// Which YAML files are agent team workflows, for "Baton: Run Agent Team (YAML)…": a file whose `agents` is a mapping
// of names (a pipeline's is a list, and it has a `workflow`) is a team file, checked with the spec's parser so that a
// file that is not valid is listed with its first problem (file:line). No 'vscode' import.
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import type { ContentProblem } from '../../core/api.js';
import { isMapping } from '../../core/content/fieldReader.js';
import { load } from '../../core/pipelines/systemFile.js';
import type { WorkflowFile } from '../../core/worker/types.js';
import { parseWorkflowFile } from '../../core/worker/workflowFile.js';

/** A team workflow file, parsed. */
export interface TeamFile {
  path: string;
  /** The workflow's name (its file name when it has none). */
  name: string;
  workflow: WorkflowFile | undefined;
  problems: ContentProblem[];
}

/** Whether YAML text looks like a team workflow (whether or not it is valid). */
export function looksLikeTeam(raw: string): boolean {
  const loaded = load(raw, 'x.yaml');
  if ('problems' in loaded) return /^agents:/m.test(raw) && /^kickoff:/m.test(raw) && !/^workflow:/m.test(raw);
  const root = loaded.root;
  return isMapping(root) && isMapping(root['agents']) && !('workflow' in root);
}

/** Reads and parses `path` as a team workflow; undefined when it is not one (or cannot be read). */
export function readTeamFile(path: string): TeamFile | undefined {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  if (!looksLikeTeam(raw)) return undefined;
  const readFile = (p: string) => {
    try {
      return readFileSync(resolve(dirname(path), p), 'utf8');
    } catch {
      return undefined;
    }
  };
  const fallback = basename(path, extname(path));
  const parsed = parseWorkflowFile(raw, path, fallback, { readFile });
  return { path, name: parsed.value?.name ?? fallback, workflow: parsed.value, problems: parsed.problems };
}

/** The team files among `paths`, by name. */
export function teamFiles(paths: readonly string[]): TeamFile[] {
  return paths.flatMap((p) => readTeamFile(p) ?? []).sort((a, b) => a.name.localeCompare(b.name) || a.path.localeCompare(b.path));
}
