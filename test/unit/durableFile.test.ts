// Rule: a file replaced by commitReplaceSync is at its path whole and synced when the call returns; the file it replaced
// keeps a second name until the returned removal, so that its blocks are freed off the caller's thread; a failure
// leaves the old file as it was and no second name behind. A snapshot synced in steps as it is written is whole; so is
// a temp file written in pieces, on the thread pool and inline, and one discarded leaves nothing behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { commitReplaceSync, replaceFileDurable, TempFile } from '../../src/store/durableFile.js';
import { bufferSnapshot } from '../../src/store/fileSnapshot.js';
import { withTempDir } from '../fixtures/store/helpers.js';

const others = (dir: string) => readdirSync(dir).filter((f) => f !== 'baton.journal').sort();

/** A synced temp file for `target` holding `data`, closed: what a compaction hands commitReplaceSync. */
function finishedTemp(target: string, data: Buffer): string {
  const temp = TempFile.open(target);
  temp.appendSync(data);
  return temp.finishSync();
}

test('commitReplaceSync puts the new file in place; the old one keeps a second name until the removal it returns', async () => {
  await withTempDir(async (t) => {
    writeFileSync(t.journal, 'old records');
    const old = openSync(t.journal, 'r');
    try {
      const temp = finishedTemp(t.journal, Buffer.from('the kept tail'));
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
    const temp = finishedTemp(t.journal, Buffer.from('first'));
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

test('a TempFile written on the thread pool and then inline holds its pieces in order once finished, and takes no more', async () => {
  await withTempDir(async (t) => {
    writeFileSync(t.journal, 'old records');
    const temp = TempFile.open(t.journal);
    const big = Buffer.alloc(2 * 1024 * 1024 + 3, 0xab);
    await temp.append(Buffer.from('head|'));
    await temp.append(big);
    await temp.syncAsync();
    temp.appendSync(Buffer.from('|tail'));
    const path = temp.finishSync();
    assert.ok(readFileSync(path).equals(Buffer.concat([Buffer.from('head|'), big, Buffer.from('|tail')])));
    assert.throws(() => temp.appendSync(Buffer.from('more')), /is closed/);
    await commitReplaceSync(path, t.journal);
    assert.equal(readFileSync(t.journal).length, big.length + 10);
    assert.deepEqual(others(t.dir), []);
  });
});

test('a discarded TempFile is closed and removed, whether or not it was finished', async () => {
  await withTempDir(async (t) => {
    const open = TempFile.open(t.journal);
    await open.append(Buffer.from('half a journal'));
    open.discard();
    await assert.rejects(open.append(Buffer.from('x')), /is closed/);
    const finished = TempFile.open(t.journal);
    finished.appendSync(Buffer.from('whole'));
    finished.finishSync();
    finished.discard();
    assert.deepEqual(readdirSync(t.dir), [], 'both removed');
  });
});
