// Rule: kill -9 at any moment loses no acknowledged write: after reopening, every acknowledged
// counter is present, rows have no gaps or duplicates, and SQLite's integrity check passes. Both with sql.js as
// the sources load it (checkpoints write an export() copy) and as the bundle patches it (checkpoints write the
// live in-memory file copy-on-write while the writer goes on).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/sqlJsStore.js';
import { bundleLikeDist } from '../../scripts/sqljsPatch.mjs';
import { tempDir, waitForLine, writerScript } from '../fixtures/store/helpers.js';

const ROUNDS = 20;

// Each writer is a bundle (one without sql.js's patch for the first), so that no round waits for tsx to start.
test(`store survives ${ROUNDS} SIGKILLs at random moments without losing an acknowledged write`, async (ctx) => {
  await survivesKills(ctx, { patchSqlJs: false });
});

test(`the bundle's store (copy-on-write checkpoints) survives ${ROUNDS} SIGKILLs the same way`, async (ctx) => {
  await survivesKills(ctx, { patchSqlJs: true });
});

async function survivesKills(ctx: TestContext, bundling: { patchSqlJs: boolean }): Promise<void> {
  const t = tempDir('baton-durability-');
  try {
    const bundle = await bundleLikeDist(writerScript, mkdtempSync(join(t.dir, 'bundle-')), bundling);
    const startWriter = (db: string): ChildProcess => spawn(process.execPath, [bundle, db], { stdio: ['pipe', 'pipe', 'pipe'] });
    let lastRow = 0;
    let checkpointsSeen = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      const child = startWriter(t.db);
      const acked: number[] = [];
      let pending = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        pending += chunk.toString('utf8');
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const m = /^ack (\d+)$/.exec(line);
          if (m) acked.push(Number(m[1]));
        }
      });
      let stderr = '';
      child.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
      const start = await waitForLine(child, /^start \d+$/);
      assert.equal(Number(start.split(' ')[1]), lastRow + 1, 'the writer continues after the last row');
      // Round 1 kills only after the first acknowledgement, so the test always has acknowledged writes to check (a
      // writer still loading could be killed before any); later rounds also kill during start-up and replay.
      for (const until = Date.now() + 10_000; round === 1 && acked.length === 0; await new Promise((r) => setTimeout(r, 5))) {
        if (Date.now() > until || child.exitCode !== null) assert.fail(`the writer acknowledged nothing within 10 s: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 10 + Math.floor(Math.random() * 290)));
      child.kill('SIGKILL');
      assert.equal(await exited, 'SIGKILL', `writer died on its own: ${stderr}`);

      const store = await openStore({ path: t.db });
      const rows = store.get<{ n: number; lo: number | null; hi: number | null; uniq: number }>(
        'SELECT count(*) AS n, min(n) AS lo, max(n) AS hi, count(DISTINCT n) AS uniq FROM counter_rows',
      )!;
      const maxAcked = acked.length ? Math.max(...acked) : lastRow;
      assert.ok(acked.length > 0 || round > 1, 'the writer acknowledged something before the kill');
      assert.ok((rows.hi ?? 0) >= maxAcked, `round ${round}: acked up to ${maxAcked} but the database ends at ${rows.hi}`);
      assert.equal(rows.n, rows.hi ?? 0, `round ${round}: gaps or duplicates (${JSON.stringify(rows)})`);
      assert.equal(rows.uniq, rows.n);
      if (rows.n > 0) assert.equal(rows.lo, 1);
      for (const n of acked) assert.ok(store.get('SELECT 1 FROM counter_rows WHERE n = ?', [n]), `acked row ${n} missing`);
      assert.deepEqual(store.all('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
      assert.deepEqual(readdirSync(t.dir).filter((f) => f.includes('.tmp')), [], 'temp files of a killed checkpoint are cleaned up');
      checkpointsSeen += Number(store.get<{ value: string }>("SELECT value FROM meta WHERE key = 'journal_seq'")?.value ?? 0) > 0 ? 1 : 0;
      ctx.diagnostic(`round ${round}: ${acked.length} acks, rows 1..${rows.hi}, journal seq ${store.stats().lastSeq}`);
      lastRow = rows.hi ?? 0;
      store.dispose(); // leave the journal as it is: the next round replays it
    }
    assert.ok(checkpointsSeen > 0, 'checkpoints happened during the test');
  } finally {
    t.cleanup();
  }
}

