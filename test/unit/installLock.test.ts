// Rule: one installer at a time — a second taker waits (saying so once) until the first releases the lock, a lock
// whose holder is gone or that never got its pid is taken over, a live holder is waited for until the time limit.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { lockIsStale, takeInstallLock } from '../../scripts/installLock.mjs';

const base = mkdtempSync(join(tmpdir(), 'baton-install-lock-'));
after(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
const fresh = () => join(base, `lock-${n++}`);
const options = (lines: string[], maxWaitMs = 5_000) => ({ label: 'thing', waiting: 'someone installs it; waiting…', maxWaitMs, log: (l: string) => lines.push(l), pollMs: 20 });

/** The pid of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('install lock', () => {
  it('is taken at once when free, and released', async () => {
    const dir = fresh();
    const lines: string[] = [];
    const release = await takeInstallLock(dir, options(lines));
    assert.ok(existsSync(join(dir, 'pid')));
    assert.equal(lockIsStale(dir), false, 'held by this live process');
    release();
    assert.equal(existsSync(dir), false);
    assert.deepEqual(lines, []);
  });

  it('makes a second taker wait, saying so once, until the first releases it', async () => {
    const dir = fresh();
    const lines: string[] = [];
    const first = await takeInstallLock(dir, options(lines));
    let second = false;
    const waiting = takeInstallLock(dir, options(lines)).then((release) => {
      second = true;
      return release;
    });
    await new Promise((r) => setTimeout(r, 120));
    assert.equal(second, false, 'still waiting while the first holds it');
    first();
    (await waiting)();
    assert.equal(second, true);
    assert.deepEqual(lines, ['thing: someone installs it; waiting…']);
  });

  it('takes over a lock whose holder is gone, or that never got its pid (or an empty pid file) and is old', async () => {
    const gone = fresh();
    mkdirSync(gone);
    writeFileSync(join(gone, 'pid'), String(deadPid()));
    assert.equal(lockIsStale(gone), true);
    (await takeInstallLock(gone, options([])))();

    const noPid = fresh();
    mkdirSync(noPid);
    assert.equal(lockIsStale(noPid), false, 'a new folder without a pid is an installer about to write it');
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(noPid, old, old);
    assert.equal(lockIsStale(noPid), true);
    (await takeInstallLock(noPid, options([])))();

    // Created, not written yet (or its writer died in between): not pid 0, whose group is this process's own.
    const emptyPid = fresh();
    mkdirSync(emptyPid);
    writeFileSync(join(emptyPid, 'pid'), '');
    assert.equal(lockIsStale(emptyPid), false, 'an installer about to write its pid');
    utimesSync(emptyPid, old, old);
    assert.equal(lockIsStale(emptyPid), true, 'and never did');
    (await takeInstallLock(emptyPid, options([])))();
  });

  it('gives up on a live holder after the time limit, naming the lock', async () => {
    const dir = fresh();
    const release = await takeInstallLock(dir, options([]));
    await assert.rejects(takeInstallLock(dir, options([], 100)), new RegExp(`thing: gave up waiting for ${dir}`));
    release();
  });
});
