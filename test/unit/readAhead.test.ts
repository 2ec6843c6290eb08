// Rule: after an answer that hands out a step, on the turn after it and only while no other call is under way, the
// broker reads what submitting that step reads first (the execution, the token, the step, the steps' states, the next
// step and its artifacts' heads). A call takes each of those rows once, and only while the store has taken no write
// since (Store.changes: every write statement, run or deferred, and every undo; not the call log's): a change made in
// between, by a person or another call, is read afresh.
import assert from 'node:assert/strict';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, it } from 'node:test';
import { ExecutionRepo } from '../../src/core/broker/executionRepo.js';
import { nodeCrypto } from '../../src/host/nodePorts.js';
import { openStore, type SqlJsStore } from '../../src/store/sqlJsStore.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { makeBaton, okStep, output } from '../helpers/coreHarness.js';

/** Counts the store's reads by SQL, from now on. */
function countReads(store: SqlJsStore): Map<string, number> {
  const reads = new Map<string, number>();
  const count = (sql: string) => reads.set(sql, (reads.get(sql) ?? 0) + 1);
  const { get, all } = store;
  store.get = function (this: SqlJsStore, sql, params) {
    count(sql);
    return get.call(this, sql, params);
  } as SqlJsStore['get'];
  store.all = function (this: SqlJsStore, sql, params) {
    count(sql);
    return all.call(this, sql, params);
  } as SqlJsStore['all'];
  return reads;
}

/** An `ok` answer's step, token and execution. */
function handedOut(r: NextStepResponse): { step: string; token: string; execution_id: string } {
  return { ...okStep(r), execution_id: r.execution_id! };
}

const TOKEN_READ = 'SELECT * FROM step_tokens WHERE nonce = ?';
const STEP_READ = 'SELECT * FROM steps WHERE execution_id = ? AND step_name = ?';
const EXECUTION_READ = 'SELECT * FROM executions WHERE execution_id = ?';

describe('store: changes()', () => {
  it('moves with each write statement, run or deferred, and each undo; reads and unwatched writes leave it', async () => {
    const store = await openStore({ path: null });
    await store.transaction(() => store.run('CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)'));
    let at = store.changes();
    store.get('SELECT * FROM t');
    store.all('SELECT * FROM t');
    assert.equal(store.changes(), at, 'a read');

    await store.transaction(() => store.run("INSERT INTO t VALUES ('a', '1')"));
    assert.equal(store.changes(), at + 1, 'a write run at once');
    at = store.changes();
    await store.transaction(() => {
      store.deferWrites!();
      assert.equal(store.run("UPDATE t SET v = '2' WHERE k = 'a'"), -1);
    });
    assert.equal(store.changes(), at + 1, 'a deferred write counts when it is taken, not when it runs');
    at = store.changes();

    await assert.rejects(store.transaction(() => {
      store.run("INSERT INTO t VALUES ('b', '1')");
      throw new Error('changed my mind');
    }));
    assert.equal(store.changes(), at + 2, 'the write, and its undo');
    at = store.changes();

    await store.transaction(() => store.run("INSERT INTO t VALUES ('c', '1')"), { background: true, unwatched: true });
    assert.equal(store.changes(), at, 'an unwatched transaction (the call log)');
    await store.transaction(() => store.run("INSERT INTO t VALUES ('d', '1')"));
    assert.equal(store.changes(), at + 1, 'and the next transaction counts again');
    await store.close();
  });
});

describe('repository: rows read ahead', () => {
  it('gives a row read ahead once, while the store has taken no write; a write in between is read afresh', async () => {
    const { baton, store } = await makeBaton();
    const first = handedOut(await baton.nextStep({ template_name: 'bug-fix' }));
    const id = first.execution_id;
    await turn();
    const repo = new ExecutionRepo(store, (t) => nodeCrypto.sha256(t));
    let ahead: ReturnType<ExecutionRepo['step']>;
    repo.speculate(() => {
      ahead = repo.step(id, first.step);
    });
    assert.ok(ahead!);
    assert.equal(repo.step(id, first.step), ahead!, 'taken from what was read ahead');
    const again = repo.step(id, first.step);
    assert.notEqual(again, ahead!, 'once only: the taker may change it');
    assert.deepEqual(again, ahead!);

    repo.speculate(() => {
      ahead = repo.step(id, first.step);
      repo.execution(id);
    });
    await store.transaction(() => store.run("UPDATE steps SET claimed_by = 'someone else' WHERE execution_id = ? AND step_name = ?", [id, first.step]));
    const fresh = repo.step(id, first.step)!;
    assert.notEqual(fresh, ahead!);
    assert.equal(fresh.claimed_by, 'someone else', 'the write is seen');
    assert.notEqual(repo.execution(id), undefined);
    await store.close();
  });

  it('keeps what was read ahead past an unwatched write, and drops it at an undo', async () => {
    const { baton, store } = await makeBaton();
    const first = handedOut(await baton.nextStep({ template_name: 'bug-fix' }));
    await turn();
    const repo = new ExecutionRepo(store, (t) => nodeCrypto.sha256(t));
    let ahead: ReturnType<ExecutionRepo['execution']>;
    repo.speculate(() => {
      ahead = repo.execution(first.execution_id);
    });
    // The call log, written in a transaction of its own (unwatched).
    baton.logCall({ call_type: 'tool', name: 'workflow_next_step', request: {}, response: { status: 'ok' }, duration_ms: 1, success: true });
    await baton.flushCalls();
    await turn();
    assert.equal(baton.recentCalls(5).length, 1, 'the call was logged');
    assert.equal(repo.execution(first.execution_id), ahead!);

    repo.speculate(() => {
      ahead = repo.execution(first.execution_id);
    });
    await assert.rejects(store.transaction(() => {
      throw new Error('nothing written, yet a transaction that failed');
    }));
    await assert.rejects(store.transaction(() => {
      store.run("UPDATE executions SET progress = 99 WHERE execution_id = ?", [first.execution_id]);
      throw new Error('undone');
    }));
    const read = repo.execution(first.execution_id)!;
    assert.notEqual(read, ahead!);
    assert.notEqual(read.progress, 99);
    await store.close();
  });
});

describe('broker: reading ahead of the next submission', () => {
  it('reads, on the turn after an answer, the rows its submission reads first; the call then reads none of them', async () => {
    const { baton, store } = await makeBaton();
    const first = handedOut(await baton.nextStep({ template_name: 'bug-fix', task_description: 'Login fails' }));
    await turn();
    const reads = countReads(store);
    const res = await baton.nextStep({ step_token: first.token, model_output_so_far: output('found it') });
    const second = okStep(res);
    assert.equal(second.step, 'implement-fix');
    assert.equal(reads.get(TOKEN_READ), undefined, 'the token');
    assert.equal(reads.get(STEP_READ), undefined, 'the step submitted and the step handed out');
    assert.equal(reads.get(EXECUTION_READ), undefined, 'the execution');
    // The answer is the one fresh reads give: the dependency artifact just submitted is inline.
    const context = res.context!;
    assert.deepEqual(context.dependency_artifacts.map((a) => a.title), ['found it artifact']);

    // Without the turn in between (the agent called at once), the call reads for itself, and goes on the same way.
    reads.clear();
    const third = okStep(await baton.nextStep({ step_token: second.token, model_output_so_far: output('fixed it') }));
    assert.equal(third.step, 'write-tests');
    assert.equal(reads.get(TOKEN_READ), 1);
    await store.close();
  });

  it('reads afresh what a person changed after the answer: a released step, a cancelled run', async () => {
    const { baton, store } = await makeBaton();
    const first = handedOut(await baton.nextStep({ template_name: 'bug-fix' }));
    await turn();
    await baton.release(first.execution_id, first.step, 'a person');
    const refused = await baton.nextStep({ step_token: first.token, model_output_so_far: output('found it') });
    assert.equal(refused.status, 'error');
    assert.equal(refused.error?.code, 'token_out_of_order');
    assert.match(refused.error!.message, /released/);

    const other = handedOut(await baton.nextStep({ template_name: 'bug-fix' }));
    await turn();
    await baton.cancel(other.execution_id);
    const closed = await baton.nextStep({ step_token: other.token, model_output_so_far: output('found it') });
    assert.equal(closed.status, 'error');
    assert.match(closed.error!.message, /cancelled|failed/);
    const run = store.get<{ status: string }>('SELECT status FROM executions WHERE execution_id = ?', [other.execution_id]);
    assert.equal(run?.status, 'failed', 'nothing moved');
    await store.close();
  });

  it('reads nothing ahead, and throws nothing, when the store is closed right after the answer', async () => {
    const { baton, store } = await makeBaton();
    const uncaught: unknown[] = [];
    const onUncaught = (ex: unknown) => uncaught.push(ex);
    process.on('uncaughtException', onUncaught);
    try {
      okStep(await baton.nextStep({ template_name: 'bug-fix' }));
      store.dispose(); // before the turn on which the read ahead would run
      await turn();
      await turn();
    } finally {
      process.off('uncaughtException', onUncaught);
    }
    assert.deepEqual(uncaught, []);
    assert.throws(() => store.get('SELECT 1'), /store is closed/, 'the reads ahead would have failed');
  });

  it('reads nothing ahead for calls that overlap, and reads ahead again once calls come one at a time', async () => {
    const { baton, store } = await makeBaton();
    const [a, b] = await Promise.all([baton.nextStep({ template_name: 'bug-fix' }), baton.nextStep({ template_name: 'bug-fix' })]);
    await turn();
    const reads = countReads(store);
    okStep(await baton.nextStep({ step_token: okStep(a).token, model_output_so_far: output('a') }));
    assert.equal(reads.get(TOKEN_READ), 1, 'the first of two creates under way together');
    reads.clear();
    okStep(await baton.nextStep({ step_token: okStep(b).token, model_output_so_far: output('b') }));
    assert.equal(reads.get(TOKEN_READ), 1, 'nor the second: a call came in between');

    // A refused call between (it hands out nothing, so nothing is read ahead of it) does not stop the next one's.
    const bad = await baton.nextStep({ step_token: 'not.a-token' });
    assert.equal(bad.status, 'error');
    await turn();
    const c = okStep(await baton.nextStep({ template_name: 'bug-fix' }));
    await turn();
    reads.clear();
    okStep(await baton.nextStep({ step_token: c.token, model_output_so_far: output('c') }));
    assert.equal(reads.get(TOKEN_READ), undefined, 'and read ahead again once calls come one at a time');
    await store.close();
  });
});
