// Rule: the editor uses another process's endpoint only when that process holds the database's lock and answers on
// it (/healthz names its pid): a discovery file left by another process, or by one that does not answer, is not
// followed. A database held by a process that serves nothing usable (a one-shot command at work, a Baton stopped with
// Ctrl-Z, a program that is not Baton) leaves the window 'waiting', not failed: its notification, and every command
// meanwhile, names the process, what the system says of it and the way on, and the window comes back by itself once
// the process lets go of the database or answers. Where there is no /proc (macOS, the BSDs), ps tells, and its
// reading is used again for a few seconds: the loop looks at the holder at every try, ps costs a spawn each time.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { writeDiscovery } from '../../src/host/discovery.js';
import { COMMANDS } from '../../src/vscode/commands.js';
import { copyMcpConfig } from '../../src/vscode/mcpConfigCommands.js';
import type { Services } from '../../src/vscode/services.js';
import { SharedRunListing } from '../../src/vscode/sharedRunListing.js';
import { WorkflowsTreeProvider } from '../../src/vscode/views/workflowsTreeProvider.js';
import { HOLDER_PS_MS, HolderReader, heldDatabaseText } from '../../src/vscode/heldDatabase.js';
import { ownerCommand, runPs, type PsRunner } from '../../src/host/silentOwner.js';
import type { BatonLog } from '../../src/vscode/log.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import { fakeVscode, fakeWindow } from '../helpers/fakeVscode.js';
import { until } from '../helpers/until.js';

const log = { debug() {}, info() {}, warn() {}, error() {}, channel: { show() {} } } as unknown as BatonLog;
const linux = process.platform === 'linux';

/** A Node process that only sleeps: as far as the lock can tell, a Baton (its command line names node). */
function sleeper(): ChildProcess {
  return spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
}

/** A stand-in for an owner's endpoint: /healthz answers `pid` (never, when null); /events stays open. */
async function endpoint(answer: () => number | null): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/healthz') {
      const pid = answer();
      if (pid !== null) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, pid }));
      return;
    }
    if (req.url === '/events') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n');
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

describe('the editor and a database another process holds', () => {
  let dir: string;
  let db: string;
  let holder: ChildProcess;
  let connection: BatonConnection | undefined;
  let servers: Server[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'baton-held-'));
    db = join(dir, 'baton.db');
    fakeWindow.shown = [];
    fakeWindow.answer = () => undefined;
    fakeVscode.workspace.settings = { 'database.path': db };
    holder = sleeper();
    await until('the holder started', () => holder.pid !== undefined && ownerCommand(holder.pid).includes('setInterval') || !linux);
    writeFileSync(`${db}.lock`, `${holder.pid}\n`);
  });
  afterEach(async () => {
    if (connection) await connection.close();
    connection?.dispose();
    connection = undefined;
    holder.kill('SIGCONT');
    holder.kill('SIGKILL');
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
    servers = [];
    fakeVscode.workspace.settings = {};
    rmSync(dir, { recursive: true, force: true });
  });

  function connect(takeoverMs = 300, system?: { platform: NodeJS.Platform; ps: PsRunner }): BatonConnection {
    connection = new BatonConnection({ globalStorageUri: { fsPath: dir } } as never, log, '0.0.0-test', { takeoverMs, waitingRetryMs: 50, system });
    connection.start();
    return connection;
  }

  /** The system's ps, with the arguments of every call kept. */
  function countedPs(): PsRunner & { calls: string[][] } {
    const calls: string[][] = [];
    return Object.assign((args: string[]) => (calls.push(args), runPs(args)), { calls });
  }

  it('without /proc (darwin forced): a stopped holder is said at once from ps, which is not run again at each retry', { skip: process.platform === 'win32' }, async () => {
    const pid = holder.pid!;
    process.kill(pid, 'SIGSTOP');
    const ps = countedPs();
    const began = Date.now();
    // A takeover time far past what the test waits: only the holder's state, from ps, can end the starting.
    const c = connect(10 * 60_000, { platform: 'darwin', ps });
    await until('waiting', () => c.state !== 'starting', 10_000);
    assert.equal(c.state, 'waiting', c.error);
    assert.match(c.error!, new RegExp(`is held by process ${pid} \\(.*setInterval.*\\), which is stopped by Ctrl-Z or SIGSTOP, ` +
      `so it cannot finish and let go of it\\. Resume it \\(fg in its terminal, or kill -CONT ${pid}\\)`));
    // Ten retries and more (every 50 ms): ps once for the state and once for the command line, each few seconds.
    await new Promise((r) => setTimeout(r, 600));
    const readings = Math.floor((Date.now() - began) / HOLDER_PS_MS) + 1;
    const states = ps.calls.filter((a) => a.join(' ') === `-o stat= -p ${pid}`).length;
    assert.ok(states >= 1 && states <= readings, `${states} ps for the state (${readings} readings at most): ${JSON.stringify(ps.calls)}`);
    assert.ok(ps.calls.filter((a) => a[1] === 'args=').length <= readings, JSON.stringify(ps.calls));
  });

  it('no endpoint (a command at work): waits, names the process and the way on, and comes back by itself once it ends', async () => {
    const c = connect();
    await until('waiting', () => c.state !== 'starting');
    assert.equal(c.state, 'waiting', c.error);
    const pid = holder.pid!;
    assert.match(c.error!, new RegExp(`^the database ${db} is held by process ${pid}${linux ? ' \\([^)]*node[^)]* -e setInterval' : ''}`));
    assert.match(c.error!, new RegExp(`which serves no endpoint this window can use \\(no server\\.json of it beside the database\\)`));
    assert.match(c.error!, new RegExp(`Wait for it to finish, or end it \\(kill ${pid}\\)`));
    assert.match(c.error!, /as soon as it can: no reload needed/);
    assert.doesNotMatch(c.error!, /see server\.json/, "not the store's words for a Baton that serves");
    assert.deepEqual(fakeWindow.shown.map((s) => [s.level, s.message, s.items]), [['warning', `Baton: ${c.error}`, ['Show Log']]]);
    // A command meanwhile is told the same at once, not left waiting for the other process.
    await assert.rejects(c.listExecutions(), (ex: Error) => ex.message === c.error);
    // Still waiting some retries later, the notification not shown again.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(c.state, 'waiting');
    assert.equal(fakeWindow.shown.length, 1);

    holder.kill('SIGKILL');
    await until('this window owns the database', () => c.state === 'ready');
    assert.equal(c.mode, 'owner');
    assert.equal(c.error, undefined);
    assert.deepEqual(await c.listExecutions(), []);
    assert.equal(fakeWindow.shown.at(-1)!.level, 'info');
    assert.equal(fakeWindow.shown.at(-1)!.message, `Baton: the database ${db} is usable again (this window owns it now).`);
  });

  it('a holder stopped with Ctrl-Z: says so and how to resume or end it', { skip: !linux && 'needs /proc' }, async () => {
    const pid = holder.pid!;
    process.kill(pid, 'SIGSTOP');
    const c = connect();
    await until('waiting', () => c.state !== 'starting');
    assert.equal(c.state, 'waiting', c.error);
    assert.match(c.error!, new RegExp(`is held by process ${pid} \\(.*\\), which is stopped by Ctrl-Z or SIGSTOP, so it cannot finish and let go of it\\. ` +
      `Resume it \\(fg in its terminal, or kill -CONT ${pid}\\), or end it \\(kill -9 ${pid}\\)\\.`));
    process.kill(pid, 'SIGCONT');
    // Resumed (and no longer stopped), the words follow what the system says of it.
    await until('the words of a running holder', () => c.error?.includes('Wait for it to finish'));
    assert.equal(fakeWindow.shown.length, 1, 'one notification while it waits');
  });

  it('a holder already stopped is said at once, not after the takeover time', { skip: !linux && 'needs /proc' }, async () => {
    const pid = holder.pid!;
    process.kill(pid, 'SIGSTOP');
    try {
      // A takeover time far past what the test waits: only the holder's state can end the starting.
      const c = connect(10 * 60_000);
      await until('waiting', () => c.state !== 'starting', 10_000);
      assert.equal(c.state, 'waiting', c.error);
      assert.match(c.error!, /which is stopped by Ctrl-Z or SIGSTOP/);
    } finally {
      process.kill(pid, 'SIGCONT');
    }
  });

  it('a discovery file of a live process that does not hold the lock is not followed', async () => {
    // Left by a process that lost the lock (or whose pid was reused): this test's own process, alive, answering.
    const other = await endpoint(() => process.pid);
    servers.push(other.server);
    writeDiscovery(db, { url: other.url, token: 't', pid: process.pid });
    const c = connect();
    await until('settled', () => c.state !== 'starting');
    assert.equal(c.state, 'waiting', `${c.state}: ${c.error}`);
    assert.notEqual(c.endpoint().url, other.url);
    assert.match(c.error!, new RegExp(`is held by process ${holder.pid} .*which serves no endpoint this window can use`));
  });

  it("the holder's endpoint is not used while it does not answer; the window follows it by itself once it does", async () => {
    let answering: number | null = null;
    const silent = await endpoint(() => answering);
    servers.push(silent.server);
    writeDiscovery(db, { url: silent.url, token: 't', pid: holder.pid! });
    const c = connect();
    await until('settled', () => c.state !== 'starting');
    assert.equal(c.state, 'waiting', `${c.state}: ${c.error}`);
    assert.notEqual(c.endpoint().url, silent.url);
    const pid = holder.pid!;
    assert.match(c.error!, new RegExp(`^the database ${db} is owned by Baton process ${pid} \\(.*\\), but its endpoint ${silent.url} does not answer, ` +
      `and it lives on, ${linux ? 'hung' : 'stopped or hung'}\\.`));

    answering = pid;
    await until('following the holder', () => c.state === 'ready', 10_000);
    assert.equal(c.mode, 'client');
    assert.equal(c.endpoint().url, silent.url);
    assert.equal(fakeWindow.shown.at(-1)!.message, `Baton: the database ${db} is usable again (through Baton process ${pid}).`);
  });

  it('while it waits: the tree leaves the view to its welcome, Refresh tries again now, Copy MCP Config warns', async () => {
    const c = connect();
    await until('waiting', () => c.state !== 'starting');
    assert.equal(c.state, 'waiting', c.error);
    const tree = new WorkflowsTreeProvider(c, new SharedRunListing(c));
    try {
      assert.deepEqual(await tree.getChildren(), [], 'no "could not read this" node: the welcome explains the wait');
    } finally {
      tree.dispose();
    }
    fakeWindow.shown = [];
    const storage = mkdtempSync(join(tmpdir(), 'baton-launcher-'));
    fakeVscode.workspace.workspaceFolders = [{ name: 'ws', uri: { fsPath: dir } }];
    try {
      const s = { connection: c, log, context: { extensionPath: '/ext', globalStorageUri: { fsPath: storage } } } as unknown as Services;
      await copyMcpConfig(s, 'claude');
      assert.equal(fakeWindow.shown.length, 1);
      assert.equal(fakeWindow.shown[0]!.level, 'warning');
      assert.match(fakeWindow.shown[0]!.message, new RegExp(`But another process holds the database this editor uses \\(${db}\\) and serves nothing, so the agent's Baton cannot use it either`));
    } finally {
      fakeVscode.workspace.workspaceFolders = undefined;
      rmSync(storage, { recursive: true, force: true });
    }
    // Refresh (the welcome's Try Now) starts over at once rather than re-reading a tree it cannot read.
    fakeWindow.shown = [];
    await COMMANDS['baton.refresh']({ connection: c, tree } as unknown as Services);
    assert.equal(c.state, 'starting');
    await until('waiting again', () => c.state === 'waiting');
    assert.equal(fakeWindow.shown.length, 1, 'the notification again: the person asked');
  });

  it("a holder's readings from ps are used again for a while; from /proc each is new", { skip: process.platform === 'win32' }, async () => {
    const pid = holder.pid!;
    let now = 1000;
    const ps = countedPs();
    const darwin = new HolderReader({ platform: 'darwin', ps, now: () => now });
    assert.equal(darwin.stopped(pid), false);
    process.kill(pid, 'SIGSTOP');
    await until('ps to say the holder is stopped', () => new HolderReader({ platform: 'darwin' }).stopped(pid), 5000);
    // Within HOLDER_PS_MS the first reading stands, and the command line is read once.
    assert.equal(darwin.stopped(pid), false);
    assert.match(darwin.of(pid, null).command, /setInterval/);
    assert.equal(darwin.of(pid, null).state, 'running');
    assert.deepEqual(ps.calls.map((a) => a[1]), ['stat=', 'args=']);
    now += HOLDER_PS_MS;
    assert.equal(darwin.stopped(pid), true);
    assert.equal(darwin.of(pid, null).state, 'stopped');
    assert.deepEqual(ps.calls.map((a) => a[1]), ['stat=', 'args=', 'stat=', 'args=']);
    // On Linux no ps, and each look is new.
    const proc = new HolderReader({ platform: 'linux', ps: () => assert.fail('ps was run'), now: () => now });
    assert.equal(proc.stopped(pid), linux);
    process.kill(pid, 'SIGCONT');
    if (linux) await until('/proc to say the holder runs again', () => !proc.stopped(pid), 5000);
  });

  it('the words, by what the system says of the holder', () => {
    const base = { pid: 42, url: null, command: 'node dist/cli.js prune --compact' };
    const running = heldDatabaseText('/w/.baton/baton.db', { ...base, state: 'running' });
    assert.match(running, /^the database \/w\/\.baton\/baton\.db is held by process 42 \(node dist\/cli\.js prune --compact\), which serves no endpoint this window can use \(no server\.json of it beside the database\)/);
    assert.match(running, /If process 42 is not Baton \(its pid was reused after a restart\), delete \/w\/\.baton\/baton\.db\.lock\.$/);
    const traced = heldDatabaseText('/w/.baton/baton.db', { ...base, command: '', state: 'traced' });
    assert.match(traced, /^the database \/w\/\.baton\/baton\.db is held by process 42, which is stopped in a debugger, so it cannot finish and let go of it\. Continue it in the debugger, or end it/);
    const silent = heldDatabaseText('/w/.baton/baton.db', { ...base, url: 'http://127.0.0.1:9/mcp', state: 'running' });
    assert.match(silent, /owned by Baton process 42 \(node dist\/cli\.js prune --compact\), but its endpoint http:\/\/127\.0\.0\.1:9\/mcp does not answer, and it lives on, hung\. End it \(/);
    assert.equal(ownerCommand(7, () => `node\0${'x'.repeat(200)}\0caf\u00e9`).length, linux ? 100 : 0);
    assert.equal(ownerCommand(7, () => 'node\0cli.js\0caf\u00e9'), linux ? 'node cli.js caf?' : '');
    assert.equal(ownerCommand(7, () => { throw new Error('gone'); }), '');
  });
});
