// JSON-RPC messages and tool calls as the server receives them: the common shapes are checked by hand (zod parses
// the whole message, arguments and all, several times per call in the SDK: ~3% of a call's CPU on the hot path);
// anything else (responses, tasks, odd ids, unknown keys) goes to the SDK's schemas, so what is accepted is exactly
// what they accept.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  JSONRPCErrorResponse, JSONRPCMessage, JSONRPCNotification, JSONRPCRequest, JSONRPCResultResponse, ProgressToken,
} from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../core/pipelines/streams/streamParser.js';
import { isRequestId } from './invalidMessage.js';
import { sdkTypes } from './sdkTypes.js';

/** The SDK's RELATED_TASK_META_KEY (a test keeps them equal): a request's `_meta` with it goes to the SDK's schema. */
export const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/** `value` as a message if it is a plain request or notification (a subset of what JSONRPCMessageSchema accepts), else undefined. */
export function plainMessage(value: unknown): JSONRPCMessage | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0' || typeof m.method !== 'string') return undefined;
  for (const key in m) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  if ('id' in m && !isRequestId(m.id)) return undefined;
  if ('params' in m && !isRecord(m.params)) return undefined;
  if ('params' in m && '_meta' in (m.params as object) && !plainMeta((m.params as { _meta: unknown })._meta)) return undefined;
  return value as JSONRPCMessage;
}

/**
 * `value` as a message if it is a plain answer (a subset of what JSONRPCMessageSchema accepts as it is): a result that is
 * an object (its `_meta`, if any, a plain one), or an error with an integer code, a message and perhaps data; no other
 * keys anywhere zod would strip or refuse. Undefined sends it through the SDK's schemas.
 */
export function plainAnswer(value: unknown): JSONRPCMessage | undefined {
  if (!isRecord(value) || value.jsonrpc !== '2.0') return undefined;
  for (const key in value) if (key !== 'jsonrpc' && key !== 'id' && key !== 'result' && key !== 'error') return undefined;
  if ('result' in value) {
    if ('error' in value || !isRequestId(value.id) || !isRecord(value.result)) return undefined;
    return '_meta' in value.result && !plainMeta(value.result._meta) ? undefined : (value as JSONRPCMessage);
  }
  const error = value.error;
  if (('id' in value && !isRequestId(value.id)) || !isRecord(error) || !Number.isSafeInteger(error.code) || typeof error.message !== 'string') return undefined;
  for (const key in error) if (key !== 'code' && key !== 'message' && key !== 'data') return undefined;
  return value as JSONRPCMessage;
}

/** Whether a request's `_meta` is a plain one the SDK's RequestMetaSchema accepts as it is (a task's goes to the schema). */
function plainMeta(meta: unknown): boolean {
  return isRecord(meta) && !(RELATED_TASK_META_KEY in meta) && (!('progressToken' in meta) || isRequestId(meta.progressToken));
}

/**
 * A `tools/call` request's name and arguments if it is a plain call (no task, no other keys): a subset of what the
 * SDK's CallToolRequestSchema accepts. Undefined sends the request through the SDK's own checks.
 */
export function plainToolCall(request: unknown): { name: string; arguments?: Record<string, unknown> } | undefined {
  const params = isRecord(request) ? request.params : undefined;
  if (!isRecord(params) || typeof params.name !== 'string') return undefined;
  for (const key in params) if (key !== 'name' && key !== 'arguments' && key !== '_meta') return undefined;
  if ('arguments' in params && !isRecord(params.arguments)) return undefined;
  if ('_meta' in params && !plainMeta(params._meta)) return undefined;
  return params as { name: string; arguments?: Record<string, unknown> };
}

/** The progressToken a request asks its progress under (`params._meta.progressToken`), if any. */
export function progressTokenOf(request: JSONRPCRequest): ProgressToken | undefined {
  return (request.params as { _meta?: { progressToken?: ProgressToken } } | undefined)?._meta?.progressToken;
}

/** The progressToken a `notifications/progress` reports on; undefined for any other message. */
export function progressReportedFor(message: JSONRPCMessage): ProgressToken | undefined {
  if (!isNotification(message) || message.method !== 'notifications/progress') return undefined;
  return (message.params as { progressToken?: ProgressToken } | undefined)?.progressToken;
}

/** `value` as a JSON-RPC message, or undefined if the SDK's schema refuses it. */
export function toMessage(value: unknown): JSONRPCMessage | undefined {
  return plainMessage(value) ?? (sdkTypes().JSONRPCMessageSchema.safeParse(value).data as JSONRPCMessage | undefined);
}

/** A stdio line as a JSON-RPC message; throws what the SDK's `deserializeMessage` throws for bad JSON or a bad message. */
export function deserializeLine(line: string): JSONRPCMessage {
  const value = JSON.parse(line) as unknown;
  return plainMessage(value) ?? sdkTypes().JSONRPCMessageSchema.parse(value);
}

/** Whether a message (already validated) is a request: it has a method and an id. */
export const isRequest = (m: JSONRPCMessage): m is JSONRPCRequest => 'method' in m && 'id' in m;

/** Whether a message (already validated) is a notification: a method and no id. */
export const isNotification = (m: JSONRPCMessage): m is JSONRPCNotification => 'method' in m && !('id' in m);

/** Whether a message (already validated) is an answer: a result or an error. */
export const isAnswer = (m: JSONRPCMessage): m is JSONRPCResultResponse | JSONRPCErrorResponse => 'result' in m || 'error' in m;

/**
 * A JSON-RPC error a request handler throws and the SDK forwards as is (an McpError's message would gain a second
 * "MCP error" prefix on the client).
 */
export function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

/** A request handler as the SDK's Protocol keeps them (its own wraps parse the request with zod first). */
type RawHandler = (request: JSONRPCRequest, extra: RequestExtra) => unknown;

/** What a request handler gets beside the request (the SDK's RequestHandlerExtra, without the task fields). */
interface RequestExtra {
  readonly signal: AbortSignal;
  sessionId?: string;
  _meta?: unknown;
  sendNotification(notification: unknown): Promise<void>;
  sendRequest(request: unknown, resultSchema: unknown, options?: object): Promise<unknown>;
  authInfo?: unknown;
  requestId: JSONRPCRequest['id'];
  requestInfo?: unknown;
  closeSSEStream?: unknown;
  closeStandaloneSSEStream?: unknown;
}

/** What a transport passes with a message (the SDK's MessageExtraInfo). */
interface MessageExtra {
  authInfo?: unknown;
  requestInfo?: unknown;
  closeSSEStream?: unknown;
  closeStandaloneSSEStream?: unknown;
}

/** The parts of the SDK's Protocol that `connectServer` dispatches to (internal to the SDK; checked before use). */
interface ProtocolDispatch {
  _onrequest?: (request: JSONRPCMessage, extra?: unknown) => void;
  _onnotification?: (notification: JSONRPCMessage) => void;
  _requestHandlers?: Map<string, RawHandler>;
  /** Where `_oncancel` (notifications/cancelled) and `_onclose` find a running request to abort. */
  _requestHandlerAbortControllers?: Map<JSONRPCRequest['id'], { abort(reason?: unknown): void }>;
  _onerror?: (error: Error) => void;
  notification?: (notification: unknown, options?: object) => Promise<void>;
  request?: (request: unknown, resultSchema: unknown, options?: object) => Promise<unknown>;
}

/** The SDK's ErrorCode.ConnectionClosed and ErrorCode.InternalError (types.js, not loaded here: its zod schemas). */
const CONNECTION_CLOSED = -32000;
const INTERNAL_ERROR = -32603;

/**
 * Connects `server` to `transport` as `server.connect` does, then lets a plain request or notification (see
 * `plainMessage`) skip the SDK's dispatch, which tells a message's kind by parsing it with zod as a result, then as an
 * error, then as a request: three parses of every call's whole arguments, two of them failing (building zod's issues),
 * ~2% of a call's CPU. A plain `tools/call` (see `plainToolCall`) skips the SDK's `_onrequest` too (`callDirectly`).
 * Anything else (a client's answer to an elicitation, an odd message) goes through the SDK's dispatch as before; so
 * does everything if the SDK's Protocol no longer has the methods it dispatches to.
 */
export async function connectServer(server: { server: object; connect(transport: Transport): Promise<void> }, transport: Transport): Promise<void> {
  const before = transport.onmessage;
  await server.connect(transport);
  const sdk = transport.onmessage;
  const protocol = server.server as ProtocolDispatch;
  const { _onrequest: onRequest, _onnotification: onNotification } = protocol;
  if (!sdk || typeof onRequest !== 'function' || typeof onNotification !== 'function') return;
  const direct = directDispatch(protocol);
  transport.onmessage = (message, extra) => {
    if (plainMessage(message) !== message) return sdk(message, extra);
    before?.(message, extra);
    if (!isRequest(message)) return onNotification.call(protocol, message);
    const handler = direct && message.method === 'tools/call' && plainToolCall(message) ? direct.handlers.get('tools/call') : undefined;
    if (handler) callDirectly(direct!, transport, handler, message, extra as MessageExtra | undefined);
    else onRequest.call(protocol, message, extra);
  };
}

/** The SDK internals `callDirectly` uses, or null if its Protocol no longer has them all. */
function directDispatch(protocol: ProtocolDispatch) {
  const { _requestHandlers: handlers, _requestHandlerAbortControllers: running, _onerror: onError, notification, request } = protocol;
  if (!(handlers instanceof Map) || !(running instanceof Map) || typeof onError !== 'function' || typeof notification !== 'function' || typeof request !== 'function') {
    return null;
  }
  return {
    handlers, running,
    onError: (error: Error) => onError.call(protocol, error),
    notify: (message: unknown, options: object) => notification.call(protocol, message, options),
    ask: (message: unknown, resultSchema: unknown, options: object) => request.call(protocol, message, resultSchema, options),
  };
}

/**
 * Runs a plain `tools/call` and sends its answer as the SDK's `_onrequest` does (cancellation, notifications and
 * requests related to it, the error answer of a handler that throws, no answer once cancelled or closed), without what
 * only other requests need: a zod parse of the whole params for a task to create, two promise turns before the
 * handler, and an AbortController made for every call (its signal is made when a handler reads it: a call that waits on
 * a gate). A plain call is every agent's usual one: 13-16 µs of a serial continue in place went to `_onrequest`.
 */
function callDirectly(sdk: NonNullable<ReturnType<typeof directDispatch>>, transport: Transport, handler: RawHandler, request: JSONRPCRequest, extra: MessageExtra | undefined): void {
  const id = request.id;
  let cancelled = false;
  let reason: unknown;
  let controller: AbortController | undefined;
  const running = {
    abort(why?: unknown): void {
      if (cancelled) return;
      cancelled = true;
      reason = why;
      controller?.abort(why);
    },
  };
  sdk.running.set(id, running);
  const full: RequestExtra = {
    get signal() {
      if (!controller) {
        controller = new AbortController();
        if (cancelled) controller.abort(reason);
      }
      return controller.signal;
    },
    sessionId: transport.sessionId,
    _meta: (request.params as { _meta?: unknown } | undefined)?._meta,
    sendNotification: async (notification) => {
      if (!cancelled) await sdk.notify(notification, { relatedRequestId: id });
    },
    sendRequest: async (message, resultSchema, options) => {
      // As the SDK's McpError words it.
      if (cancelled) throw rpcError(CONNECTION_CLOSED, `MCP error ${CONNECTION_CLOSED}: Request was cancelled`);
      return sdk.ask(message, resultSchema, { ...options, relatedRequestId: id });
    },
    authInfo: extra?.authInfo, requestId: id, requestInfo: extra?.requestInfo,
    closeSSEStream: extra?.closeSSEStream, closeStandaloneSSEStream: extra?.closeStandaloneSSEStream,
  };
  let result: Promise<unknown>;
  try {
    result = Promise.resolve(handler(request, full));
  } catch (ex) {
    result = Promise.reject(ex);
  }
  result
    .then(
      (value) => (cancelled ? undefined : transport.send({ result: value, jsonrpc: '2.0', id } as JSONRPCMessage)),
      (error: { code?: unknown; message?: string; data?: unknown }) => (cancelled ? undefined : transport.send({
        jsonrpc: '2.0', id,
        error: {
          code: Number.isSafeInteger(error?.code) ? error.code : INTERNAL_ERROR, message: error?.message ?? 'Internal error',
          ...(error?.data !== undefined ? { data: error.data } : {}),
        },
      } as JSONRPCMessage)),
    )
    .catch((error: unknown) => sdk.onError(new Error(`Failed to send response: ${String(error)}`)))
    .finally(() => {
      if (sdk.running.get(id) === running) sdk.running.delete(id);
    });
}
