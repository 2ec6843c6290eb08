// Rule: a finding's or a memory entry's words after a NUL (U+0000) are found by search, as are the words before it:
// on a new database, on one that held such rows before migration 014, and after a reopen replays the journal. An
// update or a delete leaves no word of the old text behind, and the texts read back whole. The indexes read a text as
// the tokenizer would read it with its NULs as spaces, in plain SQL: any SQLite (an older Baton's open included)
// reads, searches and checks the file.
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { defaultWasmPath, loadSqlJs } from '../../src/store/loading.js';
import { loadMigrations } from '../../src/store/migrate.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import { makeBaton } from '../helpers/coreHarness.js';

const realMigrations = join(__dirname, '..', '..', 'src', 'store', 'migrations');
const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Docids the index matches for `query` in `table` (findings_fts or memory_fts). */
function hits(store: SqlJsStore, table: string, query: string): number[] {
  return store.all<{ docid: number }>(`SELECT docid FROM ${table} WHERE ${table} MATCH ? ORDER BY docid`, [query]).map((r) => r.docid);
}

/** FTS4's own check that each index holds exactly the words of the texts it reads back; throws if not. */
function assertIndexWhole(store: SqlJsStore): void {
  store.database.exec("INSERT INTO findings_fts(findings_fts) VALUES ('integrity-check')");
  store.database.exec("INSERT INTO memory_fts(memory_fts) VALUES ('integrity-check')");
}

const T = '2026-12-01T00:00:00.000Z';

function insertFinding(store: SqlJsStore, id: string, title: string, description: string): void {
  store.run(
    "INSERT INTO findings (finding_id, project_id, scope, severity, category, title, description, tags, created_at) VALUES (?, NULL, 'project', 'low', 'notes', ?, ?, '[]', ?)",
    [id, title, description, T],
  );
}

function insertMemory(store: SqlJsStore, id: string, key: string, value: string): void {
  store.run(
    "INSERT INTO memory_entries (entry_id, scope_key, key, value, category, size_bytes, created_at, updated_at) VALUES (?, '', ?, ?, 'notes', ?, ?, ?)",
    [id, key, value, value.length, T, T],
  );
}

describe('full-text search past a NUL', () => {
  it('gives the tokenizer the words of a text with its NULs as spaces, whatever else the text holds', async () => {
    const { store } = await makeBaton();
    /** The tokenizer's words of `text`, with their positions. */
    const tokens = (text: string) =>
      store.all<{ token: string; position: number }>('SELECT token, position FROM baton_tok WHERE input = ? ORDER BY position', [text]).map((r) => `${r.position}:${r.token}`);
    // The view's own expression for a column, read from the schema, applied to a bound text.
    const view = store.get<{ sql: string }>("SELECT sql FROM sqlite_schema WHERE name = 'memory_fts_text'")!.sql;
    const expr = /AS rowid,\s*(CASE WHEN .*? END) AS key,/s.exec(view)![1]!.replaceAll('key', '?');
    const params = expr.split('?').length - 1;
    await store.transaction(() => store.run("CREATE VIRTUAL TABLE temp.baton_tok USING fts3tokenize('unicode61')"));
    const mapped = (text: string) =>
      store.all<{ token: string; position: number }>(
        `SELECT token, position FROM baton_tok WHERE input = (${expr}) ORDER BY position`, Array(params).fill(text),
      ).map((r) => `${r.position}:${r.token}`);
    // Every character json_quote escapes, a NUL among them, around words and after backslashes and quotes.
    const specials = ['\0', '\\', '"', '\b', '\f', '\n', '\r', '\t', '\u0001', '\u001f', '\u007f', '\\u0000', '\\n', 'é', '\u{1f600}', ' '];
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 16807) % 2147483647) % n);
    const samples = ['a\0b', '\0lead', 'trail\0', 'x\0\0y', 'kept\0"quoted\\path\nnext\0\u0001ctl'];
    for (let i = 0; i < 300; i++) {
      samples.push(Array.from({ length: 1 + rand(12) }, () => (rand(2) ? specials[rand(specials.length)]! : ['alpha', 'b2', 'Zeta', 'u0000', 'n'][rand(5)]!)).join('') + '\0');
    }
    for (const text of samples) {
      assert.deepEqual(mapped(text), tokens(text.replaceAll('\0', ' ')), JSON.stringify(text));
    }
    // A text without a NUL is given as it is.
    assert.deepEqual(mapped('plain "text" with\nlines'), tokens('plain "text" with\nlines'));
  });

  it('finds a finding and a memory entry by the words after a NUL, on a new database', async () => {
    const { baton, store } = await makeBaton();
    const sys = { name: 's', description: '', agents: [{ id: 'a', role: 'custom' as const, runner: 'command' as const, command: ['x'] }], workflow: [] };
    const runId = await baton.pipelines.start(sys, { input: 'x', cwd: '/tmp' });
    const scope = { runId, agent: 'scout' };
    await baton.memory.store(scope, { key: 'log', value: 'before\0zebra after\0\0walrus', category: 'notes' });
    assert.deepEqual(baton.memory.search(scope, { query: 'zebra walrus before' }).entries.map((e) => e.key), ['log']);
    assert.equal(baton.memory.retrieve(scope, 'log').value, 'before\0zebra after\0\0walrus', 'the entry reads back whole');
    // The key replaced: the old words are gone from the index, the new ones in it.
    await baton.memory.store(scope, { key: 'log', value: 'now\0okapi', category: 'notes' });
    assert.equal(baton.memory.search(scope, { query: 'zebra' }).total, 0);
    assert.equal(baton.memory.search(scope, { query: 'okapi' }).total, 1);

    const finding = await baton.lifecycle.storeFinding({ executionId: runId, severity: 'info', category: 'notes', title: 'cut\0title', description: 'binary output\0then the marmot' });
    assert.deepEqual(baton.lifecycle.queryFindings({ searchText: 'marmot' }).findings.map((f) => f.id), [finding.id]);
    assert.deepEqual(baton.lifecycle.queryFindings({ searchText: 'title' }).findings.map((f) => f.id), [finding.id]);
    assert.equal(baton.lifecycle.queryFindings({ searchText: 'marmot' }).findings[0]!.description, 'binary output\0then the marmot');
    assertIndexWhole(store);
  });

  it('indexes the rows a v13 database held, and keeps the index whole through updates, deletes and a reopen', async () => {
    const dir = tempDir('baton-fts-nul-');
    const v13 = tempDir('baton-v13-');
    const db = join(dir, 'baton.db');
    for (const m of loadMigrations(realMigrations).filter((x) => x.version <= 13)) copyFileSync(join(realMigrations, m.name), join(v13, m.name));
    const old = await openStore({ path: db, migrationsDir: v13, durability: 'write' });
    await old.transaction(() => {
      insertFinding(old, 'f-old', 'old', 'kept\0hidden heron');
      insertMemory(old, 'm-old', 'k-old', 'seen\0unseen ibis');
    });
    assert.deepEqual(hits(old, 'findings_fts', 'heron'), [], 'v13 did not index past the NUL');
    assert.deepEqual(hits(old, 'memory_fts', 'ibis'), []);
    await old.close();

    const store = await openStore({ path: db, durability: 'write' });
    assert.equal(store.get<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")!.value, String(loadMigrations(realMigrations).at(-1)!.version));
    const fOld = store.get<{ id: number }>("SELECT id FROM findings WHERE finding_id = 'f-old'")!.id;
    const mOld = store.get<{ id: number }>("SELECT id FROM memory_entries WHERE entry_id = 'm-old'")!.id;
    assert.deepEqual(hits(store, 'findings_fts', 'heron'), [fOld], 'the old row is indexed whole');
    assert.deepEqual(hits(store, 'findings_fts', 'kept'), [fOld]);
    assert.deepEqual(hits(store, 'memory_fts', 'ibis'), [mOld]);
    assert.equal(store.get<{ d: string }>('SELECT description AS d FROM findings WHERE id = ?', [fOld])!.d, 'kept\0hidden heron', 'the text is kept as written');
    const snippet = store.get<{ s: string }>("SELECT snippet(findings_fts) AS s FROM findings_fts WHERE findings_fts MATCH 'heron'")!.s;
    assert.equal(snippet, 'kept hidden <b>heron</b>');
    assertIndexWhole(store);

    await store.transaction(() => {
      insertFinding(store, 'f-new', 'new', 'first\0gannet');
      insertMemory(store, 'm-new', 'k-new', 'first\0puffin');
      store.run('UPDATE findings SET description = ? WHERE id = ?', ['changed\0tern', fOld]);
      store.run('UPDATE memory_entries SET value = ? WHERE id = ?', ['changed\0skua', mOld]);
    });
    assert.deepEqual(hits(store, 'findings_fts', 'heron OR hidden'), [], 'an update removes every old word, after the NUL too');
    assert.deepEqual(hits(store, 'findings_fts', 'tern'), [fOld]);
    assert.deepEqual(hits(store, 'memory_fts', 'ibis OR unseen'), []);
    assert.deepEqual(hits(store, 'memory_fts', 'skua'), [mOld]);
    assertIndexWhole(store);
    // Gone without a checkpoint, as in a crash: the writes since the migration's checkpoint are only in the journal,
    // and the reopen replays them through the triggers.
    assert.ok(store.stats().journalRecords > 0);
    store.dispose();

    const again = await openStore({ path: db, durability: 'write' });
    try {
      const fNew = again.get<{ id: number }>("SELECT id FROM findings WHERE finding_id = 'f-new'")!.id;
      assert.deepEqual(hits(again, 'findings_fts', 'gannet'), [fNew]);
      assert.equal(hits(again, 'memory_fts', 'puffin').length, 1);
      assert.deepEqual(hits(again, 'findings_fts', 'tern'), [fOld]);
      await again.transaction(() => {
        again.run('DELETE FROM findings WHERE id = ?', [fNew]);
        again.run("DELETE FROM memory_entries WHERE entry_id = 'm-new'");
      });
      assert.deepEqual(hits(again, 'findings_fts', 'gannet OR first'), [], 'a delete removes every word');
      assert.deepEqual(hits(again, 'memory_fts', 'puffin OR first'), []);
      assertIndexWhole(again);
      await again.checkpoint();
    } finally {
      await again.close();
    }
    // Another SQLite, as an older Baton opens the file: the whole file's check passes (each index against its view),
    // so an older Baton gets to the schema version and says it is newer, never that the file is damaged.
    const SQL = await loadSqlJs(defaultWasmPath());
    const raw = new SQL.Database(readFileSync(db));
    try {
      assert.deepEqual(raw.exec('PRAGMA quick_check(5)')[0]!.values, [['ok']]);
      assert.deepEqual(raw.exec('PRAGMA integrity_check')[0]!.values, [['ok']]);
      assert.deepEqual(raw.exec("SELECT docid FROM findings_fts WHERE findings_fts MATCH 'tern'")[0]!.values, [[fOld]]);
      assert.deepEqual(raw.exec("SELECT value FROM memory_entries WHERE entry_id = 'm-old'")[0]!.values, [['changed\0skua']]);
      raw.run('INSERT INTO findings (finding_id, scope, severity, category, title, description, tags, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', ['f-raw', 'project', 'low', 'notes', 'raw', 'from\0elsewhere', '[]', T]);
      assert.equal(raw.exec("SELECT count(*) FROM findings_fts WHERE findings_fts MATCH 'elsewhere'")[0]!.values[0]![0], 1);
    } finally {
      raw.close();
    }
  });
});
