// Rule: the repository's per-execution cache of step shapes never hides a step: states come in template
// order, a step added behind the cache's back is picked up with its dependencies, and the shapes cached as a new
// execution's steps are inserted are what a read would give. Step definitions and contracts are stored once per
// distinct text and read back whole; rows from before (inline) read as they did.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExecutionRepo } from '../../src/core/broker/executionRepo.js';
import type { Row, SqlParams, Store } from '../../src/core/ports.js';
import type { StepDefinition } from '../../src/core/types.js';
import { nodeCrypto } from '../../src/host/nodePorts.js';
import { openStore } from '../../src/store/sqlJsStore.js';

const sha256 = (text: string) => nodeCrypto.sha256(text);

/** Execution e1 with one ready step, fix. */
function insertStepE1Fix(store: Store): Promise<void> {
  return store.transaction(() => {
    store.run("INSERT INTO executions (execution_id, status, started_at, updated_at) VALUES ('e1', 'running', 'now', 'now')");
    store.run("INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status) VALUES ('e1', 'fix', 'implementer', 0, '[]', 'ready')");
  });
}

/** `store` counting its lookups of step texts; with or without its count of rollbacks. */
function countingTextLookups(store: Store & { rollbacks(): number }, withRollbacks: boolean): { store: Store; lookups: () => number } {
  let lookups = 0;
  const counting: Store = {
    get: (sql: string, params?: SqlParams) => (/FROM step_texts/.test(sql) && lookups++, store.get(sql, params)),
    all: (sql: string, params?: SqlParams) => store.all(sql, params),
    run: (sql: string, params?: SqlParams) => store.run(sql, params),
    transaction: <T>(fn: () => T) => store.transaction(fn),
    ...(withRollbacks ? { rollbacks: () => store.rollbacks() } : {}),
  };
  return { store: counting, lookups: () => lookups };
}

test('stepStates: template order, and a step added after caching is seen with its dependencies', async () => {
  const store = await openStore({ path: null });
  try {
    const repo = new ExecutionRepo(store, sha256);
    const step = (name: string, position: number, deps: string[]) =>
      store.run(
        "INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status) VALUES ('e1', ?, 'implementer', ?, ?, 'pending')",
        [name, position, JSON.stringify(deps)],
      );
    await store.transaction(() => {
      store.run("INSERT INTO executions (execution_id, status, started_at, updated_at) VALUES ('e1', 'running', 'now', 'now')");
      // Inserted out of order, and named so that name order differs from template order.
      step('b-review', 2, ['a-fix']);
      step('z-analyze', 0, []);
      step('a-fix', 1, ['z-analyze']);
    });
    assert.deepEqual(repo.stepStates('e1').map((s) => s.step_name), ['z-analyze', 'a-fix', 'b-review']);
    await store.transaction(() => step('c-ship', 3, ['b-review']));
    const states = repo.stepStates('e1');
    assert.deepEqual(states.map((s) => s.step_name), ['z-analyze', 'a-fix', 'b-review', 'c-ship']);
    assert.deepEqual(states.at(-1)!.dependencies, ['b-review']);
  } finally {
    await store.close();
  }
});

test('a step inserted through the repository is cached as a read would give it, as a copy of its definition', async () => {
  const store = await openStore({ path: null });
  try {
    const repo = new ExecutionRepo(store, sha256);
    const def = (name: string, dependencies: string[], extra: Partial<StepDefinition> = {}): StepDefinition =>
      ({ name, agent: 'implementer', description: `do ${name}`, dependencies, ...extra }) as StepDefinition;
    const defs = [def('analyze', [], { path_patterns: ['src/**'], tags: ['triage'] }), def('fix', ['analyze']), def('review', ['fix'], { tags: ['review'] })];
    const reads: string[] = [];
    const counting: Store = {
      all: <T = Row>(sql: string, params?: SqlParams) => (reads.push(sql), store.all<T>(sql, params)),
      get: <T = Row>(sql: string, params?: SqlParams) => store.get<T>(sql, params),
      run: (sql, params) => store.run(sql, params),
      transaction: (fn, options) => store.transaction(fn, options),
    };
    const primed = new ExecutionRepo(counting, sha256);
    await store.transaction(() => {
      store.run("INSERT INTO executions (execution_id, status, started_at, updated_at) VALUES ('e1', 'running', 'now', 'now')");
      defs.forEach((d, position) => primed.insertStep({ execution_id: 'e1', def: d, position, status: d.dependencies.length ? 'pending' : 'ready' }));
    });
    defs[0]!.tags!.push('changed later'); // the template's own arrays are not the cache's
    const fromCache = primed.stepStates('e1');
    assert.deepEqual(reads.filter((q) => /metadata/.test(q)), [], 'no read of the step definitions back');
    assert.deepEqual(fromCache, repo.stepStates('e1'), 'the same states a repository without the cache reads');
    assert.deepEqual(fromCache[0], { step_name: 'analyze', status: 'ready', agent_name: 'implementer', dependencies: [], path_patterns: ['src/**'], tags: ['triage'] });
  } finally {
    await store.close();
  }
});

test("the broker's reads of whole rows and its status counts run without a sorter (ORDER BY or GROUP BY would copy every row into one)", async () => {
  const store = await openStore({ path: null });
  try {
    const issued: string[] = [];
    const recording = {
      all: (sql: string, params?: unknown[]) => (issued.push(sql), store.all(sql, params as never)),
      get: (sql: string, params?: unknown[]) => (issued.push(sql), store.get(sql, params as never)),
      run: (sql: string, params?: unknown[]) => store.run(sql, params as never),
      transaction: <T>(fn: () => T) => store.transaction(fn),
    };
    const repo = new ExecutionRepo(recording as never, sha256);
    repo.stepStates('e1');
    repo.steps('e1');
    repo.stepsWithStatus('e1', ['running', 'completed']);
    repo.artifactHeads('e1', ['a', 'b'], 100);
    repo.artifactsOf('e1');
    repo.artifactsOf('e1', ['a']);
    repo.artifactLabels('e1');
    repo.statusCounts('e1');
    assert.equal(issued.length, 9);
    for (const sql of issued) {
      const params = Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 'x');
      const opcodes = store.all<{ opcode: string }>(`EXPLAIN ${sql}`, params).map((r) => r.opcode);
      assert.ok(!opcodes.includes('SorterOpen'), `a sorter in: ${sql}`);
    }
  } finally {
    await store.close();
  }
});

test("an execution's status written unchanged is left out of the UPDATE, which then rewrites none of its indexes", async () => {
  const store = await openStore({ path: null });
  try {
    const written: Array<{ sql: string; params: SqlParams | undefined }> = [];
    const recording = { ...store, run: (sql: string, params?: SqlParams) => (written.push({ sql, params }), store.run(sql, params)) };
    const repo = new ExecutionRepo(recording as never, sha256);
    await insertStepE1Fix(store);
    const indexWrites = ({ sql, params }: (typeof written)[number]) =>
      store.all<{ opcode: string }>(`EXPLAIN ${sql}`, params).filter((r) => r.opcode === 'IdxInsert' || r.opcode === 'IdxDelete').length;
    await store.transaction(() => repo.updateExecution('e1', { status: 'running', progress: 50, current_step: 'fix' }, 'later', 'running'));
    assert.doesNotMatch(written[0]!.sql, /status/);
    assert.equal(indexWrites(written[0]!), 0, 'progress and current step are in no index');
    await store.transaction(() => repo.updateExecution('e1', { status: 'awaiting_approval', progress: 60 }, 'later', 'running'));
    assert.match(written[1]!.sql, /status = \?/);
    assert.ok(indexWrites(written[1]!) > 0, 'a status that changes moves the row in the status indexes');
    assert.deepEqual(
      store.get('SELECT status, progress, current_step, updated_at FROM executions WHERE execution_id = ?', ['e1']),
      { status: 'awaiting_approval', progress: 60, current_step: 'fix', updated_at: 'later' },
    );
  } finally {
    await store.close();
  }
});

test('executionKind: read once per execution (a kind never changes); a missing execution is not remembered', async () => {
  const store = await openStore({ path: null });
  try {
    let reads = 0;
    const counting = { ...store, get: (sql: string, params?: unknown[]) => (reads++, store.get(sql, params as never)) };
    const repo = new ExecutionRepo(counting as never, sha256);
    assert.equal(repo.executionKind('e1'), undefined);
    await store.transaction(() => store.run("INSERT INTO executions (execution_id, kind, status, started_at, updated_at) VALUES ('e1', 'spec', 'running', 'now', 'now')"));
    assert.equal(repo.executionKind('e1'), 'spec', 'an execution created after a miss is found');
    assert.equal(repo.executionKind('e1'), 'spec');
    assert.equal(reads, 2, 'the second lookup of e1 is answered from the cache');
  } finally {
    await store.close();
  }
});

test("executionTask and stepAgent: what execution() and step() read, read once (neither changes), forgotten with a pruned execution", async () => {
  const store = await openStore({ path: null });
  try {
    let reads = 0;
    const counting = { ...store, get: (sql: string, params?: unknown[]) => (reads++, store.get(sql, params as never)) };
    const repo = new ExecutionRepo(counting as never, sha256);
    assert.equal(repo.executionTask('e1'), undefined);
    assert.equal(repo.stepAgent('e1', 'fix'), undefined);
    await store.transaction(() => {
      store.run("INSERT INTO executions (execution_id, task_id, status, started_at, updated_at) VALUES ('e1', 't1', 'running', 'now', 'now')");
      store.run("INSERT INTO executions (execution_id, status, started_at, updated_at) VALUES ('e2', 'running', 'now', 'now')");
      store.run("INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status) VALUES ('e1', 'fix', 'implementer', 0, '[]', 'ready')");
    });
    reads = 0;
    for (let i = 0; i < 3; i++) {
      assert.equal(repo.executionTask('e1'), repo.execution('e1')!.task_id);
      assert.equal(repo.executionTask('e2'), null, 'an execution without a task');
      assert.equal(repo.stepAgent('e1', 'fix'), repo.step('e1', 'fix')!.agent_name);
    }
    assert.equal(reads, 3 * 2 + 3, 'executionTask and stepAgent read once each; execution() and step() every time');
    assert.equal(repo.executionKind('e1'), 'template', 'the kind comes with the task (the column default)');
    await store.transaction(() => {
      store.run("DELETE FROM steps WHERE execution_id = 'e1'");
      store.run("DELETE FROM executions WHERE execution_id = 'e1'");
    });
    repo.forgetExecutions(['e1']);
    assert.equal(repo.executionTask('e1'), undefined);
    assert.equal(repo.stepAgent('e1', 'fix'), undefined);
    assert.equal(repo.executionKind('e1'), undefined);
  } finally {
    await store.close();
  }
});

test('definitions and contracts are stored once per distinct text, read back whole and frozen; older inline rows read as before', async () => {
  const store = await openStore({ path: null });
  try {
    const repo = new ExecutionRepo(store, sha256);
    const def = { name: 'fix', agent: 'implementer', description: 'do fix', dependencies: [], allowed_actions: ['edit'], required_output_format: 'md', human_gate: false } as unknown as StepDefinition;
    const contract = { step_name: 'fix', allowed_actions: ['edit'], forbidden_actions: ['push'], required_output_format: 'md', human_gate_required: false };
    await store.transaction(() => {
      for (const id of ['e1', 'e2', 'e3']) {
        store.run("INSERT INTO executions (execution_id, status, started_at, updated_at) VALUES (?, 'running', 'now', 'now')", [id]);
        repo.insertStep({ execution_id: id, def, position: 0, status: 'ready' });
        repo.updateStep(id, 'fix', { status: 'running', contract });
      }
    });
    assert.equal(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM step_texts')!.n, 2, 'one definition and one contract for three runs');
    const row = store.get<{ metadata: string; contract: string | null; definition_ref: string; contract_ref: string }>("SELECT metadata, contract, definition_ref, contract_ref FROM steps WHERE execution_id = 'e2'")!;
    assert.deepEqual([row.metadata, row.contract], ['{}', null], 'nothing of either inline');
    assert.match(row.definition_ref, /^[0-9a-f]{32}$/);
    const step = repo.step('e3', 'fix')!;
    assert.deepEqual(step.metadata.definition, def);
    assert.deepEqual(step.contract, contract);
    assert.ok(!('definition_ref' in step) && !('contract_ref' in step), 'the refs stay inside the repository');
    assert.ok(Object.isFrozen(step.contract) && Object.isFrozen(step.metadata.definition!.allowed_actions), 'shared values are frozen');
    assert.equal(repo.step('e1', 'fix')!.contract, step.contract, 'one value for every row naming it');
    // A frozen contract (as the broker shares one per step) is hashed once, however often it is stored.
    let hashed = 0;
    const counted = new ExecutionRepo(store, (text) => (hashed++, sha256(text)));
    const shared = Object.freeze({ ...contract, step_name: 'shared' });
    await store.transaction(() => ['e1', 'e2', 'e3'].forEach((id) => counted.updateStep(id, 'fix', { contract: shared })));
    assert.equal(hashed, 1);
    assert.deepEqual(counted.step('e2', 'fix')!.contract, shared);
    await store.transaction(() => repo.updateStep('e1', 'fix', { contract: null }));
    assert.equal(repo.step('e1', 'fix')!.contract, null);

    // A row written before schema v8 keeps its definition and contract inline, and reads the same.
    await store.transaction(() => {
      store.run("INSERT INTO executions (execution_id, status, started_at, updated_at) VALUES ('old', 'running', 'now', 'now')");
      store.run("INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status, metadata, contract) VALUES ('old', 'fix', 'implementer', 0, '[]', 'running', ?, ?)",
        [JSON.stringify({ definition: def }), JSON.stringify(contract)]);
    });
    const old = repo.step('old', 'fix')!;
    assert.deepEqual([old.metadata.definition, old.contract], [def, contract]);
    assert.deepEqual(repo.stepStates('old').map((s) => s.step_name), ['fix']);
  } finally {
    await store.close();
  }
});

test('a text stored by a transaction that was rolled back is stored again by the next that names it', async () => {
  const store = await openStore({ path: null });
  try {
    const repo = new ExecutionRepo(store, sha256);
    const contract = { step_name: 'fix', allowed_actions: [], forbidden_actions: [], required_output_format: 'md', human_gate_required: true };
    await insertStepE1Fix(store);
    await assert.rejects(store.transaction(() => {
      repo.updateStep('e1', 'fix', { contract });
      throw new Error('later in the same call');
    }), /later in the same call/);
    assert.equal(store.get<{ n: number }>('SELECT COUNT(*) AS n FROM step_texts')!.n, 0);
    await store.transaction(() => repo.updateStep('e1', 'fix', { contract }));
    assert.deepEqual(repo.step('e1', 'fix')!.contract, contract);
  } finally {
    await store.close();
  }
});

test('a text is looked up once stored; a nested rollback, a failed transaction or a prune has it looked up (and stored) again', async () => {
  const store = await openStore({ path: null });
  try {
    const counted = countingTextLookups(store, true);
    const repo = new ExecutionRepo(counted.store, sha256);
    const contract = (n: number) => ({ step_name: `fix${n}`, allowed_actions: [], forbidden_actions: [], required_output_format: 'md', human_gate_required: false });
    const texts = () => store.get<{ n: number }>('SELECT COUNT(*) AS n FROM step_texts')!.n;
    await insertStepE1Fix(store);
    const setContract = (n: number) => repo.updateStep('e1', 'fix', { contract: contract(n) });
    await store.transaction(() => setContract(1));
    await store.transaction(() => setContract(1));
    assert.equal(counted.lookups(), 1, 'seen stored: not looked up again');

    // A nested transaction stores a new text and is rolled back; the outer one names the text again.
    await store.transaction(() => {
      // A nested transaction's failure reaches the outer one's function as it happens.
      assert.throws(() => store.transaction(() => {
        setContract(2);
        throw new Error('inner');
      }), /inner/);
      setContract(2);
    });
    assert.equal(texts(), 2, 'the text the inner transaction stored and lost is stored again');
    assert.deepEqual(repo.step('e1', 'fix')!.contract, contract(2));

    // A transaction stores a text and fails after it: the batch is redone without it, and the next names it again.
    await assert.rejects(store.transaction(() => {
      setContract(3);
      throw new Error('later in the same call');
    }));
    assert.equal(texts(), 2);
    await store.transaction(() => setContract(3));
    assert.equal(texts(), 3);
    assert.deepEqual(repo.step('e1', 'fix')!.contract, contract(3));

    // Texts deleted behind the repository's back (a prune of orphaned texts) are stored again once it forgets.
    await store.transaction(() => {
      store.run('DELETE FROM step_texts');
      repo.forgetStoredTexts();
    });
    await store.transaction(() => setContract(3));
    assert.equal(texts(), 1);
    assert.deepEqual(new ExecutionRepo(store, sha256).step('e1', 'fix')!.contract, contract(3), 'read back by a repository that cached nothing');
  } finally {
    await store.close();
  }
});

test('a store that does not count its rollbacks has every text looked up', async () => {
  const store = await openStore({ path: null });
  try {
    const counted = countingTextLookups(store, false);
    const repo = new ExecutionRepo(counted.store, sha256);
    await insertStepE1Fix(store);
    const contract = { step_name: 'fix', allowed_actions: [], forbidden_actions: [], required_output_format: 'md', human_gate_required: false };
    for (let i = 0; i < 3; i++) await store.transaction(() => repo.updateStep('e1', 'fix', { contract }));
    assert.equal(counted.lookups(), 3);
  } finally {
    await store.close();
  }
});

test('stepList: a listing of many runs reads no step shapes, and the shapes a running workflow cached stay cached', async () => {
  const store = await openStore({ path: null });
  try {
    let shapeReads = 0;
    const counting: Store = {
      get: (sql: string, params?: SqlParams) => store.get(sql, params),
      all: (sql: string, params?: SqlParams) => (/SELECT step_name, position, dependencies/.test(sql) && shapeReads++, store.all(sql, params)),
      run: (sql: string, params?: SqlParams) => store.run(sql, params),
      transaction: <T>(fn: () => T) => store.transaction(fn),
    };
    const repo = new ExecutionRepo(counting, sha256);
    await store.transaction(() => {
      for (let e = 0; e < 300; e++) {
        store.run("INSERT INTO executions (execution_id, status, started_at, updated_at) VALUES (?, 'running', 'now', 'now')", [`e${e}`]);
        for (const [name, position] of [['ship', 1], ['fix', 0]] as const) {
          store.run(
            "INSERT INTO steps (execution_id, step_name, agent_name, position, dependencies, status) VALUES (?, ?, 'implementer', ?, '[]', 'pending')",
            [`e${e}`, name, position],
          );
        }
      }
    });
    repo.stepStates('e0'); // the running workflow's shapes, as its agent's calls read them
    assert.equal(shapeReads, 1);
    for (let e = 0; e < 300; e++) assert.deepEqual(repo.stepList(`e${e}`).map((s) => s.step_name), ['fix', 'ship'], 'in step order');
    assert.equal(shapeReads, 1, 'listing 300 runs read no shapes');
    repo.stepStates('e0');
    assert.equal(shapeReads, 1, 'e0\'s shapes are still cached: its next call does not read and parse them again');
    assert.deepEqual(repo.stepList('e0'), [
      { step_name: 'fix', status: 'pending', agent_name: 'implementer' },
      { step_name: 'ship', status: 'pending', agent_name: 'implementer' },
    ]);
  } finally {
    await store.close();
  }
});
