// Rule: the snapshot file is read whole, in one read on the thread pool (it can be read ahead while the engine loads),
// onto a buffer sql.js's in-memory file can keep and grow in place; an open uses bytes read ahead only under the lock
// its caller took first, and only of the very file it opens, and a read that failed fails the open and frees the lock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { acquireLock, readLockOwner, type HeldLock } from '../../src/store/lock.js';
import { readSnapshotAhead, readSnapshotFile, type SnapshotRead } from '../../src/store/snapshotRead.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { withTempDir } from '../fixtures/store/helpers.js';

const put = (s: SqlJsStore, key: string, value: string) =>
  s.transaction(() => s.run('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)', [key, value]));
const get = (s: SqlJsStore, key: string) => s.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key])?.value;

/** A read ahead that fails as a disk would (handled here, so that one an open ignores is no unhandled rejection). */
function failedRead(path: string): SnapshotRead {
  const bytes = Promise.reject(Object.assign(new Error(`EIO: i/o error, read '${path}'`), { code: 'EIO' }));
  bytes.catch(() => undefined);
  return { path, bytes };
}

function takeLock(db: string): HeldLock {
  const lock = acquireLock(db);
  assert.ok(lock.acquired);
  return lock;
}

test('the snapshot is read whole onto a resizable buffer; a missing one is null, a folder is refused as the system says', async () => {
  await withTempDir(async (t) => {
    const content = Buffer.alloc(3 * 1024 * 1024 + 123);
    for (let i = 0; i < content.length; i++) content[i] = (i * 2654435761) >>> 24;
    writeFileSync(t.db, content);
    const bytes = (await readSnapshotFile(t.db))!;
    assert.ok(bytes.equals(content), 'the bytes of the file');
    const buffer = bytes.buffer as ArrayBuffer & { resizable?: boolean; maxByteLength?: number };
    assert.equal(buffer.resizable, true);
    assert.equal(buffer.byteLength, content.length, 'no larger than the file');
    assert.ok(buffer.maxByteLength! >= 2 ** 31, 'room to grow in place');

    writeFileSync(t.db, '');
    assert.equal((await readSnapshotFile(t.db))!.length, 0);
    assert.equal(await readSnapshotFile(join(t.dir, 'missing.db')), null);
    await assert.rejects(readSnapshotFile(t.dir), { code: 'EISDIR' });
  });
});

test('a FIFO is read to its end, and the read begins without waiting for its writer', { timeout: 20_000, skip: process.platform === 'win32' ? 'no mkfifo on Windows' : false }, async () => {
  await withTempDir(async (t) => {
    execFileSync('mkfifo', [t.db]);
    const stamp = join(t.dir, 'writer-came');
    const line = 'written after the read began ';
    const content = line.repeat(5000);
    // The writer comes 2 s later, noting when: a read that waited for it in its open would return only after that.
    const writer = spawn(process.execPath, ['-e', `setTimeout(() => { const fs = require('fs'); fs.writeFileSync(${JSON.stringify(stamp)}, String(Date.now())); fs.writeFileSync(${JSON.stringify(t.db)}, ${JSON.stringify(line)}.repeat(5000)); }, 2000)`]);
    // Listened for now: the writer may exit, and its 'close' go by, before the read's last bytes are taken.
    const writerClosed = once(writer, 'close');
    const reading = readSnapshotAhead(t.db);
    const returned = Date.now();
    const bytes = await reading.bytes;
    await writerClosed;
    assert.ok(returned < Number(readFileSync(stamp, 'utf8')), 'the read began before the writer came');
    assert.equal(bytes!.toString(), content);
  });
});

test('a snapshot read ahead names the file its links lead to', { skip: process.platform === 'win32' ? 'symbolic links need privileges on Windows' : false }, async () => {
  await withTempDir(async (t) => {
    mkdirSync(join(t.dir, 'store'));
    writeFileSync(join(t.dir, 'store', 'real.db'), 'bytes');
    symlinkSync(join('store', 'real.db'), join(t.dir, 'link.db'));
    const ahead = readSnapshotAhead(join(t.dir, 'link.db'));
    assert.equal(ahead.path, join(t.dir, 'store', 'real.db'));
    assert.equal((await ahead.bytes)!.toString(), 'bytes');
  });
});

test('an open under its caller\'s lock uses the snapshot read ahead; one that failed fails the open and frees the lock', async () => {
  await withTempDir(async (t) => {
    const first = await openStore({ path: t.db });
    await put(first, 'kept', 'before');
    await first.close();
    assert.ok(readFileSync(t.db).length > 0);

    let lock = takeLock(t.db);
    const s = await openStore({ path: t.db, lock, snapshot: readSnapshotAhead(t.db) });
    assert.equal(get(s, 'kept'), 'before');
    await put(s, 'kept', 'after');
    await s.close();
    assert.equal(readLockOwner(t.db), null, 'closed: the lock is released');

    lock = takeLock(t.db);
    await assert.rejects(openStore({ path: t.db, lock, snapshot: failedRead(t.db) }), { code: 'EIO' });
    assert.equal(readLockOwner(t.db), null, 'the failed open released the lock it was given');

    const again = await openStore({ path: t.db });
    assert.equal(get(again, 'kept'), 'after', 'nothing was lost');
    await again.close();
  });
});

test('bytes read ahead are not used without the lock, nor for another file than the one opened', async () => {
  await withTempDir(async (t) => {
    const first = await openStore({ path: t.db });
    await put(first, 'kept', 'on disk');
    await first.close();
    const withoutLock = await openStore({ path: t.db, snapshot: failedRead(t.db) });
    assert.equal(get(withoutLock, 'kept'), 'on disk', 'read from the file by the open itself');
    await withoutLock.close();
    const lock = takeLock(t.db);
    const ofAnother = await openStore({ path: t.db, lock, snapshot: failedRead(join(t.dir, 'other.db')) });
    assert.equal(get(ofAnother, 'kept'), 'on disk');
    await ofAnother.close();
  });
});
