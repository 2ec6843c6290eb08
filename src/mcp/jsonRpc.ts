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

/** The parts of the SDK's Protocol that `connectServer` dispatches to (internal to the SDK; checked before use). */
interface ProtocolDispatch {
  _onrequest?: (request: JSONRPCMessage, extra?: unknown) => void;
  _onnotification?: (notification: JSONRPCMessage) => void;
}

/**
 * Connects `server` to `transport` as `server.connect` does, then lets a plain request or notification (see
 * `plainMessage`) skip the SDK's dispatch, which tells a message's kind by parsing it with zod as a result, then as an
 * error, then as a request: three parses of every call's whole arguments, two of them failing (building zod's issues),
 * ~2% of a call's CPU. Anything else (a client's answer to an elicitation, an odd message) goes through the SDK's
 * dispatch as before; so does everything if the SDK's Protocol no longer has the methods it dispatches to.
 */
export async function connectServer(server: { server: object; connect(transport: Transport): Promise<void> }, transport: Transport): Promise<void> {
  const before = transport.onmessage;
  await server.connect(transport);
  const sdk = transport.onmessage;
  const protocol = server.server as ProtocolDispatch;
  const { _onrequest: onRequest, _onnotification: onNotification } = protocol;
  if (!sdk || typeof onRequest !== 'function' || typeof onNotification !== 'function') return;
  transport.onmessage = (message, extra) => {
    if (plainMessage(message) !== message) return sdk(message, extra);
    before?.(message, extra);
    if (isRequest(message)) onRequest.call(protocol, message, extra);
    else onNotification.call(protocol, message);
  };
}
