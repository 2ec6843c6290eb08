// Warnings a command prints before it runs: a file's problems that do not stop it, and sentences about what it will do.
import type { ContentProblem } from '../core/api.js';
import { formatProblems } from '../core/pipelines/systemFile.js';

/** Prints each warning (a file's problem as file:line: message, or a sentence) as `baton: warning: ...` on stderr. */
export function printWarnings(warnings: ReadonlyArray<ContentProblem | string>): void {
  for (const w of warnings) process.stderr.write(`baton: warning: ${typeof w === 'string' ? w : formatProblems([w])}\n`);
}
