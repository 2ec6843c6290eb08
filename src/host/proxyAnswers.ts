// What a forwarding `baton mcp` answers a call with when the owner did not: the owner's own refusal, or words that
// say what happened and what the agent should do next (call again, or check first when calling again may do twice).
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { carriedKey, isKeyedStart } from '../mcp/requestKey.js';
import { OwnerHttpError } from './ownerHttpTransport.js';
import type { Upstream } from './proxy.js';
import { capital, ownerState, silentOwnerWays, type OwnerState } from './silentOwner.js';

/**
 * The JSON-RPC error an owner refused a request with over HTTP (400 for a malformed or duplicate request, 413 for
 * one too large), to pass on to the client in the owner's words rather than as "did not answer"; null for anything
 * else (a network failure, an answer that is not a JSON-RPC error, 404: the session is gone, which the caller reports
 * as the owner stopping).
 */
export function ownerRefusal(ex: unknown): { code: number; message: string } | null {
  if (!(ex instanceof OwnerHttpError) || typeof ex.code !== 'number' || ex.code < 400 || ex.code >= 500 || ex.code === 404) return null;
  const body = ex.message.replace(/^Streamable HTTP error: Error POSTing to endpoint: /, '');
  try {
    const error = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    return typeof error?.code === 'number' && typeof error.message === 'string' ? { code: error.code, message: error.message } : null;
  } catch {
    return null;
  }
}

/**
 * Whether a request may be sent again when its answer was lost (the owner stopped, or the connection failed before
 * it answered): anything but a tool call (a read, a list, a subscription), a tool call with a step_token (one that had
 * taken effect is answered again, with the same step_token), and a start with a request key (it starts one run).
 * Any other tool call may have done its work, and would do it twice.
 */
export function safeToSendAgain(request: JSONRPCRequest): boolean {
  if (request.method !== 'tools/call') return true;
  const args = (request.params as { arguments?: { step_token?: unknown } } | undefined)?.arguments;
  return typeof args?.step_token === 'string' || (isKeyedStart(request) && carriedKey(request) !== undefined);
}

/**
 * What an agent should do with a call whose answer it did not get: send it again (`again`), look first because it may
 * have started a run (`started`), or check first because it may have done its work (`check`). A keyed start counts as
 * one to send again only where the key is surely the agent's (`keyedStartsAgain`): one the proxy added would be lost.
 */
function whatNext(request: JSONRPCRequest | undefined, keyedStartsAgain: boolean): 'again' | 'started' | 'check' {
  if (request === undefined) return 'again';
  if (isKeyedStart(request) && (!keyedStartsAgain || carriedKey(request) === undefined)) return 'started';
  return safeToSendAgain(request) ? 'again' : 'check';
}

/** How to look before starting a workflow again. */
const LOOK_FIRST = 'read current-step://active (or ask for `baton status`) before you start it again';

/**
 * The answer to a call the owner may or may not have run before it stopped, when the proxy does not send it again
 * itself (see `safeToSendAgain`): the agent is told how to look first, as calling again may do it twice (a workflow
 * started twice, say).
 */
export function stoppedBeforeAnswering(owner: Upstream, request?: JSONRPCRequest): string {
  const stopped = `${owner.name}, which owned the Baton database, stopped before answering this call. Baton is taking over;`;
  const next = whatNext(request, true);
  if (next === 'again') return `${stopped} call again with the same arguments (a call that had taken effect is answered again, with the same step_token).`;
  if (next === 'started') return `${stopped} the workflow may have been started already: ${LOOK_FIRST}, as a second call starts a second run.`;
  return `${stopped} the call may have taken effect already: check before you call again (calling again may do it twice).`;
}

/**
 * The answer to a call that waited on an owner that stopped answering: the owner is alive but stopped (Ctrl-Z,
 * SIGSTOP, a debugger), which resuming ends, or hung, so only ending it frees the database (a signal it would have to
 * handle itself is never handled). `state`: what the system says of it (a test passes its own).
 */
export function ownerSilent(owner: Upstream, silentMs: number, request?: JSONRPCRequest, state: OwnerState = ownerState(owner.pid!)): string {
  const pid = owner.pid!;
  const { why, resume, kill } = silentOwnerWays(pid, state);
  const silent = `Baton process ${pid} owns the database but has not answered for ${Math.round(silentMs / 1000)} s (it is ${why}), so this call was given up.`;
  const end = `that process (${kill}), or restart the editor if it is the editor's: Baton here then takes over the database.`;
  const fix = resume ? `${capital(resume)}: it then answers again. Or end ${end}` : `End ${end}`;
  // A start is not said to be safe to call again: its request key may be one the proxy added, which a new call lacks.
  const next = whatNext(request, false);
  if (next === 'started') return `${silent} ${fix} The workflow may have been started already: ${LOOK_FIRST}.`;
  if (next === 'again') return `${silent} ${fix} Then call again with the same arguments (a call that had taken effect is answered again).`;
  return `${silent} ${fix} The call may have taken effect already: check before you call again (calling again may do it twice).`;
}

/** The answer to a call whose send to the owner failed (a network error) while the owner is still there. */
export function didNotAnswer(owner: Upstream, request: JSONRPCRequest, ex: unknown): string {
  const next = whatNext(request, true);
  const then = next === 'again' ? 'call again with the same arguments (a call that had taken effect is answered again)'
    : next === 'started' ? `the workflow may have been started already: ${LOOK_FIRST}`
    : 'the call may have taken effect: check before you call again (calling again may do it twice)';
  return `${owner.name}, which owns the Baton database, did not answer: ${(ex as Error).message}; ${then}.`;
}
