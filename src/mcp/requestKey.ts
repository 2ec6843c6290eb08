// Request keys on MCP: a call that starts a run may carry a key in its request's `_meta`; the same start sent again
// with that key (its answer was lost: the process that owned the database died) answers with the run the first one
// started, and starts none. `baton mcp` adds a key to each start it forwards, to send it again to the next owner.
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../core/pipelines/streams/streamParser.js';
import { BatonError } from '../core/errors.js';
import { NEXT_STEP_TOOL } from '../core/broker/stepText.js';

/** Where a start's request key goes in `params._meta` (reverse-DNS prefixed, as MCP asks of `_meta` keys). */
export const REQUEST_KEY_META = 'dev.baton/request-key';

/** The longest request key taken; a UUID is 36 characters. */
const MAX_KEY_LENGTH = 200;

/** The tools whose calls below start a run (the spec's dotted alias of the broker's as well). */
const NEXT_STEP_NAMES: ReadonlySet<string> = new Set([NEXT_STEP_TOOL, 'workflow.next_step']);

/** The request key of a call (its `_meta` as the SDK hands it to a tool), if it has one; a malformed one is refused. */
export function requestKeyOf(extra: { _meta?: Record<string, unknown> } | undefined): string | undefined {
  const key = extra?._meta?.[REQUEST_KEY_META];
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw new BatonError(
      'invalid_input',
      `_meta "${REQUEST_KEY_META}" must be a string of 1 to ${MAX_KEY_LENGTH} characters (a new UUID for each start); send the start again with such a key, or without one.`,
    );
  }
  return key;
}

/**
 * Whether a request is a tools/call that starts a run and takes a request key: workflow_next_step with template_name
 * and no step_token or request (which make it another call; null counts as none, as the server takes it),
 * start_execution, or start_workflow (the `specs` group's).
 */
export function isKeyedStart(request: JSONRPCRequest): boolean {
  if (request.method !== 'tools/call' || !isRecord(request.params)) return false;
  const { name, arguments: args } = request.params;
  if (typeof name !== 'string' || !isRecord(args)) return false;
  if (name === 'start_execution' || name === 'start_workflow') return true;
  return NEXT_STEP_NAMES.has(name) && typeof args.template_name === 'string' && args.step_token == null && args.request == null;
}

/** The request key a start carries in its `_meta`, if any (as sent: not checked). */
export function carriedKey(request: JSONRPCRequest): unknown {
  const meta = isRecord(request.params) ? request.params._meta : undefined;
  return isRecord(meta) ? meta[REQUEST_KEY_META] : undefined;
}

/** `request` with `key` added to its `_meta` (what else its `_meta` holds, a progressToken say, is kept). */
export function withRequestKey(request: JSONRPCRequest, key: string): JSONRPCRequest {
  const params = request.params as Record<string, unknown>;
  const meta = isRecord(params._meta) ? params._meta : {};
  return { ...request, params: { ...params, _meta: { ...meta, [REQUEST_KEY_META]: key } } };
}
