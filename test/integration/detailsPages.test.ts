// Rule: every list of get_execution_details (steps, logs, artifacts, findings) carries one page: the newest
// DETAILS_LIST_LIMIT items (or <list>Limit, up to DETAILS_LIST_MAX) past <list>Offset, in the order stored, within a
// budget of bytes, with pages.<list> saying how many there are in all and the offset of the older ones; following
// nextOffset lists each item exactly once; the whole answer stays within its stated bound; a bad page is refused
// naming the fix. A run that fits a page gets the answer it always got. (Real core in memory, real MCP client.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DETAILS_LIST_BUDGET_BYTES, DETAILS_LIST_LIMIT, DETAILS_LIST_MAX } from '../../src/core/lifecycle/detailsPages.js';
import { DETAILS_ARTIFACTS_BUDGET_BYTES } from '../../src/core/lifecycle/records.js';
import { BatonError } from '../../src/core/errors.js';
import { openLifecycle, type LifecycleRig } from '../helpers/lifecycleHarness.js';

type List = 'steps' | 'logs' | 'artifacts' | 'findings';
const LISTS: List[] = ['steps', 'logs', 'artifacts', 'findings'];
const FLAGS = { includeSteps: true, includeLogs: true, includeArtifacts: true, includeFindings: true };
const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

describe('get_execution_details: bounded and paged lists', () => {
  let rig: LifecycleRig;
  before(async () => {
    rig = await openLifecycle();
  });
  after(() => rig.close());

  /** A running execution with `n` of each list (`big`: bytes of free text in each item); the ids of each, in order. */
  const seed = async (n: number, big = 0) => {
    const lc = rig.baton.lifecycle;
    const executionId = (await lc.startExecution({ workflowName: 'bug-fix' })).id;
    await lc.transition(executionId, 'running');
    const pad = 'p'.repeat(big);
    const ids: Record<List, string[]> = { steps: [], logs: [], artifacts: [], findings: [] };
    for (let i = 0; i < n; i++) {
      const step = await lc.startStep({ executionId, stepName: `step-${i}` });
      if (big) await lc.completeStep(step.id, { summary: `done ${i} ${pad}`, confidence: 1 });
      ids.steps.push(step.id);
      ids.logs.push((await lc.log({ executionId, layer: 'step', layerId: `l${i}`, logLevel: 'info', message: `log ${i} ${pad}` })).log.id);
      ids.artifacts.push((await lc.storeArtifact({ executionId, name: `a-${i}.txt`, contentType: 'text', content: `artifact ${i}`, metadata: { pad } })).id);
      ids.findings.push((await lc.storeFinding({ executionId, severity: 'info', category: 'note', title: `f ${i}`, description: `finding ${i} ${pad}` })).id);
    }
    return { executionId, ids };
  };
  const idsOf = (items: Array<{ id: string }>) => items.map((x) => x.id);

  it('lists the newest DETAILS_LIST_LIMIT of each list, in the order stored, with the total and the next offset', async () => {
    const n = DETAILS_LIST_LIMIT + 30;
    const { executionId, ids } = await seed(n);
    const r = await rig.call('get_execution_details', { executionId, ...FLAGS });
    assert.equal(r.isError, false, r.text);
    for (const list of LISTS) {
      assert.deepEqual(idsOf(r.sc[list]), ids[list].slice(30), `${list}: the newest page, oldest first`);
      assert.deepEqual(r.sc.pages[list], { total: n, limit: DETAILS_LIST_LIMIT, offset: 0, nextOffset: DETAILS_LIST_LIMIT }, list);
    }
    assert.match(r.text, new RegExp(`with ${n} steps\\. Listed ${DETAILS_LIST_LIMIT} of ${n} steps \\(stepsOffset: ${DETAILS_LIST_LIMIT} lists older ones\\); `));
    assert.match(r.text, new RegExp(`${DETAILS_LIST_LIMIT} of ${n} findings \\(findingsOffset: ${DETAILS_LIST_LIMIT} lists older ones\\)\\.$`));
    // The next page is the older rest, and nothing is past it.
    const older = await rig.ok('get_execution_details', { executionId, includeSteps: false, includeLogs: true, logsOffset: DETAILS_LIST_LIMIT });
    assert.deepEqual(idsOf(older.logs), ids.logs.slice(0, 30));
    assert.deepEqual(older.pages, { logs: { total: n, limit: DETAILS_LIST_LIMIT, offset: DETAILS_LIST_LIMIT } });
    assert.equal(older.steps, undefined);
  });

  it('pages through every list with its own limit and offset, listing each item exactly once', async () => {
    const n = 57;
    const { executionId, ids } = await seed(n);
    for (const [list, limit] of [['steps', 10], ['logs', 7], ['artifacts', 1], ['findings', 57]] as Array<[List, number]>) {
      const seen: string[] = [];
      let offset: number | undefined = 0;
      let calls = 0;
      while (offset !== undefined) {
        const d = await rig.ok('get_execution_details', { executionId, ...FLAGS, [`${list}Limit`]: limit, [`${list}Offset`]: offset });
        assert.equal(d.pages[list].total, n);
        assert.ok(d[list].length <= limit);
        seen.unshift(...idsOf(d[list]));
        offset = d.pages[list].nextOffset;
        calls++;
      }
      assert.deepEqual(seen, ids[list], `${list}: all of them once, in order`);
      assert.equal(calls, Math.ceil(n / limit), list);
    }
  });

  it('answers a page past the end with none of the list and its total, and a run that fits exactly as before', async () => {
    const { executionId, ids } = await seed(3);
    const past = await rig.ok('get_execution_details', { executionId, includeLogs: true, logsOffset: 3, stepsOffset: 10 });
    assert.deepEqual([past.logs, past.steps], [[], []]);
    assert.deepEqual(past.pages, { steps: { total: 3, limit: DETAILS_LIST_LIMIT, offset: 10 }, logs: { total: 3, limit: DETAILS_LIST_LIMIT, offset: 3 } });
    assert.match((await rig.call('get_execution_details', { executionId, includeLogs: true, logsOffset: 3 })).text,
      /Listed 0 of 3 logs after the newest 3 \(logsOffset 3 is past the oldest; use 0 to 2\)\./);
    const r = await rig.call('get_execution_details', { executionId, ...FLAGS });
    for (const list of LISTS) assert.deepEqual(idsOf(r.sc[list]), ids[list], list);
    assert.equal(r.text, `Execution ${executionId} (bug-fix) is running with 3 steps.`);
  });

  it('keeps each list within its budget of bytes, however large its items, and pages on past them', async () => {
    // 20 KB of free text in each item: a page of 100 would be 2 MB a list.
    const n = 30;
    const { executionId, ids } = await seed(n, 20_000);
    const d = await rig.ok('get_execution_details', { executionId, ...FLAGS, artifactsLimit: DETAILS_LIST_MAX });
    for (const list of ['steps', 'logs', 'findings'] as List[]) {
      const size = bytes(d[list]);
      assert.ok(size <= DETAILS_LIST_BUDGET_BYTES && size > DETAILS_LIST_BUDGET_BYTES - 25_000, `${list}: ${size} bytes`);
      const shown = d[list].length;
      assert.ok(shown > 1 && shown < n, `${list}: ${shown}`);
      assert.deepEqual(idsOf(d[list]), ids[list].slice(n - shown));
      assert.deepEqual(d.pages[list], { total: n, limit: DETAILS_LIST_LIMIT, offset: 0, nextOffset: shown });
    }
    // The artifacts' metadata counts toward their budget: fewer listed than asked, their contents left out.
    const size = bytes(d.artifacts);
    assert.ok(size <= DETAILS_ARTIFACTS_BUDGET_BYTES, `artifacts: ${size} bytes`);
    assert.ok(d.artifacts.length > 1 && d.artifacts.length < n, `artifacts: ${d.artifacts.length}`);
    assert.deepEqual(d.pages.artifacts, { total: n, limit: DETAILS_LIST_MAX, offset: 0, nextOffset: d.artifacts.length });
    assert.equal(d.artifacts.at(-1).content, `artifact ${n - 1}`);
    assert.ok(d.artifacts.every((a: { metadata: { pad: string } }) => a.metadata.pad.length === 20_000), 'metadata listed whole');
  });

  it('lists an item bigger than its budget alone, so that paging moves on', async () => {
    const lc = rig.baton.lifecycle;
    const executionId = (await lc.startExecution({ workflowName: 'bug-fix' })).id;
    const huge = 'h'.repeat(DETAILS_LIST_BUDGET_BYTES + 10);
    for (const [i, message] of ['small', huge, 'newest'].entries()) await lc.log({ executionId, layer: 'step', layerId: `l${i}`, logLevel: 'info', message });
    const first = await rig.ok('get_execution_details', { executionId, includeLogs: true, includeSteps: false });
    assert.deepEqual([first.logs.map((l: { message: string }) => l.message), first.pages.logs.nextOffset], [['newest'], 1]);
    const second = await rig.ok('get_execution_details', { executionId, includeLogs: true, includeSteps: false, logsOffset: 1 });
    assert.deepEqual([second.logs.map((l: { message: string }) => l.message.length), second.pages.logs.nextOffset], [[huge.length], 2]);
  });

  it('bounds the whole answer: the execution, three list budgets, the artifacts budget and 10 KB', async () => {
    const { executionId } = await seed(40, 12_000);
    const r = await rig.call('get_execution_details', { executionId, ...FLAGS, ...Object.fromEntries(LISTS.map((l) => [`${l}Limit`, DETAILS_LIST_MAX])) });
    const execution = bytes(r.sc.execution);
    const bound = execution + 3 * DETAILS_LIST_BUDGET_BYTES + DETAILS_ARTIFACTS_BUDGET_BYTES + 10 * 1024;
    assert.ok(bytes(r.sc) <= bound, `${bytes(r.sc)} bytes, bound ${bound}`);
    assert.ok(bytes(r.sc) > bound - 100 * 1024, `the lists are full: ${bytes(r.sc)}`);
  });

  it('lists at most DETAILS_LIST_MAX ready step ids, found among all the steps', async () => {
    const lc = rig.baton.lifecycle;
    const executionId = (await lc.startExecution({ workflowName: 'bug-fix' })).id;
    await lc.transition(executionId, 'running');
    const first = await lc.startStep({ executionId, stepName: 'first' });
    // Each waits for the first step: kept pending, then ready once it completes.
    for (let i = 0; i < DETAILS_LIST_MAX + 20; i++) {
      await assert.rejects(lc.startStep({ executionId, stepName: `wait-${i}`, dependsOn: [first.id] }));
    }
    await lc.completeStep(first.id, { summary: 'done', confidence: 1 });
    const d = await rig.ok('get_execution_details', { executionId, stepsLimit: 1 });
    assert.equal(d.readyStepIds.length, DETAILS_LIST_MAX);
    assert.deepEqual(d.pages.steps, { total: DETAILS_LIST_MAX + 21, limit: 1, offset: 0, nextOffset: 1 });
    const all = lc.details({ executionId, stepsLimit: DETAILS_LIST_MAX, stepsOffset: 20 }).steps!;
    assert.deepEqual(d.readyStepIds, all.map((s) => s.id), 'the oldest ready steps, in step order');
  });

  it('refuses a bad page, naming the field and the fix', async () => {
    const executionId = (await rig.ok('start_execution', { workflowName: 'bug-fix' })).id;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ includeLogs: true, logsLimit: 0 }, /logsLimit must be a whole number from 1 to 500/],
      [{ includeLogs: true, logsLimit: DETAILS_LIST_MAX + 1 }, /logsLimit must be a whole number from 1 to 500/],
      [{ includeArtifacts: true, artifactsLimit: 2.5 }, /artifactsLimit must be a whole number from 1 to 500/],
      [{ includeFindings: true, findingsLimit: '10' }, /findingsLimit must be a whole number from 1 to 500/],
      [{ stepsOffset: -1 }, /stepsOffset must be a whole number, 0 or more/],
      [{ includeLogs: true, logsOffset: 1.5 }, /logsOffset must be a whole number, 0 or more/],
      [{ logsOffset: 5 }, /logsOffset pages the logs, which this call leaves out; add includeLogs: true, or drop logsOffset\./],
      [{ includeSteps: false, stepsLimit: 5 }, /stepsLimit pages the steps, which this call leaves out; add includeSteps: true, or drop stepsLimit\./],
      [{ includeFindings: false, findingsLimit: 5 }, /add includeFindings: true, or drop findingsLimit/],
    ];
    for (const [args, message] of cases) {
      const r = await rig.call('get_execution_details', { executionId, ...args });
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(r.text, message, JSON.stringify(args));
    }
    // The core refuses them too, for a caller that does not go through the tool's schema.
    assert.throws(() => rig.baton.lifecycle.details({ executionId, includeLogs: true, logsLimit: 501 }),
      (ex: unknown) => BatonError.is(ex, 'invalid_input') && /logsLimit must be a whole number from 1 to 500 \(got 501\)/.test((ex as Error).message));
    assert.throws(() => rig.baton.lifecycle.details({ executionId, artifactsOffset: 0 }), /add includeArtifacts: true, or drop artifactsOffset/);
  });

  it('describes the paging, and its output schema has pages', async () => {
    const t = (await rig.client.listTools()).tools.find((x) => x.name === 'get_execution_details')!;
    assert.match(t.description ?? '', /Each list holds its newest 100 items in the order stored \(<list>Limit: up to 500; fewer if they fill the answer\)/);
    assert.match(t.description ?? '', /nextOffset to pass as <list>Offset \(stepsOffset, logsOffset, artifactsOffset, findingsOffset\)/);
    for (const list of LISTS) assert.ok(t.inputSchema.properties?.[`${list}Limit`] && t.inputSchema.properties[`${list}Offset`], list);
    const pages = t.outputSchema!.properties!.pages as { properties: Record<string, { properties: Record<string, unknown> }> };
    assert.deepEqual(Object.keys(pages.properties), LISTS);
    assert.deepEqual(Object.keys(pages.properties.logs!.properties), ['total', 'limit', 'offset', 'nextOffset']);
  });
});
