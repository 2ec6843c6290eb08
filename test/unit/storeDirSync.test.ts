// Rule: a name the store makes is synced into its folder before anything depends on it, so that a power cut cannot
// lose it with what was acknowledged in it: a journal it creates (an existing database without one, a copied or
// restored one) before the first write is acknowledged, a folder it makes into its parent, a snapshot or compacted
// journal renamed into place right after the rename. None of this is on a call's path: writes sync no folder.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { makeDirs } from '../../src/store/makeDirs.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { checkpointWithWritesDuring, withTempDir } from '../fixtures/store/helpers.js';
import { watchNames } from '../helpers/dirSyncs.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const noAutoCheckpoints = { idleCheckpointMs: 60_000, checkpointRecords: 1_000_000, checkpointBytes: 1 << 30, log: quiet };
const put = (s: SqlJsStore, key: string) => s.transaction(() => s.run('INSERT INTO meta (key, value) VALUES (?, ?)', [key, 'v']));

test('a journal the store creates beside an existing database is synced into its folder before any write', async () => {
  await withTempDir(async (t) => {
    await (await openStore({ path: t.db, log: quiet })).close();
    unlinkSync(t.journal); // a database copied or restored without its journal
    const watch = watchNames();
    try {
      const s = await openStore({ path: t.db, ...noAutoCheckpoints });
      const created = watch.events.indexOf(`create ${t.journal}`);
      assert.ok(created >= 0, `the journal was created: ${watch.events.join('; ')}`);
      assert.ok(watch.events.indexOf(`sync ${t.dir}`, created) > created, `its folder was synced after: ${watch.events.join('; ')}`);
      const before = watch.events.length;
      for (let i = 0; i < 20; i++) await put(s, `k${i}`);
      assert.deepEqual(watch.events.slice(before), [], 'writes create, rename and sync no name');
      await s.close();
    } finally {
      watch.stop();
    }
    const again = await openStore({ path: t.db, log: quiet });
    assert.equal(again.all("SELECT key FROM meta WHERE key LIKE 'k%'").length, 20);
    await again.close();
  });
});

test('a database in new folders: each folder is synced into its parent, the files into theirs', async () => {
  const root = mkdtempSync(join(tmpdir(), 'baton-dirsync-'));
  const watch = watchNames();
  try {
    const db = join(root, 'a', 'b', 'baton.db');
    const s = await openStore({ path: db, ...noAutoCheckpoints });
    await put(s, 'k');
    const at = (event: string) => {
      const i = watch.events.indexOf(event);
      assert.ok(i >= 0, `${event}: ${watch.events.join('; ')}`);
      return i;
    };
    assert.ok(at(`sync ${root}`) > at(`mkdir ${join(root, 'a')}`));
    assert.ok(at(`sync ${join(root, 'a')}`) > at(`mkdir ${join(root, 'a', 'b')}`));
    assert.ok(watch.events.indexOf(`sync ${dirname(db)}`, at(`create ${join(root, 'a', 'b', 'baton.journal')}`)) > 0, 'the new journal');
    const renamed = watch.events.findIndex((e) => e.startsWith('rename ') && e.endsWith(` -> ${db}`));
    assert.ok(renamed >= 0 && watch.events.indexOf(`sync ${dirname(db)}`, renamed) > renamed, 'the first snapshot, after its rename');
    await s.close();
  } finally {
    watch.stop();
    rmSync(root, { recursive: true, force: true });
  }
});

test('a journal compacted behind a checkpoint is synced into its folder after it is renamed into place', async () => {
  await withTempDir(async (t) => {
    const s = await openStore({ path: t.db, ...noAutoCheckpoints });
    const watch = watchNames();
    try {
      await checkpointWithWritesDuring(s, 5);
      const renamed = watch.events.findIndex((e) => e.startsWith('rename ') && e.endsWith(` -> ${t.journal}`));
      assert.ok(renamed >= 0, `the journal's tail was renamed into place: ${watch.events.join('; ')}`);
      assert.ok(watch.events.indexOf(`sync ${t.dir}`, renamed) > renamed, watch.events.join('; '));
    } finally {
      watch.stop();
    }
    await s.close();
  });
});

test('makeDirs syncs each folder it makes into its parent, and none that existed', () => {
  const root = mkdtempSync(join(tmpdir(), 'baton-dirsync-'));
  const watch = watchNames();
  try {
    makeDirs(join(root, 'x', 'y'));
    makeDirs(join(root, 'x', 'y'));
    assert.deepEqual(watch.events, [`mkdir ${join(root, 'x')}`, `sync ${root}`, `mkdir ${join(root, 'x', 'y')}`, `sync ${join(root, 'x')}`]);
    assert.ok(existsSync(join(root, 'x', 'y')));
  } finally {
    watch.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
