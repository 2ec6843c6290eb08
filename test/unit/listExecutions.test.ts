// Rule: listing runs (the editor's tree and status bar, refreshed as agents work) reads each run's steps without their
// shapes, so a listing of hundreds of runs neither parses their definitions nor pushes the shapes that the running
// workflows' calls use out of their cache.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeBaton, ONE_STEP_YAML } from '../helpers/coreHarness.js';

test('listExecutions of 300 runs reads no step shapes, and the runs listed keep their steps in order', async () => {
  const { baton, store } = await makeBaton({ workflows: { one: ONE_STEP_YAML } });
  try {
    for (let i = 0; i < 300; i++) await baton.nextStep({ template_name: 'one', task_description: `run ${i}` });
    let shapeReads = 0;
    const all = store.all.bind(store);
    store.all = ((sql: string, params?: never) => {
      if (/SELECT step_name, position, dependencies/.test(sql)) shapeReads++;
      return all(sql, params);
    }) as typeof store.all;
    const listed = baton.listExecutions({ limit: 1000 });
    assert.equal(listed.length, 300);
    assert.ok(listed.every((e) => e.steps.length === 1 && e.steps[0]!.step_name === 'only' && e.steps[0]!.agent_name === 'implementer'));
    assert.equal(shapeReads, 0, 'no run\'s step shapes were read (300 runs: past the cache of 256)');
  } finally {
    await store.close();
  }
});
