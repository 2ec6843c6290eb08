// Calls a live owner's POST /control, for `baton approve|reject|status` run in another process.
import type { ExecutionSummary, GateDecisionResult } from '../core/api.js';
import type { PruneRequest, PruneResult } from '../core/retention.js';
import type { SpecPhaseResult, SpecStatus } from '../core/specTypes.js';
import { BatonError, type ErrorReason } from '../core/errors.js';
import { UNKNOWN_OP } from './controlOps.js';
import type { DiscoveryInfo } from './discovery.js';
import { connectionRefused, requestWithin, type HttpAnswer } from './requestWithin.js';
import type { ControlRequest } from './ownerServer.js';

/** The control URL of an owner whose MCP URL is `…/mcp`. */
function controlUrl(mcpUrl: string): string {
  return new URL('/control', mcpUrl).href;
}

/** The control ops that only read: one the owner did not answer did nothing, wherever the call broke off. */
const READ_OPS: ReadonlySet<ControlRequest['op']> = new Set<ControlRequest['op']>([
  'status', 'executions', 'workflow_status', 'current_step', 'events', 'findings', 'artifact', 'workflows', 'templates',
  'guardrails', 'pipeline_runs', 'artifacts', 'pipeline_usage', 'pipeline_run', 'spec_status', 'spec_list', 'team_runs',
  'team_view', 'team_list', 'team_peek', 'team_events',
]);

/** Whether a control op only reads: one the owner did not answer did nothing, and may be sent again. */
export function isReadOp(op: ControlRequest['op']): boolean {
  return READ_OPS.has(op);
}

/** Sends one control request; domain errors come back as BatonErrors with the owner's message. */
export async function callControl(owner: DiscoveryInfo, request: ControlRequest, timeoutMs = 10_000): Promise<unknown> {
  type Body = { error?: { reason?: string; message?: string; details?: Record<string, unknown> } };
  let res: HttpAnswer;
  let body: Body;
  try {
    [res, body] = await requestWithin(controlUrl(owner.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    }, timeoutMs, async (r) => [r, (await r.json().catch(() => ({}))) as Body] as const);
  } catch (ex) {
    const refused = connectionRefused(ex);
    // A request the owner may have read before it stopped answering (it died mid-call, say) may have been carried out.
    const mayHaveTaken = !refused && !READ_OPS.has(request.op)
      ? '; it may have carried the request out before it stopped answering: look (baton status) before running this again'
      : '';
    throw new BatonError(
      'owner_unreachable',
      `Baton process ${owner.pid} owns the database but its endpoint ${owner.url} does not answer (${request.op}: ${failure(ex)})${mayHaveTaken}`,
      { ownerPid: owner.pid, notTaken: refused },
    );
  }
  if (!res.ok) {
    const reason = (body.error?.reason ?? 'store_failed') as ErrorReason;
    const message = body.error?.message ?? `owner answered HTTP ${res.status}`;
    if (res.status === 400 && message.startsWith(UNKNOWN_OP) && !message.slice(UNKNOWN_OP.length).split(', ').includes(request.op)) {
      // An owner from an older Baton, which lists the ops it has: say that, not its list.
      throw new BatonError('invalid_state', `Baton process ${owner.pid} owns the database but is an older version that cannot "${request.op}"; restart it with this version of Baton (or stop it, and this command works on the file)`);
    }
    // 503: the owner is stopping and took nothing new.
    const details = typeof body.error?.details === 'object' && body.error.details !== null ? body.error.details : {};
    throw new BatonError(reason, message, res.status === 503 ? { ...details, notTaken: true } : details);
  }
  return body;
}

/** A failed request in words, with its cause (the error says only "fetch failed", as fetch's does). */
function failure(ex: unknown): string {
  const cause = (ex as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  return `${(ex as Error).message}${detail ? `: ${detail}` : ''}`;
}

/**
 * Whether a control request surely did nothing because its owner was gone or stopping (refused connection, 503): a
 * command may then take the database itself, or find the next owner, and send it again.
 */
export function notTaken(ex: unknown): boolean {
  return BatonError.is(ex) && ex.details.notTaken === true;
}

/** Approves or rejects through the owner. */
export async function decideViaOwner(owner: DiscoveryInfo, decision: Omit<Extract<ControlRequest, { op: 'decide' }>, 'op'>): Promise<GateDecisionResult> {
  const body = (await callControl(owner, { op: 'decide', ...decision })) as { result: GateDecisionResult };
  return body.result;
}

/** Lists executions through the owner. */
export async function statusViaOwner(owner: DiscoveryInfo, activeOnly: boolean, limit?: number): Promise<ExecutionSummary[]> {
  const body = (await callControl(owner, { op: 'status', active_only: activeOnly, ...(limit !== undefined ? { limit } : {}) })) as { executions: ExecutionSummary[] };
  return body.executions;
}

/** Prunes finished runs through the owner (which may take a while on a large database: it compacts too). */
export async function pruneViaOwner(owner: DiscoveryInfo, request: PruneRequest): Promise<PruneResult> {
  const body = (await callControl(owner, { op: 'prune', ...request }, 300_000)) as { result: PruneResult };
  return body.result;
}

/** Starts a spec workflow through the owner (the source as a path the owner's workspace holds). */
export async function specStartViaOwner(owner: DiscoveryInfo, source: string, taskDescription?: string): Promise<SpecPhaseResult> {
  const body = (await callControl(owner, { op: 'spec_start', source, task_description: taskDescription })) as { result: SpecPhaseResult };
  return body.result;
}

/** A spec workflow's status through the owner. */
export async function specStatusViaOwner(owner: DiscoveryInfo, id?: string): Promise<SpecStatus> {
  const body = (await callControl(owner, { op: 'spec_status', id })) as { result: SpecStatus };
  return body.result;
}
