// Rule: every write the broker acknowledged survives SIGKILL at any instant, with one call in flight or several (their
// records share syncs, and their writes reach SQLite after their answers), and the reopened database is consistent
// (integrity check, one active token per running step, artifacts with their steps, each handed-out token usable). The
// writer runs as the bundle runs the broker (built like dist/, sql.js patched: checkpoints copy-on-write), which also
// spares each round tsx's start-up.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { decodeTokenUnverified, type TokenPayload } from '../../src/core/broker/tokens.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { bundleLikeDist } from '../../scripts/sqljsPatch.mjs';
import { makeWorkspace, SPEC_EXAMPLE_YAML } from '../helpers/coreHarness.js';

const ROUNDS = 20;
const writer = join(__dirname, '..', 'fixtures', 'durability', 'brokerWriter.ts');

interface Ack { op?: string; execution_id?: string; step?: string; status?: string; ready?: boolean; next?: string; token?: string }

function runAndKill(bundle: string, dbPath: string, workspace: string, killAfterMs: number, inFlight: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, dbPath, workspace, String(inFlight)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acks: Ack[] = [];
    let buffer = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      buffer += d.toString();
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        const ack = JSON.parse(line) as Ack;
        if (ack.ready) continue;
        // Start the kill timer at the round's first acknowledged step, so every round kills mid-work and makes
        // progress however slow the machine is (a timer from start-up could fire before the first step).
        if (ack.op === 'complete' && !acks.some((a) => a.op === 'complete')) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        acks.push(ack);
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited ${code} ${signal}: ${stderr}`));
      else resolve(acks);
    });
  });
}

describe('broker durability under SIGKILL', () => {
  it(`keeps every acknowledged step across ${ROUNDS} random kills`, { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-dur-'));
    const dbPath = join(dir, 'baton.db');
    const workspace = makeWorkspace({ 'spec-example': SPEC_EXAMPLE_YAML });
    const acked: Ack[] = [];
    try {
      const bundle = await bundleLikeDist(writer, mkdtempSync(join(dir, 'bundle-')));
      for (let round = 0; round < ROUNDS; round++) {
        // Every other round runs several workflows at once.
        const inFlight = round % 2 === 0 ? 1 : 2 + Math.floor(Math.random() * 7);
        const got = await runAndKill(bundle, dbPath, workspace, 20 + Math.floor(Math.random() * 400), inFlight);
        acked.push(...got);
        const at = `round ${round} (${inFlight} in flight)`;
        const store = await openStore({ path: dbPath });
        try {
          assert.equal(store.get<{ r: string }>('PRAGMA integrity_check')?.r ?? Object.values(store.get('PRAGMA integrity_check')!)[0], 'ok');
          for (const a of acked) {
            if (a.op === 'create') {
              assert.ok(store.get('SELECT 1 FROM executions WHERE execution_id = ?', [a.execution_id!]), `${at}: execution ${a.execution_id} lost`);
            } else if (a.op === 'complete') {
              const s = store.get<{ status: string }>('SELECT status FROM steps WHERE execution_id = ? AND step_name = ?', [a.execution_id!, a.step!]);
              assert.equal(s?.status, 'completed', `${at}: acknowledged step ${a.step} of ${a.execution_id} is ${s?.status}`);
              assert.ok(store.get('SELECT 1 FROM artifacts WHERE execution_id = ? AND step_name = ?', [a.execution_id!, a.step!]), 'its artifact survived');
              if (a.status === 'task_closed') {
                assert.equal(store.get<{ status: string }>('SELECT status FROM executions WHERE execution_id = ?', [a.execution_id!])?.status, 'completed');
              }
            }
          }
          // Consistency: a running step holds exactly one active token, a finished one none.
          const bad = store.all(
            `SELECT s.execution_id, s.step_name, s.status, (SELECT COUNT(*) FROM step_tokens t WHERE t.execution_id = s.execution_id
               AND t.step_name = s.step_name AND t.state = 'active') AS active FROM steps s
             WHERE (s.status = 'running' AND active != 1) OR (s.status IN ('completed','pending','ready') AND active != 0)`,
          );
          assert.deepEqual(bad, [], `${at}: token ledger consistent`);
          // The last answer of each workflow handed out a step and its token: the token is that step's active one, or
          // a later submission with it reached the disk before the kill (its answer did not get out), completing it.
          const last = new Map(got.filter((a) => a.token).map((a) => [a.execution_id!, a]));
          for (const a of last.values()) {
            const { nonce } = decodeTokenUnverified(a.token!) as TokenPayload;
            const token = store.get<{ step_name: string; state: string }>('SELECT step_name, state FROM step_tokens WHERE nonce = ?', [nonce]);
            const step = store.get<{ status: string }>('SELECT status FROM steps WHERE execution_id = ? AND step_name = ?', [a.execution_id!, a.next!]);
            assert.equal(token?.step_name, a.next, `${at}: the token handed out for ${a.next} of ${a.execution_id} is on disk`);
            assert.ok(
              `${token?.state}/${step?.status}` === 'active/running' || `${token?.state}/${step?.status}` === 'consumed/completed',
              `${at}: the token handed out for ${a.next} of ${a.execution_id} is ${token?.state}, its step ${step?.status}`,
            );
          }
        } finally {
          await store.close();
        }
      }
      assert.ok(acked.filter((a) => a.op === 'complete').length > ROUNDS, 'the writers made progress');
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
