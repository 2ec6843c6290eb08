// A node test reporter that writes one line per failed test: its file, its name under its suites, and what failed
// (the start of its error). scripts/test.mjs runs it beside the usual reporter, and prints what it wrote again at the
// very end of `npm test`, so a failure in the first group is still in view after the editor tests' long output (a
// CI log is often read from its tail).
import { relative } from 'node:path';

/** `name` under its enclosing suites ("suite > test"), from the suite names seen at each nesting level. */
function fullName(stack, nesting, name) {
  stack.length = nesting;
  return [...stack, name].join(' > ');
}

/**
 * What failed, on one line of at most 300 characters: the test's own error (node wraps it as the cause of its
 * ERR_TEST_FAILURE), its lines joined, enough for an assertion's "Expected values to be strictly equal: 2 !== 3" or
 * the start of a deepEqual's diff.
 */
export function reason(error) {
  const cause = error?.cause ?? error;
  const text = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause ?? error?.failureType ?? 'failed');
  const head = text.split('\n').map((line) => line.trim()).filter(Boolean).join(' ');
  return head.length > 300 ? `${head.slice(0, 300)}...` : head;
}

export default async function* failedTests(source) {
  const stacks = new Map(); // per file: the files of a run with --test-concurrency report interleaved
  const stackOf = (file) => stacks.get(file) ?? stacks.set(file, []).get(file);
  for await (const event of source) {
    if (event.type === 'test:start') {
      const stack = stackOf(event.data.file);
      stack.length = event.data.nesting;
      stack.push(event.data.name);
    } else if (event.type === 'test:fail') {
      const { name, nesting, file, details } = event.data; // its line is the compiled one's for a .ts test: left out
      // A suite fails because a test under it failed, which has its own line; a suite whose hook failed does not.
      if (details?.error?.failureType === 'subtestsFailed') continue;
      const where = file ? relative(process.cwd(), file) : '?';
      yield `${where}  ${fullName(stackOf(file), nesting, name)}: ${reason(details?.error)}\n`;
    }
  }
}
