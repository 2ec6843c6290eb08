// Rule: exactly one live process owns a database; a second opener is told the owner's pid, and the
// lock of a dead process (or a garbage lock file, a pid now another program's, our own pid from an earlier process, or
// a takeover left half done) is taken over.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { BatonError } from '../../src/core/errors.js';
import { acquireLock, mayBeBaton, readLockOwner } from '../../src/store/lock.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { runToEnd, spawnTs, storeChildScript, tempDir, withTempDir, waitForLine } from '../fixtures/store/helpers.js';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  assert.ok(r.pid && r.pid > 0);
  return r.pid;
}

test('a second process cannot open a database another live process owns', async () => {
  await withTempDir(async (t) => {
    const child = spawnTs(storeChildScript, ['hold', t.db]);
    const ended = runToEnd(child);
    await waitForLine(child, /^ready$/);
    assert.equal(readLockOwner(t.db), child.pid);
    await assert.rejects(openStore({ path: t.db }), (ex: unknown) => {
      assert.ok(BatonError.is(ex, 'store_locked'), String(ex));
      assert.equal(ex.details.ownerPid, child.pid);
      assert.match(ex.message, new RegExp(`owned by Baton process ${child.pid}; connect to it`));
      return true;
    });
    child.stdin?.end();
    const result = await ended;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readLockOwner(t.db), null);
    const s = await openStore({ path: t.db });
    assert.equal(readLockOwner(t.db), process.pid);
    await s.close();
  });
});

test('the same process cannot own a database twice', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db });
    await assert.rejects(openStore({ path: t.db }), (ex: unknown) => BatonError.is(ex, 'store_locked') && ex.details.ownerPid === process.pid);
    await s.close();
  });
});

test('processes racing for a stale lock: exactly one wins, the others name it', async () => {
  await withTempDir(async (t) => {
    writeFileSync(`${t.db}.lock`, `${deadPid()}\n`);
    const at = Date.now() + 1500;
    const racers = [0, 1, 2, 3].map(() => spawnTs(storeChildScript, ['lock', t.db, String(at)]));
    const ends = racers.map(runToEnd);
    const lines = await Promise.all(racers.map((r) => waitForLine(r, /^(acquired|refused \d+)$/)));
    for (const r of racers) r.stdin!.end();
    const results = await Promise.all(ends);
    const winners = racers.filter((_, i) => lines[i] === 'acquired');
    assert.equal(winners.length, 1, `${lines.join(' | ')} ${results.map((r) => r.stderr).join('')}`);
    for (const line of lines.filter((l) => l !== 'acquired')) assert.equal(line, `refused ${winners[0]!.pid}`);
  });
});

test('the lock of a dead process is taken over', async () => {
  await withTempDir(async (t) => {
    const dead = deadPid();
    writeFileSync(`${t.db}.lock`, `${dead}\n`);
    assert.equal(readLockOwner(t.db), null);
    const s = await openStore({ path: t.db });
    assert.equal(readFileSync(`${t.db}.lock`, 'utf8').trim(), String(process.pid));
    await s.close();
    assert.equal(existsSync(`${t.db}.lock`), false);
  });
});

test('an empty or garbage lock file is taken over', () => {
  const t = tempDir();
  try {
    for (const junk of ['', 'not a pid', '-5', '0']) {
      writeFileSync(`${t.db}.lock`, junk);
      const lock = acquireLock(t.db);
      assert.ok(lock.acquired, `took over ${JSON.stringify(junk)}`);
      assert.equal(readLockOwner(t.db), process.pid);
      const second = acquireLock(t.db);
      assert.deepEqual(second, { acquired: false, ownerPid: process.pid });
      lock.release();
      assert.equal(existsSync(`${t.db}.lock`), false);
    }
  } finally {
    t.cleanup();
  }
});

test('release() leaves a lock that someone else now holds alone', () => {
  const t = tempDir();
  try {
    const lock = acquireLock(t.db);
    assert.ok(lock.acquired);
    writeFileSync(`${t.db}.lock`, `${process.ppid}\n`);
    lock.release();
    assert.equal(readFileSync(`${t.db}.lock`, 'utf8').trim(), String(process.ppid));
  } finally {
    t.cleanup();
  }
});

test('a lock naming this very process, which it did not take, is stale: Baton is PID 1 again after a container restart', async () => {
  await withTempDir(async (t) => {
    writeFileSync(`${t.db}.lock`, `${process.pid}\n`);
    assert.equal(readLockOwner(t.db), null, 'an earlier process with our pid left it');
    const s = await openStore({ path: t.db });
    assert.equal(readLockOwner(t.db), process.pid);
    await assert.rejects(openStore({ path: t.db }), (ex: unknown) => BatonError.is(ex, 'store_locked') && ex.details.ownerPid === process.pid, 'once taken, it is ours');
    await s.close();
    assert.equal(existsSync(`${t.db}.lock`), false);
  });
});

test('mayBeBaton: on Linux a command line that is plainly another program is not Baton; Node, editors and unknowns may be', () => {
  const cases: Array<[string, string | Error, boolean]> = [
    ['the CLI', 'node\0/usr/lib/node_modules/baton/dist/cli.js\0mcp\0', true],
    ['a test under tsx', '/usr/bin/node\0--import\0tsx\0test/unit/x.test.ts\0', true],
    ["VS Code's extension host", '/usr/share/code/code\0--type=utility\0--utility-sub-type=node.mojom.NodeService\0', true],
    ['code-server', '/usr/lib/code-server/lib/node\0/usr/lib/code-server/out/node/entry\0', true],
    ['systemd as PID 1', '/sbin/init\0splash\0', false],
    ['a shell', '-bash\0', false],
    ['python reading json', 'python3\0tool.py\0data.json\0', false],
    ['a kernel thread or an unreaped process', '', false],
    ['/proc unreadable', new Error('EACCES'), true],
  ];
  for (const [what, cmdline, expected] of cases) {
    const read = () => {
      if (cmdline instanceof Error) throw cmdline;
      return cmdline;
    };
    assert.equal(mayBeBaton(4242, read), process.platform === 'linux' ? expected : true, what);
  }
});

test('a lock whose pid now belongs to another program is taken over on Linux; a Node process holding it is refused, naming the lock file', { skip: process.platform !== 'linux' ? 'reads /proc' : false }, async () => {
  await withTempDir(async (t) => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    const node = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      writeFileSync(`${t.db}.lock`, `${other.pid}\n`);
      assert.equal(readLockOwner(t.db), null, `process ${other.pid} is sleep(1), not Baton`);
      const s = await openStore({ path: t.db });
      await s.close();
      writeFileSync(`${t.db}.lock`, `${node.pid}\n`);
      await assert.rejects(openStore({ path: t.db }), (ex: unknown) => {
        assert.ok(BatonError.is(ex, 'store_locked'), String(ex));
        assert.match(ex.message, new RegExp(`If process ${node.pid} is not Baton \\(its pid was reused after a restart\\), delete ${t.db}\\.lock and start again`));
        return true;
      });
    } finally {
      other.kill();
      node.kill();
    }
  });
});

test('a takeover guard left behind is aged out whatever pid it holds; a young one held by a live process fails plainly, naming both files', async () => {
  await withTempDir(async (t) => {
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      takeoverGuards(t.db, sleeper.pid!);
    } finally {
      sleeper.kill();
    }
  });
});

/** The takeover-guard cases, with `live` a live Node process (it may be a Baton taking over). */
function takeoverGuards(db: string, live: number): void {
  const lockPath = `${db}.lock`;
  const guard = `${lockPath}.takeover`;
  const guardAged = (pid: number, ms: number) => {
    writeFileSync(lockPath, `${deadPid()}\n`);
    writeFileSync(guard, `${pid}\n`);
    const then = new Date(Date.now() - ms);
    utimesSync(guard, then, then);
  };

  guardAged(live, 86_400_000);
  const lock = acquireLock(db);
  assert.ok(lock.acquired, 'a day-old guard is removed though its pid is alive');
  assert.equal(existsSync(guard), false);
  lock.release();

  guardAged(deadPid(), 2000);
  const again = acquireLock(db);
  assert.ok(again.acquired, 'the guard of a takeover whose process died is removed after a second');
  again.release();

  guardAged(live, 0);
  const started = Date.now();
  assert.throws(() => acquireLock(db), (ex: unknown) => {
    assert.ok(BatonError.is(ex, 'store_locked'), String(ex));
    assert.equal(ex.details.ownerPid, undefined, 'no owner to connect to');
    assert.ok(ex.message.includes(`could not take over the stale lock ${lockPath}`), ex.message);
    assert.ok(ex.message.includes(`${guard}, the guard of a takeover, is held by process ${live}`), ex.message);
    assert.ok(ex.message.includes(`delete ${guard} and ${lockPath}, then start Baton again`), ex.message);
    return true;
  });
  assert.ok(Date.now() - started < 5000, 'it gives up within seconds');
}
