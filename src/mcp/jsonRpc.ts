// JSON-RPC messages as the transports receive them: the common request and notification shapes are checked by hand
// (zod's parse of the whole message, arguments and all, was ~1% of a call's CPU on the hot path); anything else —
// responses, `_meta`, odd ids, unknown keys — goes to the SDK's schema, so what is accepted is exactly what it accepts.
import { JSONRPCMessageSchema, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

/** `value` as a message if it is a plain request or notification (a subset of what JSONRPCMessageSchema accepts), else undefined. */
export function plainMessage(value: unknown): JSONRPCMessage | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const m = value as Record<string, unknown>;
  if (m.jsonrpc !== '2.0' || typeof m.method !== 'string') return undefined;
  for (const key in m) if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  if ('id' in m && typeof m.id !== 'string' && !Number.isSafeInteger(m.id)) return undefined;
  const params = m.params;
  if ('params' in m && (typeof params !== 'object' || params === null || Array.isArray(params) || '_meta' in params)) return undefined;
  return value as JSONRPCMessage;
}

/** `value` as a JSON-RPC message, or undefined if the SDK's schema refuses it. */
export function toMessage(value: unknown): JSONRPCMessage | undefined {
  return plainMessage(value) ?? (JSONRPCMessageSchema.safeParse(value).data as JSONRPCMessage | undefined);
}

/** A stdio line as a JSON-RPC message; throws what the SDK's `deserializeMessage` throws for bad JSON or a bad message. */
export function deserializeLine(line: string): JSONRPCMessage {
  const value = JSON.parse(line) as unknown;
  return plainMessage(value) ?? JSONRPCMessageSchema.parse(value);
}

/** Whether a message (already validated) is a request: it has a method and an id. */
export const isRequest = (m: JSONRPCMessage): m is JSONRPCRequest => 'method' in m && 'id' in m;

/** Whether a message (already validated) is an answer: a result or an error. */
export const isAnswer = (m: JSONRPCMessage): boolean => 'result' in m || 'error' in m;
