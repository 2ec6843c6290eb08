// sql.js for the tests of scripts/sqljsPatch.mjs: as installed, and as the build patches it into the bundle.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { patchSqlJs } from '../../scripts/sqljsPatch.mjs';

const require = createRequire(__filename);
/** The installed sql.js's dist/sql-wasm.js. */
export const sqlJsFile = require.resolve('sql.js');
const wasm = join(dirname(sqlJsFile), 'sql-wasm.wasm');

/** sql.js loaded from `file` (a copy of dist/sql-wasm.js), on the installed wasm. */
export function loadSqlJs(file = sqlJsFile): Promise<SqlJsStatic> {
  const init = require(file) as (config: { locateFile: () => string }) => Promise<SqlJsStatic>;
  return init({ locateFile: () => wasm });
}

let patched: Promise<SqlJsStatic> | undefined;

/** sql.js as the bundle has it (patched), loaded once per process. */
export function patchedSqlJs(): Promise<SqlJsStatic> {
  if (!patched) {
    const dir = mkdtempSync(join(tmpdir(), 'baton-sqljs-'));
    const file = join(dir, 'sql-wasm.js');
    try {
      writeFileSync(file, patchSqlJs(readFileSync(sqlJsFile, 'utf8')).code);
      patched = loadSqlJs(file); // the module is read when required: its file can go at once
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return patched;
}
