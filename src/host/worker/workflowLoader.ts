// Reading a team's workflow file (prompt files relative to it) and the targets of the unified namespace
// (`agent@instance`, `@instance`).
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { BatonError } from '../../core/errors.js';
import { formatProblems } from '../../core/pipelines/systemFile.js';
import type { WorkflowFile } from '../../core/worker/types.js';
import { parseWorkflowFile } from '../../core/worker/workflowFile.js';

/** `agent@instance` or `@instance`. */
export function parseTarget(target: string): { agent: string | null; instance: string } {
  const at = target.indexOf('@');
  if (at < 0 || target.indexOf('@', at + 1) >= 0 || at === target.length - 1) {
    throw new BatonError('invalid_input', `"${target}" is not a target: write agent@instance (e.g. coder@pr-123) or @instance`);
  }
  return { agent: at === 0 ? null : target.slice(0, at), instance: target.slice(at + 1) };
}

/** Reads and parses a workflow file; a BatonError listing the problems (file, line, field) otherwise. */
export function loadWorkflow(path: string): WorkflowFile {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch {
    throw new BatonError('not_found', `workflow file ${path} not found`);
  }
  const readFile = (p: string) => {
    try {
      return readFileSync(resolve(dirname(path), p), 'utf8');
    } catch {
      return undefined;
    }
  };
  const parsed = parseWorkflowFile(raw, path, basename(path, extname(path)), { readFile });
  if (!parsed.value) throw new BatonError('invalid_input', `workflow file is not valid:\n${formatProblems(parsed.problems)}`);
  return parsed.value;
}
