// Rule: a call reads first what handing out the next step needs (a submission patched in; a create builds the rows
// it writes as a read gives them back), then writes: a create's task, execution, steps and event, a submission's
// token close, artifacts, completion and event, and the hand-out (its token, the claim, its event, the execution's
// progress) reach SQLite after the answer (Store.deferWrites). They are on disk before the answer all the same: a
// crash image taken right after it continues with the token it handed out. The answer is the one the database's own
// rows give.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ExecutionRepo, headOf } from '../../src/core/broker/executionRepo.js';
import { fitStepResult } from '../../src/core/broker/stepResult.js';
import { nodeCrypto } from '../../src/host/nodePorts.js';
import { scanJournal } from '../../src/store/journal.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { makeBaton, okStep, output } from '../helpers/coreHarness.js';
import { crashImage, withTempDir } from '../fixtures/store/helpers.js';

/** The statements of the journal's last record: SQL's first words, and whether each was deferred. */
function lastRecord(journal: string): Array<[string, boolean]> {
  const scan = scanJournal(readFileSync(journal));
  assert.ok(scan.ok);
  return scan.records.at(-1)!.statements.map(([sql, , deferred]) => [sql.replace(/\s+/g, ' ').split(' (')[0]!.split(' SET')[0]!, deferred === 1]);
}

describe('broker: the hand-out of the next step is written after the answer', () => {
  it('defers every write of a create and of a continue, and a crash image right after the answer continues with its token', async () => {
    await withTempDir(async (t) => {
      const { baton, store } = await makeBaton({ store: await openStore({ path: t.db }) });
      // A first run to its gate: each step's contract is stored once, looked up (a read) the first time it is used.
      let warm = okStep(await baton.nextStep({ template_name: 'bug-fix' })).token;
      for (let r = await baton.nextStep({ step_token: warm, model_output_so_far: output('warm') }); r.status === 'ok';) {
        warm = okStep(r).token;
        r = await baton.nextStep({ step_token: warm, model_output_so_far: output('warm') });
      }
      const first = okStep(await baton.nextStep({ template_name: 'bug-fix', task_description: 'Login fails' }));
      const created = lastRecord(t.journal);
      assert.deepEqual(created.filter(([, d]) => !d), [], 'a create writes nothing before its answer');
      assert.deepEqual(created.slice(-4).map(([q]) => q), ['INSERT INTO step_tokens', 'UPDATE steps', 'INSERT INTO events', 'UPDATE executions']);

      const res = await baton.nextStep({ step_token: first.token, model_output_so_far: output('found it') });
      const second = { ...okStep(res), execution_id: res.execution_id! };
      assert.equal(second.step, 'implement-fix');
      assert.deepEqual(lastRecord(t.journal), [
        ['UPDATE step_tokens', true], // the submitted token, consumed (read active in the same transaction)
        ['INSERT INTO artifacts', true],
        ['UPDATE steps', true],
        ['INSERT INTO events', true],
        ['INSERT INTO step_tokens', true],
        ['UPDATE steps', true],
        ['INSERT INTO events', true],
        ['UPDATE executions', true],
      ]);

      // Taken before the turn after the answer: the hand-out is in the journal only.
      const image = crashImage(t.dir);
      const reopened = await makeBaton({ store: await openStore({ path: image.db }) });
      const afterCrash = await reopened.baton.nextStep({ step_token: second.token, model_output_so_far: output('fixed it') });
      assert.equal(okStep(afterCrash).step, 'write-tests');
      await reopened.store.close();

      // The live store has it from the next read on.
      assert.equal(baton.currentStep(second.execution_id).status, 'running');
      const live = await baton.nextStep({ step_token: second.token, model_output_so_far: output('fixed it') });
      assert.equal(okStep(live).step, 'write-tests');
      await store.close();
    });
  });

  it('reads the next step\'s inputs ahead of the submission, with the submission patched in: the answer is the one a fresh read gives', async () => {
    const { baton, store } = await makeBaton();
    const first = okStep(await baton.nextStep({ template_name: 'bug-fix' }));
    // Long enough to be cut, with a pair and a two-byte character around the cut, and a second, short artifact.
    const long = `${'é'.repeat(2000)}😀${'x'.repeat(3000)}😀 end`;
    const submitted = await baton.nextStep({
      step_token: first.token,
      model_output_so_far: output('found it', 'notes', { artifacts: [{ type: 'markdown', title: 'long 😀', content: long }, { type: 'test_plan', title: 'short', content: 'short one' }] }),
    });
    okStep(submitted);
    // The same answer fitted to the heads as the database now gives them back.
    const dependencies = ['analyze-root-cause'];
    const stored = new ExecutionRepo(store, (t) => nodeCrypto.sha256(t)).artifactHeads(submitted.execution_id!, dependencies, 4096);
    const fresh = structuredClone(submitted);
    fitStepResult(fresh, stored, 4096);
    assert.deepEqual(submitted.context!.dependency_artifacts, fresh.context!.dependency_artifacts);
    assert.deepEqual(submitted.context!.more, fresh.context!.more);
    assert.ok(submitted.context!.dependency_artifacts.some((a) => a.truncated), 'the long one was cut');
    assert.equal(submitted.context!.dependency_artifacts.length, 2);
    await store.close();
  });

  it('reads back a submission SQLite would not give back as it is (a lone surrogate): its writes run at once; one with a NUL is read ahead', async () => {
    for (const [content, deferred] of [['lone \ud800 half', false], ['before\0after', true]] as const) {
      await withTempDir(async (t) => {
        const { baton, store } = await makeBaton({ store: await openStore({ path: t.db }) });
        const first = okStep(await baton.nextStep({ template_name: 'bug-fix' }));
        const submitted = await baton.nextStep({
          step_token: first.token, model_output_so_far: output('found it', 'notes', { artifacts: [{ type: 'markdown', title: 'odd', content }] }),
        });
        assert.equal(okStep(submitted).step, 'implement-fix');
        const record = lastRecord(t.journal);
        assert.deepEqual(record.slice(0, 4), [['UPDATE step_tokens', deferred], ['INSERT INTO artifacts', deferred], ['UPDATE steps', deferred], ['INSERT INTO events', deferred]]);
        assert.deepEqual(record[4], ['INSERT INTO step_tokens', true], 'the hand-out is still deferred (from its token on)');
        const stored = new ExecutionRepo(store, (x) => nodeCrypto.sha256(x)).artifactHeads(submitted.execution_id!, ['analyze-root-cause'], 4096);
        const fresh = structuredClone(submitted);
        fitStepResult(fresh, stored, 4096);
        assert.deepEqual(submitted.context!.dependency_artifacts, fresh.context!.dependency_artifacts, JSON.stringify(content));
        await store.close();
      });
    }
  });

  it('hands out a create\'s first step from rows built as a read gives them back, and defers all its writes', async () => {
    await withTempDir(async (t) => {
      const { baton, store } = await makeBaton({ store: await openStore({ path: t.db }) });
      okStep(await baton.nextStep({ template_name: 'bug-fix' })); // texts stored and read once
      // Every execution SQLite inserts calls back here: the create reads none of its rows back before its answer.
      const inserted: string[] = [];
      store.registerFunction('seen', (id: string) => (inserted.push(id), 0));
      await store.transaction(() => store.run('CREATE TRIGGER seen_execution AFTER INSERT ON executions BEGIN SELECT seen(NEW.execution_id); END'));
      await new Promise((r) => setImmediate(r));
      const created = await baton.nextStep({ template_name: 'bug-fix', task_description: 'Login fails' });
      assert.deepEqual(inserted, [], 'not in SQLite when the answer comes');
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(inserted, [created.execution_id], 'in SQLite on the turn after');
      assert.equal(okStep(created).step, 'analyze-root-cause');
      const record = lastRecord(t.journal);
      assert.ok(record.length >= 10);
      assert.deepEqual(record.filter(([, d]) => !d), [], 'every statement of a plain create is deferred');
      assert.deepEqual(record.slice(0, 3).map(([q]) => q), ['INSERT INTO agent_tasks', 'INSERT INTO executions', 'INSERT INTO steps']);
      // Its answer is the one a create that reads its rows back gives (the first one above, with the same task).
      const again = await makeBaton({ store: await openStore({ path: null }) });
      const fresh = await again.baton.nextStep({ template_name: 'bug-fix', task_description: 'Login fails' });
      const strip = (r: typeof created) => ({ ...r, execution_id: '', task_id: '', new_step_token: '', token_expires_at: '' });
      assert.deepEqual(strip(created), strip(fresh));
      await again.store.close();
      await store.close();
    });
  });

  it('builds the rows insertExecution and insertStep write as execution() and step() read them back', async () => {
    const store = await openStore({ path: null });
    const repo = new ExecutionRepo(store, (x) => nodeCrypto.sha256(x));
    const def = { name: 'b', agent: 'implementer', dependencies: ['a'], path_patterns: ['src/**'], tags: ['x'], description: 'do b' } as never;
    const execution = {
      execution_id: 'e1', kind: 'template' as const, template_id: 3, template_name: 'wf', task_id: 't1', project_id: null, status: 'running' as const,
      now: '2026-11-29T00:00:00.000Z', metadata: { task_description: 'x', client: null, nested: { a: [1, 'é'] } },
    };
    for (let round = 0; round < 2; round++) {
      const id = `e${round + 1}`;
      const first = repo.nextStepId();
      await store.transaction(() => {
        repo.insertExecution({ ...execution, execution_id: id });
        repo.insertStep({ execution_id: id, def: { ...(def as object), name: 'a', dependencies: [] } as never, position: 0, status: 'ready' });
        repo.insertStep({ execution_id: id, def, position: 1, status: 'pending' });
      });
      const built = repo.insertedExecution({ ...execution, execution_id: id });
      const read = repo.execution(id)!;
      assert.deepEqual(built, Object.fromEntries(Object.keys(built).map((k) => [k, read[k as keyof typeof read]])));
      const step = repo.insertedStep({ execution_id: id, def, position: 1, status: 'pending' }, first + 1);
      const stepRead = repo.step(id, 'b')!;
      assert.deepEqual(step, Object.fromEntries(Object.keys(step).map((k) => [k, stepRead[k as keyof typeof stepRead]])));
    }
    await store.close();
  });

  it('cuts a text where SQLite\'s substr does: by code points', async () => {
    const store = await openStore({ path: null });
    const texts = ['', 'plain', 'é'.repeat(10), '😀'.repeat(10), `ab😀c😀😀d${'€'.repeat(5)}`, `${'x'.repeat(7)}😀yz`];
    for (const text of texts) {
      for (const n of [0, 1, 2, 7, 8, 9, 12, 40]) {
        const sql = store.get<{ h: string }>('SELECT substr(?, 1, ?) AS h', [text, n])!.h;
        assert.equal(headOf(text, n), sql, `${JSON.stringify(text)} cut at ${n}`);
      }
    }
    await store.close();
  });
});
