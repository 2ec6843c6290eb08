// Rule: when a pipeline run pauses at its budget the editor says so in a warning with a Show button, which opens the
// run's panel (where the budget is raised and the run resumed); dismissed, nothing opens. Nothing is said for another
// execution event, a run paused by an interruption or a paused workflow run, nor once the registration is disposed.
// A run a terminal drove (its owner ended as the run paused) is still announced: it is read again from this window.
import '../helpers/fakeVscode.js'; // first: the files below import 'vscode'
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { BatonError } from '../../src/core/errors.js';
import { interruptedReason, type PipelineRunView } from '../../src/core/pipelines/pipelineRuns.js';
import type { BatonEvent } from '../../src/core/types.js';
import { ExecutionPanel } from '../../src/vscode/panels/executionPanel.js';
import { registerBudgetNotifications } from '../../src/vscode/pipelineCommands.js';
import { BatonConnection } from '../../src/vscode/ownership.js';
import type { PipelineSource } from '../../src/vscode/pipelines/pipelineSource.js';
import type { Services } from '../../src/vscode/services.js';
import { fakeWindow } from '../helpers/fakeVscode.js';
import { until } from '../helpers/until.js';

const RUN = '0123456789abcdef';
const BUDGET = 'budget_exceeded: 2468 tokens used, budget 2000';
const TEXT = 'Baton: review “the login fix” paused at its budget (2,468 tokens used, budget 2,000 tokens; run 01234567). ' +
  'Raise the budget and resume it from its panel, or with baton pipeline resume.';

const paused = (runId: string, pauseReason: string | null) =>
  ({ runId, system: { name: 'review', description: '', agents: [], workflow: [] }, input: 'the login fix', status: 'paused', pauseReason }) as
    Partial<PipelineRunView> as PipelineRunView;

const pausedEvent = (id: string): BatonEvent => ({ type: 'execution', execution_id: id, task_id: null, status: 'paused' });

/**
 * The editor's parts the notification uses: BatonConnection's own methods over fake sources (`sources` answers
 * `pipelines()`, a read at a time: the owner's, then this window's once it took over) and events a test sends.
 */
function editor(sources: () => Partial<PipelineSource>) {
  const listeners = new Set<(e: BatonEvent) => void>();
  const reads: string[] = [];
  const fakes = {
    onEvent: (l: (e: BatonEvent) => void) => (listeners.add(l), { dispose: () => void listeners.delete(l) }),
    pipelines: async () => {
      const source = sources();
      return { ...source, view: (runId: string) => (reads.push(runId), source.view!(runId)) } as PipelineSource;
    },
  };
  const connection = Object.assign(Object.create(BatonConnection.prototype) as BatonConnection, fakes);
  const errors: unknown[] = [];
  const context = { extensionUri: 'fake' };
  const s = { context, connection, log: { error: (...a: unknown[]) => errors.push(a) } } as unknown as Services;
  const send = (e: BatonEvent) => [...listeners].forEach((l) => l(e));
  return { s, send, reads, errors, listeners };
}

describe('the budget notification', () => {
  let opened: unknown[][];
  beforeEach(() => {
    fakeWindow.shown = [];
    opened = [];
    mock.method(ExecutionPanel, 'show', (...args: unknown[]) => void opened.push(args));
  });
  afterEach(() => {
    mock.restoreAll();
    fakeWindow.answer = () => undefined;
  });

  it('warns of a run paused at its budget; Show opens its panel', async () => {
    const { s, send } = editor(() => ({ view: async () => paused(RUN, BUDGET) }));
    fakeWindow.answer = (m) => (m.level === 'warning' ? 'Show' : undefined);
    const registration = registerBudgetNotifications(s);
    send(pausedEvent(RUN));
    await until('the panel opened', () => opened.length > 0, 10_000);
    assert.deepEqual(fakeWindow.shown, [{ level: 'warning', message: TEXT, items: ['Show'] }]);
    assert.deepEqual(opened, [[s.context, s.connection, RUN]], "the run's panel, from this window's connection");
    registration.dispose();
  });

  it('dismissed: no panel opens', async () => {
    const { s, send, reads } = editor(() => ({ view: async () => paused(RUN, BUDGET) }));
    const registration = registerBudgetNotifications(s);
    send(pausedEvent(RUN));
    await until('the warning', () => fakeWindow.shown.length > 0, 10_000);
    await sleep(20);
    assert.equal(fakeWindow.shown[0]!.message, TEXT);
    assert.deepEqual(opened, []);
    assert.deepEqual(reads, [RUN]);
    registration.dispose();
  });

  it('says nothing of other events, an interrupted run, a paused workflow run, nor once disposed', async () => {
    const views: Record<string, PipelineRunView> = { interrupted: paused('interrupted', interruptedReason('Ctrl-C')) };
    const { s, send, reads, errors, listeners } = editor(() => ({
      view: async (id) => views[id] ?? Promise.reject(new BatonError('execution_not_found', `No pipeline run ${id}`)),
    }));
    const registration = registerBudgetNotifications(s);
    send({ type: 'execution', execution_id: RUN, task_id: null, status: 'running' });
    send({ type: 'step', execution_id: RUN, step_name: 'plan', status: 'pending' });
    send(pausedEvent('interrupted'));
    send(pausedEvent('workflow-run'));
    await until('both paused runs read', () => reads.length === 2, 10_000);
    await sleep(20);
    assert.deepEqual(reads.sort(), ['interrupted', 'workflow-run'], 'only a paused execution is read');
    assert.deepEqual(fakeWindow.shown, []);
    assert.deepEqual(errors, []);
    registration.dispose();
    assert.equal(listeners.size, 0, 'disposed: it no longer listens');
  });

  it('announces a run a terminal drove: its owner ended as the run paused, and this window read it once it took over', async () => {
    let owner: 'terminal' | 'this window' = 'terminal';
    const readBy: string[] = [];
    const terminal: Partial<PipelineSource> = {
      view: async () => {
        readBy.push('terminal');
        owner = 'this window'; // the terminal's process exits with its run; this window takes the database over
        throw new BatonError('owner_unreachable', 'Baton process 15702 owns the database but its endpoint does not answer');
      },
    };
    const local: Partial<PipelineSource> = { view: async () => (readBy.push('this window'), paused(RUN, BUDGET)) };
    const { s, send } = editor(() => (owner === 'terminal' ? terminal : local));
    fakeWindow.answer = () => 'Show';
    const registration = registerBudgetNotifications(s);
    send(pausedEvent(RUN));
    await until('the panel opened', () => opened.length > 0, 5000);
    assert.deepEqual(readBy, ['terminal', 'this window']);
    assert.deepEqual(fakeWindow.shown.map((m) => m.message), [TEXT]);
    assert.deepEqual(opened, [[s.context, s.connection, RUN]]);
    registration.dispose();
  });
});
