// Rule: an owner that lives on without answering is named with the ways on, first to last: resume it when it is
// stopped (Ctrl-Z, SIGSTOP: fg in its terminal, or kill -CONT PID), then end it (kill -9 PID); a hung one only ended.
// The CLI's words (unreachableOwner) and the forwarding proxy's (ownerSilent) give the same ways. Where there is no
// /proc (macOS, the BSDs) the state comes from ps, with no shell; a ps that fails or says something odd tells nothing.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { test } from 'node:test';
import { unreachableOwner } from '../../src/cli/common.js';
import { ownerSilent } from '../../src/host/proxyAnswers.js';
import type { Upstream } from '../../src/host/proxy.js';
import { ownerState, runPs, silentOwnerWays, stateFromPs, type OwnerState, type PsRunner } from '../../src/host/silentOwner.js';
import { until } from '../helpers/until.js';

const linux = process.platform === 'linux';
const kill = process.platform === 'win32' ? 'taskkill /F /PID 42' : 'kill -9 42';
const db = '/w/.baton/baton.db';
const url = 'http://127.0.0.1:1/mcp';
const reused = `If process 42 is not Baton (its pid was reused after a restart), delete ${db}.lock and start again.`;

test('the state of a process is read from /proc: stopped, in a debugger, or running; unknown when /proc cannot tell', { skip: !linux }, () => {
  const stat = (state: string) => () => `42 (node (a) b) ${state} 1 42 42 0 -1`;
  assert.equal(ownerState(42, stat('T')), 'stopped');
  assert.equal(ownerState(42, stat('t')), 'traced');
  assert.equal(ownerState(42, stat('S')), 'running');
  assert.equal(ownerState(42, stat('R')), 'running');
  assert.equal(ownerState(42, stat('Z')), 'unknown');
  assert.equal(ownerState(42, () => { throw new Error('ENOENT'); }), 'unknown');
  assert.equal(ownerState(process.pid), 'running');
});

test('a process stopped with SIGSTOP reads as stopped, and as running once continued', { skip: !linux }, async () => {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    child.kill('SIGSTOP');
    await until('the child stopped', () => ownerState(child.pid!) === 'stopped', 5000);
    child.kill('SIGCONT');
    await until('the child running again', () => ownerState(child.pid!) === 'running', 5000);
  } finally {
    child.kill('SIGKILL');
  }
});

/** The system's ps, with the arguments of every call kept. */
function countedPs(): PsRunner & { calls: string[][] } {
  const calls: string[][] = [];
  return Object.assign((args: string[]) => (calls.push(args), runPs(args)), { calls });
}

test('without /proc (macOS, the BSDs) a real process reads from ps as stopped, running once continued, unknown once gone', { skip: process.platform === 'win32' }, async () => {
  const ps = countedPs();
  const darwin = (pid: number) => ownerState(pid, () => { throw new Error('no /proc on darwin'); }, 'darwin', ps);
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    assert.equal(darwin(child.pid!), 'running');
    child.kill('SIGSTOP');
    await until('ps to say the child is stopped', () => darwin(child.pid!) === 'stopped', 5000);
    child.kill('SIGCONT');
    await until('ps to say the child runs again', () => darwin(child.pid!) === 'running', 5000);
  } finally {
    child.kill('SIGKILL');
  }
  await exited;
  assert.equal(darwin(child.pid!), 'unknown', 'a process that is gone');
  assert.deepEqual(ps.calls[0], ['-o', 'stat=', '-p', String(child.pid)]);
});

test('a ps that is missing, fails or prints something odd tells nothing: unknown; Linux and Windows never run it', () => {
  const missing: PsRunner = (args) => execFileSync(`/nonexistent-${process.pid}/ps`, args, { encoding: 'latin1' });
  assert.equal(ownerState(process.pid, undefined, 'darwin', missing), 'unknown');
  assert.equal(ownerState(process.pid, undefined, 'freebsd', () => { throw new Error('timed out'); }), 'unknown');
  for (const odd of ['', '\n', 'STAT\nS', 'T garbage', '? ', 'Z', 'Z+', '42', '\u001b[2JT']) {
    assert.equal(ownerState(process.pid, undefined, 'darwin', () => odd), 'unknown', JSON.stringify(odd));
  }
  // macOS and the BSDs say T for job control and a debugger alike: stopped (resume it). Flags follow the letter.
  const said = (out: string) => ownerState(42, undefined, 'darwin', () => out);
  assert.deepEqual(['T', 'T+\n', ' Ts ', 'S', 'Ss', 'R+', 'I', 'U', 'D', 'L', 'W', 't'].map(said),
    ['stopped', 'stopped', 'stopped', 'running', 'running', 'running', 'running', 'running', 'running', 'running', 'running', 'traced']);
  const never: PsRunner = () => assert.fail('ps was run');
  assert.equal(ownerState(42, () => '42 (node) T 1', 'linux', never), 'stopped');
  assert.equal(ownerState(42, () => assert.fail('/proc was read'), 'win32', never), 'unknown');
  assert.deepEqual([stateFromPs('darwin'), stateFromPs('freebsd'), stateFromPs('openbsd'), stateFromPs('linux'), stateFromPs('win32')], [true, true, true, false, false]);
});

test('the CLI names resuming a stopped owner first, then ending it; a hung one only ended', () => {
  const owned = `database ${db} is owned by Baton process 42 but its endpoint ${url} does not answer, and it lives on,`;
  const end = `end it (${kill}, or restart the editor if it is the editor's), then run this command again; or use --db elsewhere. ${reused}`;
  const cases: Array<[OwnerState, string]> = [
    ['stopped', `${owned} stopped by Ctrl-Z or SIGSTOP. Resume it (fg in its terminal, or kill -CONT 42), or ${end}`],
    ['traced', `${owned} stopped in a debugger. Continue it in the debugger, or ${end}`],
    ['running', `${owned} hung. E${end.slice(1)}`],
  ];
  if (process.platform !== 'win32') {
    cases.push(['unknown', `${owned} stopped or hung. Resume it if it was stopped (Ctrl-Z: fg in its terminal, or kill -CONT 42), or ${end}`]);
  }
  for (const [state, words] of cases) assert.equal(unreachableOwner(db, 42, url, state).message, words, state);
  // Stopped before it published its endpoint: resumed first too; otherwise it may be starting, or not be Baton.
  assert.equal(unreachableOwner(db, 42, null, 'stopped').message,
    `database ${db} is owned by Baton process 42 but it publishes no endpoint (no server.json beside the database) and is stopped by Ctrl-Z or SIGSTOP. ` +
      `Resume it (fg in its terminal, or kill -CONT 42), or ${end}`);
  assert.equal(unreachableOwner(db, 42, null, 'running').message,
    `database ${db} is owned by Baton process 42 but it publishes no endpoint (no server.json beside the database); stop that process or use --db elsewhere. ${reused}`);
});

test('the CLI and the forwarding proxy give a silent owner the same ways on', () => {
  const owner = { name: 'Baton process 42', pid: 42 } as Upstream;
  for (const state of ['stopped', 'traced', 'running', 'unknown'] as const) {
    const cli = unreachableOwner(db, 42, url, state).message;
    const proxy = ownerSilent(owner, 30_000, undefined, state);
    for (const words of ['kill -CONT 42', 'fg in its terminal', 'continue it in the debugger', kill, 'restart the editor']) {
      assert.equal(cli.toLowerCase().includes(words.toLowerCase()), proxy.toLowerCase().includes(words.toLowerCase()), `${state}: ${words}`);
    }
    // Where there is a way to resume it, it comes before ending it, in both.
    for (const text of [cli, proxy]) {
      const resume = text.search(/kill -CONT|the debugger/);
      if (silentOwnerWays(42, state).resume) assert.ok(resume >= 0 && resume < text.indexOf(kill), `${state}: resuming comes first in: ${text}`);
    }
  }
});
