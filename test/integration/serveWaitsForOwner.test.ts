// Rule: `baton serve` started while another process holds the database's lock without an endpoint (an owner that is
// starting, or one letting go, or a command such as `baton approve`) waits for it rather than exiting at once: it owns
// the database once the lock comes free, and names the owner's endpoint once that serves. It waits as long as the
// holder runs (a large database takes a while to open), says after about a second which process it waits for, and
// not at all for one that is stopped (Ctrl-Z). A stop signal while it waits ends it without touching the other's lock.
// Where there is no /proc (macOS, the BSDs), ps tells a stopped holder, asked once a second rather than at each try.
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openOrFindOwner } from '../../src/cli/common.js';
import { silentLog } from '../../src/core/ports.js';
import { readDiscovery } from '../../src/host/discovery.js';
import { openBaton } from '../../src/host/openBaton.js';
import { ownerState, runPs, type PsRunner } from '../../src/host/silentOwner.js';
import { readLockOwner } from '../../src/store/lock.js';
import { CLI, ensureBuilt, killAll, ROOT, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { spawnTs, waitForLine } from '../fixtures/store/helpers.js';
import { startNode, type Started } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const STARTING_OWNER = join(ROOT, 'test', 'fixtures', 'owner', 'startingOwner.ts');
const pids: number[] = [];
const dirs: string[] = [];

before(() => ensureBuilt());
after(() => {
  killAll(pids);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A database whose lock another process holds, its database open, its endpoint not published. */
async function heldDatabase() {
  const t = tempSetup('baton-serve-wait-');
  dirs.push(t.dir);
  const holder = spawnTs(STARTING_OWNER, [t.db]);
  pids.push(holder.pid!);
  await waitForLine(holder, /^opened$/);
  return { db: t.db, holder };
}

/** `baton serve` on `db`, once it says it waits for the process that holds the database (it must not exit first). */
async function waitingServe(db: string, holderPid: number, flags: string[] = []): Promise<Started & { code: () => number | null | undefined }> {
  const serve = startNode([CLI, 'serve', '--db', db, ...flags], { BATON_LOG_LEVEL: 'info' });
  pids.push(serve.child.pid!);
  let code: number | null | undefined;
  void serve.exited.then((c) => (code = c));
  await until('baton serve to wait or exit', () => code !== undefined || serve.err().includes('waiting up to'));
  assert.equal(code, undefined, `baton serve exited instead of waiting: ${serve.err()}`);
  // The holder by its pid and command line (a test's startingOwner.ts here), so that a person can tell what it is.
  assert.match(serve.err(), new RegExp(`is held by Baton process ${holderPid} \\([^)]*startingOwner\\.ts [^)]*\\), which publishes no endpoint yet; ` +
    'waiting up to 60 s while it runs, for it to serve or to let go of it \\(Ctrl-C stops waiting\\)'));
  return { ...serve, code: () => code };
}

test('baton serve waits while another process holds the database, and owns it once that one lets go', async () => {
  const { db, holder } = await heldDatabase();
  const serve = await waitingServe(db, holder.pid!);
  holder.stdin!.write('release\n');
  await waitForLine(holder, /^released$/);
  await until('baton serve to serve or exit', () => serve.code() !== undefined || serve.err().includes('Baton serving'));
  assert.equal(serve.code(), undefined, serve.err());
  assert.equal(readDiscovery(db)?.pid, serve.child.pid);
  assert.equal(readLockOwner(db), serve.child.pid);
  serve.child.kill('SIGTERM');
  assert.equal(await serve.exited, 0, serve.err());
});

test('baton serve waits for the endpoint of a process that is starting, then names it and its endpoint', async () => {
  const { db, holder } = await heldDatabase();
  const serve = await waitingServe(db, holder.pid!);
  holder.stdin!.write('publish\n');
  const url = (await waitForLine(holder, /^serving /)).slice('serving '.length);
  assert.equal(await serve.exited, 1, serve.err());
  const text = serve.err().replace(/\s+/g, ' ');
  assert.ok(text.includes(`baton: database ${db} is already owned by Baton process ${holder.pid} (endpoint ${url}). Either`), text);
  assert.ok(text.includes(`or run baton mcp --db ${db}, which forwards to it`), text);
  assert.equal(readLockOwner(db), holder.pid, 'the owner keeps its database');
});

test('a stop signal while baton serve waits ends it at once, leaving the other process its lock', async () => {
  const { db, holder } = await heldDatabase();
  const serve = await waitingServe(db, holder.pid!);
  serve.child.kill('SIGTERM');
  assert.equal(await serve.exited, 0, serve.err());
  assert.doesNotMatch(serve.err(), /already owned|baton:/, 'it stopped as asked, and reports no failure');
  assert.equal(readLockOwner(db), holder.pid);
});

test('a database another process made while baton serve waited is kept when serve then fails (its --port in use)', async () => {
  const t = tempSetup('baton-serve-wait-');
  dirs.push(t.dir);
  // The other process holds the lock before the database exists, and makes it while serve waits.
  const holder = spawnTs(STARTING_OWNER, [t.db, '--wait']);
  pids.push(holder.pid!);
  await waitForLine(holder, /^locked$/);
  assert.equal(existsSync(t.db), false);
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const port = (taken.address() as AddressInfo).port;
    const serve = await waitingServe(t.db, holder.pid!, ['--port', String(port)]);
    holder.stdin!.write('open\n');
    await waitForLine(holder, /^opened$/);
    holder.stdin!.write('release\n');
    await waitForLine(holder, /^released$/);
    assert.equal(await serve.exited, 1, serve.err());
    assert.match(serve.err(), new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use by another program`));
    assert.equal(existsSync(t.db), true, 'the other process\'s database is left as it was');
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

test('baton serve waits past 5 s for a holder that runs and publishes late (a large database), then names its endpoint', async () => {
  const { db, holder } = await heldDatabase();
  const serve = await waitingServe(db, holder.pid!);
  // Past the 5 s it used to give up after: an owner opening a large database publishes later than that.
  await new Promise((r) => setTimeout(r, 6000));
  assert.equal(serve.code(), undefined, `baton serve gave up on a holder that still runs: ${serve.err()}`);
  holder.stdin!.write('publish\n');
  const url = (await waitForLine(holder, /^serving /)).slice('serving '.length);
  assert.equal(await serve.exited, 1, serve.err());
  assert.ok(serve.err().replace(/\s+/g, ' ').includes(`already owned by Baton process ${holder.pid} (endpoint ${url})`), serve.err());
});

/**
 * `baton serve` (node `flags` before the CLI) against a holder stopped by SIGSTOP: it exits 1 at once, saying the
 * holder is stopped and how to resume it; `also` checks more while the holder is still stopped.
 */
async function refusedForStoppedHolder(flags: string[], also: (db: string, pid: number) => void = () => undefined): Promise<void> {
  const { db, holder } = await heldDatabase();
  process.kill(holder.pid!, 'SIGSTOP');
  try {
    await until('the holder to be stopped', () => ownerState(holder.pid!) === 'stopped');
    const serve = startNode([...flags, CLI, 'serve', '--db', db], { BATON_LOG_LEVEL: 'info' });
    pids.push(serve.child.pid!);
    assert.equal(await serve.exited, 1, serve.err());
    const text = serve.err().replace(/\s+/g, ' ');
    assert.doesNotMatch(text, /waiting up to/, 'it did not wait for a process that cannot go on');
    assert.ok(text.includes(`owned by Baton process ${holder.pid} but it publishes no endpoint`), text);
    assert.ok(text.includes(`is stopped by Ctrl-Z or SIGSTOP. Resume it (fg in its terminal, or kill -CONT ${holder.pid})`), text);
    also(db, holder.pid!);
  } finally {
    process.kill(holder.pid!, 'SIGCONT');
  }
}

test('a holder that is stopped (Ctrl-Z, SIGSTOP) is not waited for: baton serve says at once how to resume or end it', async () => {
  await refusedForStoppedHolder([], (db, pid) => assert.equal(readLockOwner(db), pid, 'the stopped process keeps its lock'));
});

test('a holder stopped while baton serve waits for it ends the wait with the same words', async () => {
  const { db, holder } = await heldDatabase();
  const serve = await waitingServe(db, holder.pid!);
  process.kill(holder.pid!, 'SIGSTOP');
  try {
    assert.equal(await serve.exited, 1, serve.err());
    assert.ok(serve.err().replace(/\s+/g, ' ').includes(`is stopped by Ctrl-Z or SIGSTOP. Resume it (fg in its terminal, or kill -CONT ${holder.pid})`), serve.err());
  } finally {
    process.kill(holder.pid!, 'SIGCONT');
  }
});

test('a holder that exits while baton serve waits leaves its lock to serve, which owns the database', async () => {
  const { db, holder } = await heldDatabase();
  const serve = await waitingServe(db, holder.pid!);
  holder.kill('SIGKILL');
  await until('baton serve to serve or exit', () => serve.code() !== undefined || serve.err().includes('Baton serving'));
  assert.equal(serve.code(), undefined, serve.err());
  assert.equal(readLockOwner(db), serve.child.pid);
  serve.child.kill('SIGTERM');
  assert.equal(await serve.exited, 0, serve.err());
});

test('a holder that runs and never publishes is waited for up to the cap, and named once after about a second', async () => {
  const { db, holder } = await heldDatabase();
  const said: string[] = [];
  const log = { ...silentLog, info: (message: string) => void said.push(message) };
  const open = () => openBaton({ dbPath: db, access: 'existing', log: silentLog });
  const found = await openOrFindOwner(db, open, { log, startMs: 2500 });
  assert.deepEqual(found, { lockedBy: holder.pid });
  assert.equal(said.length, 1, said.join('\n'));
  assert.match(said[0]!, new RegExp(`^database ${db} is held by Baton process ${holder.pid} \\(.*startingOwner\\.ts .*\\), which publishes no endpoint yet; waiting up to 2\\.5 s`));
});

/** The system's ps, with the arguments of every call kept. */
function countedPs(): PsRunner & { calls: string[][] } {
  const calls: string[][] = [];
  return Object.assign((args: string[]) => (calls.push(args), runPs(args)), { calls });
}

test('without /proc (darwin forced): a stopped holder, told by ps, is not waited for', { skip: process.platform === 'win32' }, async () => {
  const { db, holder } = await heldDatabase();
  process.kill(holder.pid!, 'SIGSTOP');
  try {
    await until('the holder to be stopped', () => ownerState(holder.pid!) === 'stopped');
    const said: string[] = [];
    const log = { ...silentLog, info: (message: string) => void said.push(message) };
    const ps = countedPs();
    const open = () => openBaton({ dbPath: db, access: 'existing', log: silentLog });
    const found = await openOrFindOwner(db, open, { log, startMs: 2500, platform: 'darwin', ps });
    assert.deepEqual(found, { lockedBy: holder.pid });
    assert.deepEqual(said, [], 'no wait for a process that cannot go on');
    assert.deepEqual(ps.calls, [['-o', 'stat=', '-p', String(holder.pid)]]);
  } finally {
    process.kill(holder.pid!, 'SIGCONT');
  }
});

test('without /proc (darwin forced): a running holder is asked of ps once a second, not at each try, and named by its command line', { skip: process.platform === 'win32' }, async () => {
  const { db, holder } = await heldDatabase();
  const said: string[] = [];
  const log = { ...silentLog, info: (message: string) => void said.push(message) };
  const ps = countedPs();
  const open = () => openBaton({ dbPath: db, access: 'existing', log: silentLog });
  const began = Date.now();
  const found = await openOrFindOwner(db, open, { log, startMs: 2500, platform: 'darwin', ps });
  const tries = Math.floor((Date.now() - began) / 1000) + 1;
  assert.deepEqual(found, { lockedBy: holder.pid });
  const states = ps.calls.filter((a) => a[1] === 'stat=');
  // Tried every 100 ms for 2.5 s: ps for its state at the first try and once a second after, not 25 times.
  assert.ok(states.length >= 2 && states.length <= tries, `${states.length} ps for the state in ${tries} s`);
  assert.deepEqual(ps.calls.filter((a) => a[1] === 'args='), [['-o', 'args=', '-p', String(holder.pid)]]);
  assert.match(said[0]!, new RegExp(`^database ${db} is held by Baton process ${holder.pid} \\(.*startingOwner\\.ts .*\\), which publishes no endpoint yet`));
});

test('baton serve on darwin (forced), a holder stopped: says at once it is stopped and how to resume it, as on Linux', { skip: process.platform === 'win32' }, async () => {
  // This whole process takes itself for macOS's: no /proc is read, ps alone can tell.
  await refusedForStoppedHolder(['--import', 'data:text/javascript,Object.defineProperty(process,"platform",{value:"darwin"})']);
});
