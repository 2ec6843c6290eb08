// Rule: a database's folder is made one level at a time: missing parents are made, an existing folder is left alone,
// a part of the path that is a file is ENOTDIR naming that part, and a folder the system refuses (/proc) is its
// ENOENT at once (Node's own recursive mkdir loops for ever there).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeDirs } from '../../src/store/makeDirs.js';

test('makes missing parents, leaves an existing folder, and names a part of the path that is a file', () => {
  const root = mkdtempSync(join(tmpdir(), 'baton-makedirs-'));
  try {
    const deep = join(root, 'a', 'b', 'c');
    makeDirs(deep);
    assert.ok(statSync(deep).isDirectory());
    makeDirs(deep);
    makeDirs(root);
    const file = join(root, 'a', 'f.db');
    writeFileSync(file, 'x');
    assert.throws(() => makeDirs(join(file, 'sub')), (ex: NodeJS.ErrnoException) => ex.code === 'ENOTDIR' && ex.path === file && ex.syscall === 'mkdir');
    assert.equal(existsSync(join(file, 'sub')), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a folder the system refuses to make is its error at once, not a loop (Linux: /proc)', () => {
  if (!existsSync('/proc/self')) return;
  assert.throws(() => makeDirs('/proc/baton-nowhere/deeper'), (ex: NodeJS.ErrnoException) => ex.code === 'ENOENT' && ex.path === '/proc/baton-nowhere');
});
