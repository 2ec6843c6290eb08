// Rule: every command's help keeps to 120 columns, its option descriptions (and their wrapped lines) start at one
// column, and it describes exactly the flags the command accepts: none it refuses, none it takes unsaid.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { blueprintCommand } from '../../src/cli/blueprintCommand.js';
import { cancelCommand } from '../../src/cli/cancelCommand.js';
import { decideCommand } from '../../src/cli/decideCommand.js';
import { listCommand } from '../../src/cli/listCommand.js';
import { newCommand } from '../../src/cli/newCommand.js';
import { peekCommand } from '../../src/cli/peekCommand.js';
import { pipelineCommand } from '../../src/cli/pipelineCommand.js';
import { pruneCommand } from '../../src/cli/pruneCommand.js';
import { releaseCommand } from '../../src/cli/releaseCommand.js';
import { runCommand } from '../../src/cli/runCommand.js';
import { sendCommand } from '../../src/cli/sendCommand.js';
import { serveCommand } from '../../src/cli/serveCommand.js';
import { specCommand } from '../../src/cli/specCommand.js';
import { startCommand } from '../../src/cli/startCommand.js';
import { statusCommand } from '../../src/cli/statusCommand.js';
import { stopCommand } from '../../src/cli/stopCommand.js';
import { mcpCommand } from '../../src/cli/mcpCommand.js';
import { USAGE } from '../../src/cli/usage.js';

// Each command as dist/cli.js dispatches it (main.ts runs itself on import, so the commands are called directly), from
// its own module: the engine's lazy import would let the test runner's report of the previous test reach stdout while
// `baton` below holds it.
const RUN: Record<string, (args: string[]) => Promise<number>> = {
  mcp: (a) => mcpCommand(a), serve: serveCommand, status: statusCommand, approve: (a) => decideCommand('approve', a),
  reject: (a) => decideCommand('reject', a), cancel: cancelCommand, release: releaseCommand, prune: pruneCommand,
  pipeline: pipelineCommand, blueprint: blueprintCommand, spec: specCommand, run: runCommand, start: startCommand,
  stop: stopCommand, list: listCommand, send: sendCommand, peek: peekCommand, new: newCommand,
};
const COMMANDS = Object.keys(RUN);
const WIDTH = 120;
// An option's line: its description after two spaces at least, or on the next line when the flag is too long.
const OPTION = /^ {2}(?:-\w, )?--([a-z][a-z-]*)(?: \S+)?(?: {2,}(?=\S)|$)/;

/** Runs `baton COMMAND ARGS` in this process (the real parser and texts): its exit code (2 for a usage error), its stdout. */
async function baton(command: string, args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string) => ((stdout += chunk), true)) as typeof process.stdout.write;
  try {
    return { code: await RUN[command]!(args), stdout };
  } catch (ex) {
    return { code: (ex as { exitCode?: number }).exitCode ?? 1, stdout };
  } finally {
    process.stdout.write = write;
  }
}

const helps = new Map<string, string>([['', USAGE]]);
async function help(command: string): Promise<string> {
  if (!helps.has(command)) {
    const r = await baton(command, ['--help']);
    assert.equal(r.code, 0, command);
    helps.set(command, r.stdout);
  }
  return helps.get(command)!;
}

test('every help keeps to 120 columns', async () => {
  const long: string[] = [];
  for (const command of ['', ...COMMANDS]) {
    for (const l of (await help(command)).split('\n')) if ([...l].length > WIDTH) long.push(`baton ${command} --help: ${l}`);
  }
  assert.deepEqual(long, []);
});

test('every help starts its option descriptions, and the lines they wrap onto, at one column', async () => {
  const off: string[] = [];
  for (const command of COMMANDS) {
    const lines = (await help(command)).split('\n');
    // The column most of its options' descriptions start at.
    const starts = lines.map((l) => OPTION.exec(l)).filter((m) => m !== null && m[0] !== m.input).map((m) => m![0].length);
    const column = starts.sort((a, b) => starts.filter((x) => x === b).length - starts.filter((x) => x === a).length)[0];
    for (const [i, line] of lines.entries()) {
      const m = OPTION.exec(line);
      if (!m) continue;
      if (m[0] !== line && m[0].length !== column) off.push(`baton ${command} --help: --${m[1]} at column ${m[0].length}, not ${column}`);
      // Its wrapped lines: indented deeper than an option, up to the next option or blank line.
      for (let j = i + 1; j < lines.length && /^ {3,}\S/.test(lines[j]!) && !OPTION.test(lines[j]!); j++) {
        const at = lines[j]!.length - lines[j]!.trimStart().length;
        if (at !== column) off.push(`baton ${command} --help: a line under --${m[1]} at column ${at}, not ${column}`);
      }
    }
  }
  assert.deepEqual(off, []);
});

test('every help describes exactly the flags its command accepts', async () => {
  const described = new Map<string, Set<string>>();
  for (const command of COMMANDS) {
    described.set(command, new Set((await help(command)).split('\n').map((l) => OPTION.exec(l)?.[1]).filter((f): f is string => f !== undefined)));
  }
  const every = new Set([...described.values()].flatMap((s) => [...s]));
  const wrong: string[] = [];
  for (const command of COMMANDS) {
    for (const flag of every) {
      // With a value (a number, a folder) or without: followed by --help, it prints the help when the command takes it.
      let accepted = false;
      for (const args of [[`--${flag}=1`], [`--${flag}=.`], [`--${flag}`]]) accepted ||= (await baton(command, [...args, '--help'])).code === 0;
      if (accepted && !described.get(command)!.has(flag)) wrong.push(`baton ${command} takes --${flag}, which its help leaves out`);
      if (!accepted && described.get(command)!.has(flag)) wrong.push(`baton ${command} --help describes --${flag}, which it refuses`);
    }
  }
  assert.deepEqual(wrong, []);
});
