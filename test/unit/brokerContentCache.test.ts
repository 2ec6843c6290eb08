// Rule: a template the broker reads by name or id is kept with its step definitions frozen, deep, so that every run
// of it stores each definition by the text and ref kept with the frozen value (StepTexts.ref): a create serializes a
// step's definition the first time only, not again for each step of each run.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { ContentCache } from '../../src/core/broker/contentCache.js';
import { ExecutionRepo } from '../../src/core/broker/executionRepo.js';
import { loadContent } from '../../src/core/content/index.js';
import { syncContent } from '../../src/core/content/syncContent.js';
import { nodeCrypto, nodeFileSystem, systemClock } from '../../src/host/nodePorts.js';
import { openStore } from '../../src/store/sqlJsStore.js';

const BUNDLED = join(__dirname, '..', '..', 'content');

test("a cached template's step definitions are frozen, and runs of it serialize each definition once", async () => {
  const store = await openStore({ path: null });
  try {
    await syncContent(store, systemClock, await loadContent(nodeFileSystem, [BUNDLED], nodeCrypto));
    const cache = new ContentCache(store);
    const template = cache.template('bug-fix')!;
    assert.ok(template.steps.length > 1);
    for (const step of template.steps) {
      assert.ok(Object.isFrozen(step) && Object.isFrozen(step.allowed_actions) && Object.isFrozen(step.dependencies), `${step.name} is frozen`);
    }
    assert.ok(cache.templateById(template.id)!.steps.every((s) => Object.isFrozen(s) && Object.isFrozen(s.tags)), 'by id too');
    assert.equal(cache.template('bug-fix'), template, 'read once');

    const repo = new ExecutionRepo(store, (text) => nodeCrypto.sha256(text));
    const definitions = new Set<unknown>(template.steps);
    const stringify = JSON.stringify;
    let serialized = 0;
    JSON.stringify = ((value: unknown, ...rest: []) => {
      if (definitions.has(value)) serialized++;
      return stringify(value, ...rest);
    }) as typeof JSON.stringify;
    try {
      await store.transaction(() => {
        for (const id of ['e1', 'e2', 'e3']) {
          store.run("INSERT INTO executions (execution_id, status, started_at, updated_at) VALUES (?, 'running', 'now', 'now')", [id]);
          template.steps.forEach((def, position) => repo.insertStep({ execution_id: id, def, position, status: 'pending' }));
        }
      });
    } finally {
      JSON.stringify = stringify;
    }
    assert.equal(serialized, template.steps.length, 'once per definition, for three runs');
    assert.equal(store.get<{ n: number }>('SELECT COUNT(DISTINCT definition_ref) AS n FROM steps')!.n, template.steps.length);
    assert.deepEqual(repo.step('e3', template.steps[0]!.name)!.metadata.definition, template.steps[0]);
  } finally {
    await store.close();
  }
});
