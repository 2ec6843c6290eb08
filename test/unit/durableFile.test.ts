// Rule: a file replaced by commitReplaceSync is at its path whole and synced when the call returns; the file it replaced
// keeps a second name until the returned removal, so that its blocks are freed off the caller's thread; a failure
// leaves the old file as it was and no second name behind. A snapshot synced in steps as it is written is whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { commitReplaceSync, replaceFileDurable, writeTempSync } from '../../src/store/durableFile.js';
import { bufferSnapshot } from '../../src/store/fileSnapshot.js';
import { withTempDir } from '../fixtures/store/helpers.js';

const others = (dir: string) => readdirSync(dir).filter((f) => f !== 'baton.journal').sort();

test('commitReplaceSync puts the new file in place; the old one keeps a second name until the removal it returns', async () => {
  await withTempDir(async (t) => {
    writeFileSync(t.journal, 'old records');
    const old = openSync(t.journal, 'r');
    try {
      const temp = writeTempSync(t.journal, Buffer.from('the kept tail'));
      const removal = commitReplaceSync(temp, t.journal);
      assert.equal(readFileSync(t.journal, 'utf8'), 'the kept tail');
      // The rename dropped one of the old file's two names; the other is being removed on the thread pool.
      assert.ok(removal, 'a second name was made (this file system has hard links)');
      await removal;
      assert.equal(fstatSync(old).nlink, 0, 'removed: the old journal has no name left');
      assert.deepEqual(others(t.dir), [], 'no temp file left');
    } finally {
      closeSync(old);
    }
  });
});

test('commitReplaceSync with no file at the path yet renames the temp into place and has nothing to remove', async () => {
  await withTempDir(async (t) => {
    const temp = writeTempSync(t.journal, Buffer.from('first'));
    assert.equal(commitReplaceSync(temp, t.journal), null);
    assert.equal(readFileSync(t.journal, 'utf8'), 'first');
    assert.deepEqual(others(t.dir), []);
  });
});

test('commitReplaceSync whose rename fails throws, leaves the old file as it was and no second name', async () => {
  await withTempDir(async (t) => {
    writeFileSync(t.journal, 'old records');
    assert.throws(() => commitReplaceSync(`${t.journal}.tmp-gone`, t.journal), { code: 'ENOENT' });
    assert.equal(readFileSync(t.journal, 'utf8'), 'old records');
    const old = openSync(t.journal, 'r');
    try {
      assert.equal(fstatSync(old).nlink, 1, 'one name, its own');
    } finally {
      closeSync(old);
    }
    assert.deepEqual(others(t.dir), []);
  });
});

test('replaceFileDurable writes a snapshot larger than its sync step whole, over the file it replaces', async () => {
  await withTempDir(async (t) => {
    writeFileSync(t.db, 'old snapshot');
    // 40 MiB and a bit: two syncs on the way (every 16 MiB) and a last part that is not a whole step.
    const bytes = Buffer.alloc(40 * 1024 * 1024 + 4096 + 17);
    for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32LE(i, i);
    bytes[bytes.length - 1] = 0xee;
    let renamed = false;
    await replaceFileDurable(t.db, bufferSnapshot(bytes), () => (renamed = true));
    assert.ok(renamed);
    assert.ok(readFileSync(t.db).equals(bytes), 'the file holds the snapshot byte for byte');
    assert.deepEqual(readdirSync(t.dir).filter((f) => f.includes('.tmp')), [], 'no temp file left');
  });
});
