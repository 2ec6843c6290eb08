// Rule: the repository's per-execution cache of step shapes never hides a step: states come in template
// order, and a step added behind the cache's back is picked up with its dependencies.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ExecutionRepo } from '../../src/core/broker/executionRepo.js';
import { openStore } from '../../src/store/sqlJsStore.js';

test('stepStates: template order, and a step added after caching is seen with its dependencies', async () => {
  const store = await openStore({ path: null });
  try {
    const repo = new ExecutionRepo(store);
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
