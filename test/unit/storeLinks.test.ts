// Rule: a database or journal that is a symbolic link stays a link: its checkpoints and journal rewrites land in the
// file it leads to (also one that does not exist yet), and the lock and journal are that file's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, readdirSync, readlinkSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { readLockOwner } from '../../src/store/lock.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { checkpointWithWritesDuring, withTempDir } from '../fixtures/store/helpers.js';

const skip = process.platform === 'win32' ? 'symbolic links need privileges on Windows' : false;
const quiet = { idleCheckpointMs: 60_000 };
const put = (s: SqlJsStore, key: string, value: string) =>
  s.transaction(() => s.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]));
const keys = (s: SqlJsStore) => s.all<{ key: string }>("SELECT key FROM meta WHERE key LIKE 'k%' ORDER BY key").map((r) => r.key);

/** Writes k00..k(n-1) while a checkpoint is written: the journal keeps them as its tail, and is rewritten. */
async function writeThroughCheckpoint(s: SqlJsStore, n: number): Promise<void> {
  await checkpointWithWritesDuring(s, n);
  assert.ok(s.stats().journalRecords > 0, 'some writes landed in the journal after the snapshot was taken');
}

const isLink = (path: string) => lstatSync(path).isSymbolicLink();

test('a linked database stays a link: checkpoints, journal and lock are those of the file it leads to', { skip }, async () => {
  await withTempDir(async (t) => {
    mkdirSync(join(t.dir, 'store'));
    mkdirSync(join(t.dir, 'ws'));
    const real = join(t.dir, 'store', 'real.db');
    await (await openStore({ path: real })).close();
    const link = join(t.dir, 'ws', 'baton.db');
    symlinkSync('../store/real.db', link);

    const s = await openStore({ path: link, ...quiet });
    assert.equal(readLockOwner(real), process.pid, 'the lock is beside the real file');
    await writeThroughCheckpoint(s, 20);
    assert.ok(isLink(link), 'still a link after a checkpoint');
    assert.ok(statSync(join(t.dir, 'store', 'real.journal')).size > 0, 'the journal beside the real file holds the tail');
    await s.close();

    assert.ok(isLink(link), 'still a link after close');
    assert.equal(readlinkSync(link), '../store/real.db');
    assert.deepEqual(readdirSync(join(t.dir, 'ws')), ['baton.db'], 'no journal, lock or temp file beside the link');
    const r = await openStore({ path: real, access: 'read' });
    assert.equal(keys(r).length, 20, 'the real file got every write');
    await r.close();
  });
});

test('a link to a database that does not exist yet creates that file and stays a link', { skip }, async () => {
  await withTempDir(async (t) => {
    mkdirSync(join(t.dir, 'ws'));
    const link = join(t.dir, 'ws', 'baton.db');
    symlinkSync(join(t.dir, 'store', 'new.db'), link);
    const s = await openStore({ path: link, ...quiet });
    await put(s, 'k1', '1');
    await s.close();
    assert.ok(isLink(link));
    assert.ok(statSync(join(t.dir, 'store', 'new.db')).isFile(), 'the file the link names was made, with its folder');
    const r = await openStore({ path: join(t.dir, 'store', 'new.db'), access: 'read' });
    assert.deepEqual(keys(r), ['k1']);
    await r.close();
  });
});

test('a linked journal stays a link when the checkpoint rewrites it, and its target keeps the tail', { skip }, async () => {
  await withTempDir(async (t) => {
    mkdirSync(join(t.dir, 'journals'));
    const target = join(t.dir, 'journals', 'baton.journal');
    symlinkSync(target, t.journal);
    const s = await openStore({ path: t.db, ...quiet });
    await writeThroughCheckpoint(s, 20);
    assert.ok(isLink(t.journal), 'still a link after the journal was rewritten');
    assert.ok(statSync(target).size > 0, 'the linked file holds the records written during the checkpoint');
    s.dispose(); // a crash: the tail is only in the journal
    assert.ok(isLink(t.journal));
    const r = await openStore({ path: t.db, access: 'read' });
    assert.equal(keys(r).length, 20, 'replayed from the linked journal');
    await r.close();
  });
});
