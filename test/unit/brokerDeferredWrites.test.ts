// Rule: a step's hand-out (its token, the claim, its event, the execution's progress) is the last thing a call
// writes, after its last read, so it reaches SQLite after the answer (Store.deferWrites); it is on disk before the
// answer all the same: a crash image taken right after the answer continues with the token it handed out.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
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
  it('defers exactly the hand-out of a create and of a continue, and a crash image right after the answer continues with its token', async () => {
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
      assert.deepEqual(created.filter(([, d]) => d).map(([q]) => q), ['INSERT INTO step_tokens', 'UPDATE steps', 'INSERT INTO events', 'UPDATE executions']);

      const res = await baton.nextStep({ step_token: first.token, model_output_so_far: output('found it') });
      const second = { ...okStep(res), execution_id: res.execution_id! };
      assert.equal(second.step, 'implement-fix');
      assert.deepEqual(lastRecord(t.journal), [
        ['UPDATE step_tokens', false], // the submitted token, consumed: its changed-row count says whether it lost a race
        ['INSERT INTO artifacts', false],
        ['UPDATE steps', false],
        ['INSERT INTO events', false],
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
});
