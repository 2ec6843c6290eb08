// `baton pipeline list | run | resume | cancel`: systems of agents run step by step by this process, which owns the
// database while it runs (so `baton approve` in another terminal reaches it, and agents reach its MCP server).
import type { Budget, PipelineProgress } from '../core/pipelines/types.js';
import { interruptedReason, isInterruption, type PipelineRunSummary, type PipelineRunView } from '../core/pipelines/pipelineRuns.js';
import type { LeftoverOutcome, LiveAgent } from '../core/pipelines/agentProcesses.js';
import { pipelineHost } from '../core/pipelines/host.js';
import type { RunOutcome } from '../core/pipelines/engine/engine.js';
import { BatonError } from '../core/errors.js';
import { cancelledText } from '../core/broker/submittedOutput.js';
import type { Owner } from '../host/owner.js';
import { listSystems, loadSystem } from '../host/pipelines/systemFiles.js';
import { callControl } from '../host/controlClient.js';
import type { DiscoveryInfo } from '../host/discovery.js';
import type { RunUsage } from '../core/pipelines/pipelineRuns.js';
import { ZERO_USAGE, type TokenUsage } from '../core/pipelines/runner.js';
import type { TimelineEvent, WorkflowStatusResource } from '../core/api.js';
import { budgetOverrun, cutReason, plural, statusText } from '../shared/labels.js';
import { PIPELINE_USAGE } from './usage.js';
import { numberFlag } from './numberFlag.js';
import { CliError, cliLog, CONTENT_OPTION, DB_OPTIONS, dbFlagFor, dbPathOf, fileArgument, flagsFor, missingDatabase, parse, workspaceOf } from './common.js';
import { printWarnings } from './warnings.js';
import { ProgressView } from './pipelineProgress.js';
import { cancelExecution } from './cancelCommand.js';
import { runAsLeft } from './runAsLeft.js';
import { withCore } from './withCore.js';
import { othersDone } from './othersDone.js';
import { ownerTaking } from './ownDatabase.js';
import { existsSync } from 'node:fs';
import { onStopSignal } from '../host/stopSignals.js';
import { baselineWasmOnly } from './wasmTiers.js';


const RUN_OPTIONS = {
  ...DB_OPTIONS, ...CONTENT_OPTION, input: { type: 'string' }, var: { type: 'string', multiple: true }, json: { type: 'boolean' },
  'budget-tokens': { type: 'string' }, 'budget-usd': { type: 'string' }, 'forget-agents': { type: 'boolean' },
} as const;

function usage(message: string): CliError {
  return new CliError(`${message}\n\n${PIPELINE_USAGE}`, 2);
}

/** Runs `baton pipeline …`; returns the exit code. */
export async function pipelineCommand(args: string[]): Promise<number> {
  // The subcommand is the first word that is no option, as in spec: `baton pipeline --db x list` lists.
  const { values, positionals: words } = parse(args, RUN_OPTIONS, PIPELINE_USAGE);
  const [sub, ...positionals] = words;
  if (values.help || sub === 'help') {
    process.stdout.write(PIPELINE_USAGE + '\n');
    return 0;
  }
  if (sub === undefined) throw usage('pipeline needs a subcommand: list, run, resume or cancel (e.g. baton pipeline list)');
  if (values['forget-agents'] && sub !== 'resume') throw usage(`--forget-agents is an option of pipeline resume only`);
  switch (sub) {
    case 'list':
      if (positionals.length) throw usage(`pipeline list takes no arguments (got "${positionals.join(' ')}")`);
      baselineWasmOnly();
      return list(values);
    case 'run': {
      if (positionals.length !== 1) throw usage('pipeline run needs exactly one NAME or FILE');
      if (values.input === undefined) throw usage('pipeline run needs --input TEXT (the task; {{system.input}} in templates)');
      return run(positionals[0]!, values);
    }
    case 'resume':
      if (positionals.length !== 1) throw usage(`pipeline resume needs exactly one RUN id (see baton pipeline list${dbFlagFor(dbPathOf(values))})`);
      return resume(positionals[0]!, values);
    case 'cancel':
      if (positionals.length !== 1) throw usage(`pipeline cancel needs exactly one RUN id (see baton pipeline list${dbFlagFor(dbPathOf(values))})`);
      baselineWasmOnly();
      return cancel(positionals[0]!, values);
    default:
      throw usage(`unknown pipeline subcommand "${sub}" (expected list, run, resume or cancel)`);
  }
}

type Values = ReturnType<typeof parse<typeof RUN_OPTIONS>>['values'];

function budgetOf(values: Values): Budget | undefined {
  const tokens = numberFlag(values['budget-tokens'], { flag: '--budget-tokens', unit: 'tokens', min: 0, examples: ['200000'] }, PIPELINE_USAGE);
  const usd = numberFlag(values['budget-usd'], { flag: '--budget-usd', unit: 'US dollars', fraction: true, min: 0, examples: ['2.50'] }, PIPELINE_USAGE);
  const out: Budget = { ...(tokens === undefined ? {} : { tokens }), ...(usd === undefined ? {} : { usd }) };
  return Object.keys(out).length ? out : undefined;
}

function varsOf(values: Values): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of values.var ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(kv.slice(0, eq))) throw usage(`--var must be KEY=VALUE with KEY of letters, digits and _ (got "${kv}")`);
    out[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return out;
}

async function list(values: Values): Promise<number> {
  const workspace = workspaceOf(values);
  const systems = listSystems(workspace).map((s) => ({
    name: s.name, path: s.path, valid: s.system !== undefined, agents: s.system?.agents.length ?? 0, steps: s.system?.workflow.length ?? 0,
    problems: s.problems.map((p) => `${p.path}${p.line ? `:${p.line}` : ''}: ${p.message}`),
  }));
  const dbPath = dbPathOf(values);
  let runs: PipelineRunSummary[] = [];
  try {
    runs = await withCore(
      { dbPath, access: 'read', workspace: workspaceOf(values), log: cliLog('warn'), missing: () => new BatonError('store_missing', 'no database') },
      async (owner) => ((await callControl(owner, { op: 'pipeline_runs' })) as { result: PipelineRunSummary[] }).result,
      async (baton) => pipelineHost(baton)?.pipelines.list() ?? [],
    );
  } catch (ex) {
    if (!BatonError.is(ex, 'store_missing')) throw ex;
  }
  if (values.json) {
    process.stdout.write(JSON.stringify({ systems, runs }) + '\n');
    return 0;
  }
  const lines = ['Pipelines:'];
  for (const s of systems) lines.push(`  ${s.name}  ${s.valid ? `${plural(s.agents, 'agent')}, ${plural(s.steps, 'step')}` : 'INVALID'}  ${s.path}`, ...s.problems.map((p) => `      ${p}`));
  if (!systems.length) lines.push(`  (none in .baton/pipelines; make one with baton blueprint new NAME --from BLUEPRINT${flagsFor('baton blueprint', dbPath, values.workspace)})`);
  lines.push('Runs:');
  const db = dbFlagFor(dbPath);
  let cut = false; // a failure reason below was cut to its first sentence and next step
  for (const r of runs) {
    // Why it paused, while it is paused (a run cancelled while paused keeps the reason in its record), or why it failed.
    let why = '';
    if (r.status === 'paused' && r.pauseReason) why = ` (${r.pauseReason})`;
    else if (r.error) {
      const reason = cutReason(r.error);
      cut ||= reason.cut;
      why = ` (${reason.text})`;
    } else if (r.orphaned) why = ` (the process running it ended; go on with baton pipeline resume ${r.runId}${db})`;
    lines.push(`  ${r.runId}  ${r.system}  ${statusText(r.status, r.cancelled)}${why}  ${plural(r.usage?.tokens ?? 0, 'token')}  $${(r.usage?.costUsd ?? 0).toFixed(4)}  ${r.startedAt}`);
    for (const a of r.agents ?? []) if (a.state === 'left running') lines.push(`      ${leftRunning(r, a, db)}`);
  }
  if (!runs.length) lines.push('  (none)');
  // Say where a reason cut short above is whole.
  if (cut) lines.push(`(A reason cut short here is whole in baton pipeline list --json${db}.)`);
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

/** A line on an agent whose run's process has ended while the agent runs on, with how to stop it (`db`: dbFlagFor's). */
function leftRunning(run: PipelineRunSummary, a: LiveAgent, db: string): string {
  const step = a.slot === a.agent ? '' : ` (step ${a.slot})`;
  const fix = run.status === 'completed' || run.status === 'failed' ? `stop it with kill -TERM -- -${a.pgid}` : `baton pipeline resume ${run.runId}${db} stops it`;
  return `agent ${a.agent}${step} is still running (${a.runner}, pid ${a.pid}), but the process that ran it (pid ${a.ownerPid}) has ended; ${fix}`;
}

async function run(target: string, values: Values): Promise<number> {
  const workspace = workspaceOf(values);
  const budget = budgetOf(values);
  const variables = varsOf(values);
  // A FILE is read from the current folder, as the other commands read theirs; a NAME is looked up in the workspace.
  if (/\.ya?ml$/.test(target)) fileArgument(target, values.workspace);
  const { system, path, warnings } = loadSystem(target, workspace, process.cwd());
  printWarnings(warnings);
  const where = await ownerTaking(values, async (remote) => {
    const started = (await callControl(remote, { op: 'pipeline_start', system, input: values.input!, variables, budget, cwd: workspace, source: path })) as { result: { runId: string } };
    return () => followRemote(remote, started.result.runId, values, 'run_started', system.name);
  });
  if ('follow' in where) return where.follow();
  const { owner } = where;
  try {
    const runId = await owner.opened.baton.pipelines.start(system, { input: values.input!, variables, budget, cwd: workspace, source: path });
    return await follow(owner, runId, values, 'run_started');
  } finally {
    await othersDoneHere(owner);
    await owner.close();
  }
}

/** The runs other `baton pipeline` commands started in this process, waited for before it closes the database. */
function othersDoneHere(owner: Owner): Promise<void> {
  const pipelines = owner.opened.baton.pipelines;
  return othersDone('pipeline runs', () => pipelines.drivingIds(), () => {
    // As those commands' own Ctrl-C would: each run pauses, to go on with `baton pipeline resume`.
    for (const id of pipelines.drivingIds()) pipelines.interrupt(id, INTERRUPTED);
  }, () => owner.endpoint.busy(), pipelines.drivenCount > 1); // its own run is one of them
}

async function resume(runId: string, values: Values): Promise<number> {
  // No database: no run to resume (and none is made for it).
  if (!existsSync(dbPathOf(values))) throw missingDatabase(dbPathOf(values), values, `There is no run ${runId} to resume.`);
  const forgetAgents = values['forget-agents'] === true;
  // A run still over its budget: the refusal says what the limit must pass, and here, with which flag.
  const stillOver = (ex: unknown): never => {
    if (!BatonError.is(ex, 'budget_exceeded' as never)) throw ex;
    const limit = ex.details.limit === 'tokens' || ex.details.limit === 'usd' ? ex.details.limit : null;
    throw new CliError(`${ex.message} For example: baton pipeline resume ${runId}${dbFlagFor(dbPathOf(values))} ${budgetFlag(limit)}`, 1);
  };
  const where = await ownerTaking(values, async (remote) => {
    // The run's timeline so far is its earlier passes': only what this pass adds is shown.
    const earlier = ((await callControl(remote, { op: 'events', execution_id: runId })) as { result: TimelineEvent[] }).result.length;
    const resumed = (await callControl(remote, { op: 'pipeline_resume', run_id: runId, budget: budgetOf(values), forget_agents: forgetAgents }).catch(stillOver)) as { result: { agents?: string[] } };
    tellAgents(resumed.result.agents ?? []);
    const name = ((await callControl(remote, { op: 'pipeline_run', run_id: runId })) as { result: PipelineRunView }).result.system.name;
    return () => followRemote(remote, runId, values, 'run_resumed', name, earlier);
  });
  if ('follow' in where) return where.follow();
  const { owner } = where;
  try {
    const pipelines = owner.opened.baton.pipelines;
    tellAgents((await pipelines.prepareResume(runId, budgetOf(values), { forgetAgents }).catch(stillOver)).map((o: LeftoverOutcome) => o.message));
    return await follow(owner, runId, values, 'run_resumed');
  } finally {
    await othersDoneHere(owner);
    await owner.close();
  }
}

/** Why runs this process hosted for other commands paused when it was stopped (their commands' own Ctrl-C would). */
const INTERRUPTED = interruptedReason('the Baton process running it was stopped');

/** Why a run paused when a person stopped the command driving it. */
function interruptedBy(signal: NodeJS.Signals): string {
  return interruptedReason(signal === 'SIGINT' ? 'Ctrl-C' : signal === 'SIGHUP' ? 'the terminal closed' : signal);
}

/** How a paused run goes on: resumed as it is (interrupted), or with a higher budget. */
function howToGoOn(runId: string, why: string | null, values: Values): string {
  const db = dbFlagFor(dbPathOf(values));
  if (isInterruption(why)) return `Go on from the step it stopped: baton pipeline resume ${runId}${db} (or end it: baton pipeline cancel ${runId}${db})`;
  return `Raise the budget and go on: baton pipeline resume ${runId}${db} ${budgetFlag(budgetOverrun(why ?? '')?.limit ?? null)}`;
}

/** The flag that raises the limit a run passed (its pause reason's, or its resume refusal's); both when neither says. */
function budgetFlag(limit: 'tokens' | 'usd' | null): string {
  if (limit === 'tokens') return '--budget-tokens N';
  if (limit === 'usd') return '--budget-usd X';
  return '--budget-tokens N --budget-usd X';
}

/** Ends a run that will not go on (a paused one, say): cancelled, in the owner if one runs it. */
async function cancel(runId: string, values: Values): Promise<number> {
  // Each check refuses an id that is no pipeline run.
  const summary = await cancelExecution(runId, values, {
    missing: `There is no run ${runId} to cancel.`,
    by: 'cli',
    allowedVia: async (owner) => void (await callControl(owner, { op: 'pipeline_usage', run_id: runId })),
    allowedIn: (baton) => void pipelineHost(baton)?.pipelines.run(runId),
  });
  if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
  else process.stdout.write(`Cancelled run ${summary.execution_id}.\n`);
  return 0;
}

/** What resuming did with the agents the run's earlier process left running (also in the run's events). */
function tellAgents(messages: string[]): void {
  for (const m of messages) process.stderr.write(`baton: ${m}\n`);
}

/** Drives the run with live progress; Ctrl-C (or the terminal closing) pauses it. */
async function follow(owner: Owner, runId: string, values: Values, first: 'run_started' | 'run_resumed'): Promise<number> {
  const pipelines = owner.opened.baton.pipelines;
  const exec = pipelines.run(runId);
  const live = process.stdout.isTTY === true && !values.json;
  const db = dbFlagFor(dbPathOf(values));
  const view = live ? new ProgressView(process.stdout, exec.metadata.system, runId, exec.metadata.budget, db) : null;
  const emit = (p: PipelineProgress | { type: string; [k: string]: unknown }) => {
    if (view) view.update(p as PipelineProgress);
    else process.stdout.write(JSON.stringify(p) + '\n');
  };
  emit({ type: first, runId, system: exec.metadata.system.name, approve: `baton approve ${runId}${db}` });
  // A person stopping the command pauses the run: the step it stopped runs again on resume, finished ones do not.
  const stopListening = onStopSignal((signal) => pipelines.interrupt(runId, interruptedBy(signal)));
  let outcome: RunOutcome;
  try {
    outcome = await pipelines.drive(runId, { onProgress: emit });
  } finally {
    stopListening();
    view?.close();
  }
  const usage = pipelines.usage(runId);
  // A pass stopped under it ("aborted") was cancelled by another command, or in the editor: it says so, and by whom.
  const how = outcome.status === 'aborted' ? cancelledHow(owner.opened.baton.events(runId)) : null;
  const { status, error } = how === null ? outcome : { status: 'cancelled', error: how || null };
  if (view) {
    process.stdout.write(`Run ${runId}: ${status}${error ? ` (${error})` : ''}; ${plural(usage.total.tokens, 'token')}, $${usage.total.costUsd.toFixed(4)}\n`);
    if (status === 'paused') process.stdout.write(`${howToGoOn(runId, error, values)}\n`);
  } else {
    emit({ type: 'summary', runId, status, error, usage });
  }
  if (status === 'completed') return 0;
  if (status === 'paused') {
    if (!view) process.stderr.write(`baton: run ${runId} paused (${error ?? ''}). ${howToGoOn(runId, error, values)}\n`);
    return 3;
  }
  if (!view) process.stderr.write(`baton: run ${runId} ${endedText(status, error)}\n`);
  return 1;
}

/**
 * Who cancelled a run and why, from its last `workflow_cancelled` event, as "cancelled (…)" says it: "by baton
 * pipeline cancel", "by the editor", "no activity for more than 30 days, by the retention policy"; null if it was
 * not cancelled.
 */
function cancelledHow(events: TimelineEvent[]): string | null {
  const e = [...events].reverse().find((x) => x.event_type === 'workflow_cancelled');
  return e ? cancelledText(e.event_data) : null;
}

/** How a run that did not complete or pause ended, after "run RUN": "failed: step two: …", "cancelled (by …)". */
function endedText(status: string, error: string | null): string {
  if (status === 'cancelled') return `cancelled${error ? ` (${error})` : ''}`;
  return `${status}: ${error ?? ''}`;
}

type Emit = (p: PipelineProgress | { type: string; [k: string]: unknown }) => void;

/** Progress events from the run's timeline, for a run the live owner drives. */
function fromTimeline(runId: string, e: TimelineEvent): PipelineProgress | null {
  const d = (e.event_data ?? {}) as Record<string, unknown>;
  const step = String(d.step_name ?? '');
  const usage = (d.usage ?? ZERO_USAGE) as TokenUsage;
  switch (e.event_type) {
    case 'step_started':
      return { type: 'step_started', runId, step, stepType: d.type as 'agent', agent: (d.agent as string | null) ?? null, attempt: Number(d.attempt ?? 1) };
    case 'gate_requested':
      return { type: 'step_awaiting_approval', runId, step, prompt: String(d.prompt ?? '') };
    case 'step_completed':
      return { type: 'step_completed', runId, step, output: '', usage, costUsd: (d.cost_usd as number | null) ?? null, replayed: false };
    case 'step_failed':
      return { type: 'step_failed', runId, step, error: String(d.error ?? '') };
    // The run's end, as a run this process drives reports it (a cancelled one as failed, as the engine does).
    case 'pipeline_interrupted':
    case 'budget_exceeded':
      return { type: 'run_finished', runId, status: 'paused', error: String(d.reason ?? '') };
    case 'workflow_failed':
    case 'workflow_cancelled':
      return { type: 'run_finished', runId, status: 'failed', error: String(d.error ?? d.reason ?? '') };
    case 'workflow_completed':
      return { type: 'run_finished', runId, status: 'completed', error: null };
    default:
      return null;
  }
}

/** Follows a run the live owner drives: its timeline as progress; Ctrl-C pauses it there. */
async function followRemote(
  remote: DiscoveryInfo, runId: string, values: Values, first: 'run_started' | 'run_resumed', name: string | null, earlier = 0,
): Promise<number> {
  const db = dbFlagFor(dbPathOf(values));
  const view = process.stdout.isTTY === true && !values.json
    ? new ProgressView(process.stdout, { name: name ?? runId, description: '', agents: [], workflow: [] }, runId, null, db)
    : null;
  const emit: Emit = (p) => (view ? view.update(p as PipelineProgress) : process.stdout.write(JSON.stringify(p) + '\n'));
  emit({ type: first, runId, system: name, approve: `baton approve ${runId}${db}`, owner: remote.pid });
  // Why this command cancelled the run itself (its owner, of an older Baton, cannot pause it); null if it did not.
  let cancelledHere: string | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    // The run pauses in the owner, to go on with `baton pipeline resume`; an owner of an older Baton cancels it.
    const why = interruptedBy(signal);
    void callControl(remote, { op: 'pipeline_interrupt', run_id: runId, reason: why }).catch(() => {
      cancelledHere = `${why}; Baton process ${remote.pid}, which runs it, is too old to pause a run`;
      return callControl(remote, { op: 'cancel', execution_id: runId, reason: why, by: 'cli' });
    }).catch(() => {});
  };
  const stopListening = onStopSignal(onSignal);
  let seen = earlier;
  let status: WorkflowStatusResource['status'];
  let error: string | null = null;
  let cancelled: string | null = null; // who cancelled it and why (cancelledHow), if it was
  let usage: RunUsage;
  try {
    for (;;) {
      let events: TimelineEvent[];
      let left: PipelineRunView | null = null; // the run as its owner left it, once that owner is gone
      try {
        status = ((await callControl(remote, { op: 'workflow_status', id: runId })) as { result: WorkflowStatusResource }).result.status;
        events = ((await callControl(remote, { op: 'events', execution_id: runId })) as { result: TimelineEvent[] }).result;
      } catch (ex) {
        if (!BatonError.is(ex, 'owner_unreachable')) throw ex;
        // The owner stops under this command (it pauses the runs it drives before it closes the database), or died:
        // once it is gone, the run is read from the database as it left it, with the events this command missed (a
        // cancel, a failure just before it died), so that its end is told as when it is seen live.
        ({ run: left, events } = await runAsLeft(remote.pid, runId, values, () => missingDatabase(dbPathOf(values), values, `There is no run ${runId}.`)));
        status = left.status;
      }
      for (const e of events.slice(seen)) {
        const p = fromTimeline(runId, e);
        if (p) emit(p);
        const d = e.event_data as Record<string, unknown>;
        if (e.event_type === 'workflow_failed') error = String(d.error ?? 'failed');
        if (e.event_type === 'workflow_cancelled') cancelled = cancelledHow([e]);
        if (e.event_type === 'budget_exceeded') error = String(d.reason ?? 'budget_exceeded');
        if (e.event_type === 'pipeline_interrupted') error = String(d.reason ?? 'interrupted');
      }
      seen = events.length;
      if (left) {
        if (status === 'paused') error = left.pauseReason ?? error;
        else if (status !== 'completed' && status !== 'failed') {
          error = `Baton process ${remote.pid}, which ran it, ended`;
          // Its steps still going stopped with their owner, and run again on resume, as a paused run's do.
          view?.update({ type: 'run_finished', runId, status: 'paused', error });
        }
        usage = left.usage;
        break;
      }
      if (status === 'completed' || status === 'failed' || status === 'paused') {
        usage = ((await callControl(remote, { op: 'pipeline_usage', run_id: runId })) as { result: RunUsage }).result;
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    stopListening();
    view?.close();
  }
  if (status !== 'completed' && status !== 'failed' && status !== 'paused') {
    // Its owner died while it ran: neither failed nor ended, it goes on from the step it stopped with `baton pipeline
    // resume` (which stops an agent left running), as an interrupted run does; so it exits as one does.
    const how = howToGoOn(runId, interruptedReason(error ?? ''), values);
    if (view) process.stdout.write(`Run ${runId}: stopped (${error}); ${plural(usage.total.tokens, 'token')}, $${usage.total.costUsd.toFixed(4)}\n${how}\n`);
    else {
      emit({ type: 'summary', runId, status: 'interrupted', error, usage, owner: remote.pid });
      process.stderr.write(`baton: run ${runId} stopped: ${error}. ${how}\n`);
    }
    return 3;
  }
  const outcome = status === 'completed' ? 'completed' : status === 'paused' ? 'paused' : cancelled !== null || cancelledHere !== null ? 'cancelled' : 'failed';
  if (outcome === 'cancelled') error = cancelledHere ?? (cancelled || null);
  if (view) process.stdout.write(`Run ${runId}: ${outcome}${error ? ` (${error})` : ''}; ${plural(usage.total.tokens, 'token')}, $${usage.total.costUsd.toFixed(4)}\n`);
  else emit({ type: 'summary', runId, status: outcome, error: outcome === 'completed' ? null : error, usage, owner: remote.pid });
  if (outcome === 'completed') return 0;
  if (outcome === 'paused') {
    if (view) process.stdout.write(`${howToGoOn(runId, error, values)}\n`);
    else process.stderr.write(`baton: run ${runId} paused (${error ?? ''}). ${howToGoOn(runId, error, values)}\n`);
    return 3;
  }
  if (!view) process.stderr.write(`baton: run ${runId} ${endedText(outcome, error)}\n`);
  return 1;
}
