// Rule: "Prune Finished Runs…" first counts with a dry run by the owner's policy; with nothing to prune or cancel it
// only says so; otherwise it asks in a modal, and prunes (no dry run, the policy the person saw, compacting left to the
// core) only when "Prune" is picked, under a progress notification; a failure of either call is shown naming what failed.
// Counts read as words ("1 day", "12 finished runs kept"), never "day(s)" or "0 kept".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PruneRequest, PruneResult } from '../../src/core/retention.js';
import { PRUNE_BUTTON, pruneRuns, type PruneUi } from '../../src/vscode/pruneRuns.js';

/** A dry-run answer (or a real one) with `pruned` runs going and `kept` staying. */
function result(pruned: number, kept: number, extra: Partial<PruneResult> = {}): PruneResult {
  return {
    pruned, execution_ids: Array.from({ length: pruned }, (_, i) => `e${i}`), rows: pruned ? { executions: pruned, steps: 3 * pruned } : {},
    kept, cancelled: 0, cancelled_ids: [], policy: { days: 30, maxRuns: 1000, idleDays: 0 }, dry_run: false, compacted: null, ...extra,
  };
}

class FakeSource {
  calls: PruneRequest[] = [];
  constructor(
    readonly mode: 'owner' | 'client',
    private readonly dry: PruneResult | Error,
    private readonly real: PruneResult | Error = result(0, 0),
  ) {}
  async prune(req: PruneRequest = {}): Promise<PruneResult> {
    this.calls.push(req);
    const answer = req.dry_run ? this.dry : this.real;
    if (answer instanceof Error) throw answer;
    return { ...answer, dry_run: req.dry_run === true };
  }
}

class FakeUi implements PruneUi {
  infos: string[] = [];
  errors: Array<{ message: string; ex: unknown }> = [];
  asked: Array<{ message: string; detail: string; button: string }> = [];
  progressTitles: string[] = [];
  constructor(private readonly pick: string | undefined) {}
  info(message: string): void {
    this.infos.push(message);
  }
  async confirm(message: string, detail: string, button: string): Promise<string | undefined> {
    this.asked.push({ message, detail, button });
    return this.pick;
  }
  error(message: string, ex: unknown): void {
    this.errors.push({ message, ex });
  }
  async progress<T>(title: string, task: () => Promise<T>): Promise<T> {
    this.progressTitles.push(title);
    return task();
  }
}

describe('Baton: Prune Finished Runs…', () => {
  it('with nothing past the policy, says so (and how many are kept) without asking or pruning', async () => {
    const source = new FakeSource('owner', result(0, 12));
    const ui = new FakeUi(PRUNE_BUTTON);
    assert.equal(await pruneRuns(source, ui), undefined);
    assert.deepEqual(source.calls, [{ dry_run: true }], 'only the dry run, with the owner\'s policy (none given)');
    assert.deepEqual(ui.infos, ['Baton: no finished run is older than 30 days or past the newest 1000; 12 finished runs kept.']);
    assert.deepEqual(ui.asked, []);
    assert.deepEqual(ui.progressTitles, []);
  });

  it('on "Prune", prunes for real by the policy the dry run showed, under progress, and reports what went', async () => {
    const dry = result(3, 40, { policy: { days: 7, maxRuns: 0, idleDays: 0 } });
    const real = result(3, 40, { policy: { days: 7, maxRuns: 0, idleDays: 0 }, compacted: { beforeBytes: 20 * 1048576, afterBytes: 5.5 * 1048576 } });
    const source = new FakeSource('owner', dry, real);
    const ui = new FakeUi(PRUNE_BUTTON);
    const done = await pruneRuns(source, ui);
    assert.equal(done?.pruned, 3);
    assert.equal(done?.dry_run, false);
    assert.equal(source.calls.length, 2);
    assert.deepEqual(source.calls[0], { dry_run: true });
    assert.deepEqual(source.calls[1], { days: 7, max_runs: 0, idle_days: 0 }, 'no dry_run, no compact: the core decides on compacting');
    assert.equal(ui.asked.length, 1);
    assert.equal(ui.asked[0]!.message, 'Prune 3 finished runs (older than 7 days)?');
    assert.match(ui.asked[0]!.detail, /^Their steps, artifacts and events are deleted; findings stay\. 40 finished runs would be kept/);
    assert.equal(ui.asked[0]!.button, PRUNE_BUTTON);
    assert.equal(ui.progressTitles.length, 1);
    assert.deepEqual(ui.infos, ['Baton: pruned 3 finished runs (older than 7 days); 40 finished runs kept; database compacted from 20.0 MiB to 5.5 MiB.']);
    assert.deepEqual(ui.errors, []);
  });

  it('with idle runs to cancel, says so in the question and the report, and prunes by the idle days it showed', async () => {
    const policy = { days: 30, maxRuns: 0, idleDays: 14 };
    const both = new FakeSource('owner', result(2, 6, { policy, cancelled: 3, cancelled_ids: ['a', 'b', 'c'] }), result(2, 6, { policy, cancelled: 3 }));
    const ui = new FakeUi(PRUNE_BUTTON);
    await pruneRuns(both, ui);
    assert.equal(ui.asked[0]!.message, 'Prune 2 finished runs (older than 30 days) and mark 3 unfinished runs idle for more than 14 days as cancelled?');
    assert.match(ui.asked[0]!.detail, /findings stay\. The cancelled runs stay as finished runs, pruned later by the same policy\. 6 finished runs would be kept/);
    assert.deepEqual(both.calls[1], { days: 30, max_runs: 0, idle_days: 14 });
    assert.deepEqual(ui.infos, ['Baton: pruned 2 finished runs (older than 30 days) and marked 3 unfinished runs idle for more than 14 days as cancelled; 6 finished runs kept.']);

    const onlyIdle = new FakeUi(undefined);
    await pruneRuns(new FakeSource('owner', result(0, 6, { policy, cancelled: 1 })), onlyIdle);
    assert.equal(onlyIdle.asked[0]!.message, 'Mark 1 unfinished run idle for more than 14 days as cancelled?', 'not "Cancel": that is the dismiss button');
    assert.doesNotMatch(onlyIdle.asked[0]!.detail, /are deleted/);

    const nothing = new FakeUi(PRUNE_BUTTON);
    await pruneRuns(new FakeSource('owner', result(0, 6, { policy })), nothing);
    assert.deepEqual(nothing.infos, ['Baton: no finished run is older than 30 days and no unfinished run is idle for more than 14 days; 6 finished runs kept.']);
    assert.deepEqual(nothing.asked, []);

    const onlyIdlePolicy = new FakeUi(PRUNE_BUTTON);
    await pruneRuns(new FakeSource('owner', result(0, 6, { policy: { days: 0, maxRuns: 0, idleDays: 14 } })), onlyIdlePolicy);
    assert.deepEqual(onlyIdlePolicy.infos, ['Baton: pruning finished runs is off and no unfinished run is idle for more than 14 days; 6 finished runs kept.']);
  });

  it('counts in words: "1 day", "1 finished run kept", and never "0 kept" (none finished: nothing to prune; all pruned: none left)', async () => {
    const oneDay = { days: 1, maxRuns: 0, idleDays: 1 };
    const one = new FakeUi(PRUNE_BUTTON);
    await pruneRuns(new FakeSource('owner', result(0, 1, { policy: oneDay })), one);
    assert.deepEqual(one.infos, ['Baton: no finished run is older than 1 day and no unfinished run is idle for more than 1 day; 1 finished run kept.']);
    const none = new FakeUi(PRUNE_BUTTON);
    await pruneRuns(new FakeSource('owner', result(0, 0)), none);
    assert.deepEqual(none.infos, ['Baton: there is no finished run to prune.']);
    const noneIdle = new FakeUi(PRUNE_BUTTON);
    await pruneRuns(new FakeSource('owner', result(0, 0, { policy: { days: 30, maxRuns: 0, idleDays: 14 } })), noneIdle);
    assert.deepEqual(noneIdle.infos, ['Baton: there is no finished run to prune, and no unfinished run is idle for more than 14 days.']);
    const all = new FakeUi(PRUNE_BUTTON);
    await pruneRuns(new FakeSource('owner', result(2, 0, { policy: oneDay }), result(2, 0, { policy: oneDay })), all);
    assert.match(all.asked[0]!.detail, /findings stay\. No finished run would be left; /);
    assert.deepEqual(all.infos, ['Baton: pruned 2 finished runs (older than 1 day); no finished run is left.']);
  });

  it('dismissing the modal prunes nothing', async () => {
    const source = new FakeSource('owner', result(2, 5), result(2, 5));
    const ui = new FakeUi(undefined);
    assert.equal(await pruneRuns(source, ui), undefined);
    assert.deepEqual(source.calls, [{ dry_run: true }]);
    assert.equal(ui.asked.length, 1);
    assert.equal(ui.asked[0]!.message, 'Prune 2 finished runs (older than 30 days or past the newest 1000)?');
    assert.deepEqual(ui.infos, []);
    assert.deepEqual(ui.progressTitles, []);
  });

  it('a client says whose policy it is; with retention off it says where it is turned off and asks nothing', async () => {
    const client = new FakeUi(undefined);
    await pruneRuns(new FakeSource('client', result(1, 0)), client);
    assert.match(client.asked[0]!.detail, /terminal Baton that owns this database \(its --retention-days, --retention-runs and --retention-idle-days\)/);
    const off = { policy: { days: 0, maxRuns: 0, idleDays: 0 } };
    for (const [mode, where] of [['owner', /baton\.retention\.days, maxRuns and idleDays are all 0/], ['client', /--retention-days 0 --retention-runs 0 --retention-idle-days 0/]] as const) {
      const source = new FakeSource(mode, result(0, 9, off));
      const ui = new FakeUi(PRUNE_BUTTON);
      await pruneRuns(source, ui);
      assert.equal(ui.infos.length, 1, mode);
      assert.match(ui.infos[0]!, where);
      assert.deepEqual(ui.asked, [], mode);
      assert.equal(source.calls.length, 1, mode);
    }
  });

  it('shows a failed count or a failed prune, naming which, and reports no success', async () => {
    const unreachable = new Error('Baton process 42 does not answer');
    const countFails = new FakeUi(PRUNE_BUTTON);
    const source = new FakeSource('client', unreachable);
    assert.equal(await pruneRuns(source, countFails), undefined);
    assert.deepEqual(countFails.errors.map((e) => e.message), ['Baton: could not count the finished runs to prune: Baton process 42 does not answer']);
    assert.equal(countFails.errors[0]!.ex, unreachable);
    assert.deepEqual(countFails.asked, []);
    assert.deepEqual(source.calls, [{ dry_run: true }]);

    const pruneFails = new FakeUi(PRUNE_BUTTON);
    assert.equal(await pruneRuns(new FakeSource('owner', result(4, 1), new Error('database is locked')), pruneFails), undefined);
    assert.deepEqual(pruneFails.errors.map((e) => e.message), ['Baton: pruning finished runs failed: database is locked']);
    assert.deepEqual(pruneFails.infos, []);
  });
});
