// The owner's /control operations: the CLI's decide/status and the reads and calls an editor client needs; parsed,
// checked and run against the core, with domain errors mapped to HTTP statuses.
import type { ArtifactQuery, BatonApi, GateDecision } from '../core/api.js';
import { BatonError, type ErrorReason } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import type { PruneRequest } from '../core/retention.js';
import type { CallContext, NextStepRequest } from '../core/types.js';
import { formatProblems, parseSystemFile } from '../core/pipelines/systemFile.js';
import type { Budget } from '../core/pipelines/types.js';
import { pipelineHost } from '../core/pipelines/host.js';
import { teamHost } from '../core/worker/host.js';
import { buildTeamView } from './teamView.js';
import { isTeamOp, parseTeamOp, runTeamOp, TEAM_OPS, type TeamControlRequest } from './worker/teamControl.js';

/** A control request: the CLI's decide/status, and the reads and calls an editor client needs. */
export type ControlRequest =
  | ({ op: 'decide' } & GateDecision)
  | { op: 'status' | 'executions'; active_only?: boolean; limit?: number; ids?: readonly string[] }
  | { op: 'current_step'; id?: string }
  | { op: 'workflow_status'; id?: string; artifacts?: boolean }
  | { op: 'events' | 'findings'; execution_id: string }
  | { op: 'artifact'; artifact_id: string }
  | { op: 'workflows' | 'templates' | 'guardrails' | 'pipeline_runs' }
  | { op: 'artifacts'; query: ArtifactQuery }
  | { op: 'cancel'; execution_id: string; reason?: string; by?: string }
  | { op: 'release'; execution_id: string; step_name?: string; by?: string }
  | { op: 'next_step'; request: NextStepRequest; context?: CallContext }
  | { op: 'start_workflow'; template_name: string; task_description?: string; context?: CallContext }
  | { op: 'pipeline_start'; system: unknown; input: string; variables?: Record<string, string>; budget?: Budget; cwd: string; source?: string }
  | { op: 'pipeline_resume'; run_id: string; budget?: Budget; forget_agents?: boolean }
  | { op: 'pipeline_usage'; run_id: string }
  | { op: 'pipeline_interrupt'; run_id: string; reason: string }
  | { op: 'pipeline_run'; run_id: string }
  | { op: 'spec_start'; source: string; template_name?: string; task_description?: string }
  | { op: 'spec_status'; id?: string }
  | { op: 'spec_list'; source?: string }
  | ({ op: 'prune' } & PruneRequest)
  | { op: 'team_runs'; agent_limit?: number }
  | { op: 'team_view'; run_id: string }
  | TeamControlRequest;

/** HTTP status of a domain error. */
function statusOf(reason: ErrorReason): number {
  if (reason === 'invalid_input') return 400;
  if (reason === 'unauthorized') return 401;
  if (reason.endsWith('not_found')) return 404;
  if (reason === 'invalid_state' || reason === 'phase_locked') return 409;
  if (reason === 'source_parse_failed' || reason === 'source_outside_workspace' || reason.endsWith('_out_of_range') || reason === 'evidence_incomplete') return 422;
  if (reason === 'rate_limited') return 429;
  return 500;
}

/** Checks and runs one control request; never throws. */
export async function handleControl(baton: BatonApi, raw: string, log: Log): Promise<{ status: number; body: unknown }> {
  try {
    return { status: 200, body: await runControl(baton, parseControl(raw), log) };
  } catch (ex) {
    if (BatonError.is(ex)) return { status: statusOf(ex.reason), body: { error: { reason: ex.reason, message: ex.message, ...detailsOf(ex) } } };
    log.error('control request failed', ex);
    return { status: 500, body: { error: { reason: 'internal', message: "internal error; see Baton's log" } } };
  }
}

/** Runs a parsed control request; the body of the 200 answer. */
async function runControl(baton: BatonApi, req: ControlRequest, log: Log): Promise<unknown> {
  if (isTeamOp(req)) return runTeamOp(baton, req);
  switch (req.op) {
    case 'status':
    case 'executions':
      return { executions: baton.listExecutions({ active_only: req.active_only, limit: req.limit, ids: req.ids }) };
    case 'workflow_status':
      return { result: baton.workflowStatus(req.id, req.artifacts === false ? { artifacts: false } : {}) };
    case 'current_step':
      return { result: baton.currentStep(req.id) };
    case 'events':
      return { result: baton.events(req.execution_id) };
    case 'findings':
      return { result: baton.lifecycle.queryFindings({ executionId: req.execution_id, limit: 500 }).findings };
    case 'workflows':
      return { result: baton.availableWorkflows() };
    case 'templates':
      return { result: baton.templates() };
    case 'guardrails':
      return { result: baton.guardrails() };
    case 'pipeline_runs':
      return { result: pipelineHost(baton)?.pipelines.list() ?? [] };
    case 'artifacts':
      return { result: baton.artifacts(req.query) };
    case 'artifact':
      return { result: baton.artifact(req.artifact_id) ?? null };
    case 'cancel':
      return { result: await baton.cancel(req.execution_id, req.reason, req.by) };
    case 'release':
      return { result: await baton.release(req.execution_id, req.step_name, req.by) };
    case 'next_step':
      return { result: await baton.nextStep(req.request, req.context) };
    case 'start_workflow':
      return { result: await baton.startWorkflow(req.template_name, req.task_description, req.context) };
    case 'pipeline_start':
    case 'pipeline_resume':
    case 'pipeline_usage':
    case 'pipeline_run':
    case 'pipeline_interrupt':
      return runPipelineOp(baton, req, log);
    case 'spec_start':
      return { result: await baton.specs.start({ source: req.source, template_name: req.template_name, task_description: req.task_description }) };
    case 'spec_status':
      return { result: await baton.specs.status(req.id) };
    case 'spec_list':
      return { result: baton.specs.list({ source: req.source }) };
    case 'team_runs':
    case 'team_view':
      return runTeamViewOp(baton, req);
    case 'prune': {
      const { op: _op, ...prune } = req;
      return { result: await baton.prune(prune) };
    }
    case 'decide': {
      const { op: _op, ...decision } = req;
      return { result: await baton.decide(decision) };
    }
  }
}

/** The editor's reads of team runs (tree and panel) when a terminal Baton owns the database. */
async function runTeamViewOp(baton: BatonApi, req: { op: 'team_runs'; agent_limit?: number } | { op: 'team_view'; run_id: string }): Promise<unknown> {
  const teams = teamHost(baton)?.teams;
  if (!teams) throw new BatonError('invalid_state', 'this Baton process does not record team runs');
  return { result: req.op === 'team_runs' ? teams.list({ agentLimit: req.agent_limit }) : await buildTeamView(teams, req.run_id) };
}

/** Pipeline runs started or resumed by a CLI while this process owns the database: they run here, in the background. */
async function runPipelineOp(baton: BatonApi, req: Extract<ControlRequest, { op: `pipeline_${string}` }>, log: Log): Promise<unknown> {
  const pipelines = pipelineHost(baton)?.pipelines;
  if (!pipelines) throw new BatonError('invalid_state', 'this Baton process does not run pipelines');
  if (req.op === 'pipeline_usage') return { result: pipelines.usage(pipelines.run(req.run_id).execution_id) };
  if (req.op === 'pipeline_run') return { result: pipelines.view(req.run_id) };
  if (req.op === 'pipeline_interrupt') {
    // The following command's Ctrl-C: the run pauses here, to go on with `baton pipeline resume`.
    if (!pipelines.interrupt(pipelines.run(req.run_id).execution_id, req.reason)) {
      throw new BatonError('invalid_state', `Run ${req.run_id} is not running in this Baton process (pid ${process.pid}).`);
    }
    return { result: { runId: req.run_id } };
  }
  let runId: string;
  let agents: string[] = [];
  if (req.op === 'pipeline_start') {
    // The client parsed the file; the system is checked again here (JSON is YAML) before anything runs.
    const parsed = parseSystemFile(JSON.stringify(req.system), 'pipeline_start.system', 'pipeline');
    if (!parsed.value) throw new BatonError('invalid_input', `system is not valid:\n${formatProblems(parsed.problems)}`);
    runId = await pipelines.start(parsed.value, { input: req.input, variables: req.variables, budget: req.budget, cwd: req.cwd, source: req.source });
  } else {
    runId = req.run_id;
    agents = (await pipelines.prepareResume(runId, req.budget, { forgetAgents: req.forget_agents })).map((o) => o.message);
  }
  void pipelines.drive(runId).catch((ex: unknown) => log.error(`pipeline run ${runId} failed`, ex));
  // What was done with the agents the run's earlier process left running, for the client to show.
  return { result: { runId, ...(agents.length ? { agents } : {}) } };
}

/** An optional budget field. */
function budgetField(body: Record<string, unknown>): Budget | undefined {
  const b = body.budget;
  if (b === undefined) return undefined;
  if (b === null || typeof b !== 'object' || Array.isArray(b)) throw new BatonError('invalid_input', 'budget must be a JSON object { tokens?, usd? }');
  const { tokens, usd } = b as Record<string, unknown>;
  if ((tokens !== undefined && typeof tokens !== 'number') || (usd !== undefined && typeof usd !== 'number')) throw new BatonError('invalid_input', 'budget.tokens and budget.usd must be numbers');
  return { ...(tokens !== undefined ? { tokens: tokens as number } : {}), ...(usd !== undefined ? { usd: usd as number } : {}) };
}

/** An optional string field, or a BatonError naming it. */
function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  if (body[key] !== undefined && typeof body[key] !== 'string') throw new BatonError('invalid_input', `${key} must be a string`);
  return body[key] as string | undefined;
}

/** A required non-empty string field, or a BatonError naming it. */
function requiredString(body: Record<string, unknown>, key: string): string {
  if (typeof body[key] !== 'string' || !body[key]) throw new BatonError('invalid_input', `${key} must be a non-empty string`);
  return body[key] as string;
}

/** The optional `ids` of an executions listing: execution ids (the core checks how many). */
function idsField(body: Record<string, unknown>): { ids?: readonly string[] } {
  if (body.ids === undefined) return {};
  if (!Array.isArray(body.ids) || !body.ids.every((id) => typeof id === 'string')) {
    throw new BatonError('invalid_input', 'ids must be an array of execution ids (strings), or left out to list the newest');
  }
  return { ids: body.ids as string[] };
}

/** A JSON object field (the broker and the artifact query check their own shapes). */
function objectField<T>(body: Record<string, unknown>, key: string): T {
  const v = body[key];
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new BatonError('invalid_input', `${key} must be a JSON object`);
  return v as T;
}

const ARTIFACT_QUERY_TYPES = new Set(['recent', 'by_type', 'final', 'execution']);

/** Parses the ops other than decide and status. */
function parseReadOp(body: Record<string, unknown>): ControlRequest | null {
  switch (body.op) {
    case 'executions':
      return {
        op: 'executions', active_only: body.active_only === true, limit: typeof body.limit === 'number' ? body.limit : undefined,
        ...idsField(body),
      };
    case 'workflow_status':
      if (body.artifacts !== undefined && typeof body.artifacts !== 'boolean') {
        throw new BatonError('invalid_input', 'artifacts must be true or false (false: the steps\' artifacts are left out)');
      }
      return { op: 'workflow_status', id: optionalString(body, 'id'), artifacts: body.artifacts as boolean | undefined };
    case 'current_step':
      return { op: body.op, id: optionalString(body, 'id') };
    case 'events':
    case 'findings':
      return { op: body.op, execution_id: requiredString(body, 'execution_id') };
    case 'workflows':
    case 'templates':
    case 'guardrails':
    case 'pipeline_runs':
      return { op: body.op };
    case 'artifact':
      return { op: 'artifact', artifact_id: requiredString(body, 'artifact_id') };
    case 'artifacts': {
      const query = objectField<ArtifactQuery>(body, 'query');
      if (!ARTIFACT_QUERY_TYPES.has(query.type) || typeof query.limit !== 'number' || query.limit < 1) {
        throw new BatonError('invalid_input', 'query must be an artifact query: { type: recent|by_type|final|execution, limit ≥ 1, … }');
      }
      return { op: 'artifacts', query };
    }
    case 'cancel':
      return { op: 'cancel', execution_id: requiredString(body, 'execution_id'), reason: optionalString(body, 'reason'), by: optionalString(body, 'by') };
    case 'release':
      return { op: 'release', execution_id: requiredString(body, 'execution_id'), step_name: optionalString(body, 'step_name'), by: optionalString(body, 'by') };
    case 'next_step':
      return {
        op: 'next_step',
        request: objectField<NextStepRequest>(body, 'request'),
        context: body.context === undefined ? undefined : objectField<CallContext>(body, 'context'),
      };
    case 'start_workflow':
      return {
        op: 'start_workflow',
        template_name: requiredString(body, 'template_name'),
        task_description: optionalString(body, 'task_description'),
        context: body.context === undefined ? undefined : objectField<CallContext>(body, 'context'),
      };
    case 'pipeline_start': {
      const variables = body.variables === undefined ? undefined : objectField<Record<string, string>>(body, 'variables');
      if (variables && Object.values(variables).some((v) => typeof v !== 'string')) throw new BatonError('invalid_input', 'variables must map names to strings');
      return {
        op: 'pipeline_start', system: objectField<unknown>(body, 'system'), input: typeof body.input === 'string' ? body.input : requiredString(body, 'input'),
        variables, budget: budgetField(body), cwd: requiredString(body, 'cwd'), source: optionalString(body, 'source'),
      };
    }
    case 'pipeline_resume':
      if (body.forget_agents !== undefined && typeof body.forget_agents !== 'boolean') throw new BatonError('invalid_input', 'forget_agents must be a boolean');
      return { op: 'pipeline_resume', run_id: requiredString(body, 'run_id'), budget: budgetField(body), forget_agents: body.forget_agents as boolean | undefined };
    case 'pipeline_usage':
    case 'pipeline_run':
      return { op: body.op, run_id: requiredString(body, 'run_id') };
    case 'pipeline_interrupt':
      return { op: 'pipeline_interrupt', run_id: requiredString(body, 'run_id'), reason: requiredString(body, 'reason') };
    case 'spec_start':
      return { op: 'spec_start', source: requiredString(body, 'source'), template_name: optionalString(body, 'template_name'), task_description: optionalString(body, 'task_description') };
    case 'spec_status':
      return { op: 'spec_status', id: optionalString(body, 'id') };
    case 'spec_list':
      return { op: 'spec_list', source: optionalString(body, 'source') };
    case 'prune':
      return parsePrune(body);
    case 'team_runs': {
      const limit = body.agent_limit;
      if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)) {
        throw new BatonError('invalid_input', 'agent_limit must be a whole number of at least 1 (or left out for every agent)');
      }
      return { op: 'team_runs', agent_limit: limit };
    }
    case 'team_view':
      return { op: 'team_view', run_id: requiredString(body, 'run_id') };
    default:
      return null;
  }
}

/** `prune`: days, max_runs and idle_days whole numbers ≥ 0 (checked again by the core), dry_run and compact booleans; all optional. */
function parsePrune(body: Record<string, unknown>): ControlRequest {
  const req: { op: 'prune' } & PruneRequest = { op: 'prune' };
  for (const key of ['days', 'max_runs', 'idle_days'] as const) {
    const v = body[key];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new BatonError('invalid_input', `${key} must be a whole number ≥ 0`);
    req[key] = v;
  }
  for (const key of ['dry_run', 'compact'] as const) {
    const v = body[key];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') throw new BatonError('invalid_input', `${key} must be true or false`);
    req[key] = v;
  }
  return req;
}

/** How an owner begins its refusal of an op it does not have, before the list of those it has (controlClient reads it). */
export const UNKNOWN_OP = 'op must be one of ';

const CONTROL_OPS = `decide, status, executions, workflow_status, current_step, events, findings, workflows, templates, guardrails, pipeline_runs, pipeline_start, pipeline_resume, pipeline_usage, pipeline_run, pipeline_interrupt, artifact, artifacts, cancel, release, next_step, start_workflow, spec_start, spec_status, spec_list, prune, team_runs, team_view, ${TEAM_OPS.join(', ')}`;

/** Parses and validates a control body. */
function parseControl(raw: string): ControlRequest {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new BatonError('invalid_input', 'control body must be JSON');
  }
  if (body === null || typeof body !== 'object') throw new BatonError('invalid_input', 'control body must be a JSON object');
  if (body.op === 'status') {
    return { op: 'status', active_only: body.active_only === true, limit: typeof body.limit === 'number' ? body.limit : undefined };
  }
  const other = parseReadOp(body) ?? parseTeamOp(body);
  if (other) return other;
  if (body.op !== 'decide') throw new BatonError('invalid_input', `${UNKNOWN_OP}${CONTROL_OPS}`);
  if (typeof body.execution_id !== 'string' || !body.execution_id) throw new BatonError('invalid_input', 'execution_id must be a non-empty string');
  if (body.decision !== 'approve' && body.decision !== 'reject') throw new BatonError('invalid_input', 'decision must be "approve" or "reject"');
  for (const key of ['step_name', 'feedback', 'by'] as const) {
    if (body[key] !== undefined && typeof body[key] !== 'string') throw new BatonError('invalid_input', `${key} must be a string`);
  }
  return {
    op: 'decide',
    execution_id: body.execution_id,
    decision: body.decision,
    step_name: body.step_name as string | undefined,
    feedback: body.feedback as string | undefined,
    by: body.by as string | undefined,
  };
}

/** A refusal's details for the answer, as JSON carries them (none: no field); they come back on the caller's BatonError. */
function detailsOf(ex: BatonError): { details?: Record<string, unknown> } {
  if (Object.keys(ex.details).length === 0) return {};
  try {
    return { details: JSON.parse(JSON.stringify(ex.details)) as Record<string, unknown> };
  } catch {
    return {};
  }
}
