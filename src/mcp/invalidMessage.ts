// What is wrong with a JSON value that is not a JSON-RPC message the server accepts, and the error answer to it. No
// runtime imports: the stdio front uses it before the engine (and the SDK) load.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * The most one message may be, on stdio (a line) and over HTTP (a body): the same for both, since a `baton mcp` that
 * forwards to the owner sends each stdio line on as an HTTP body. Like the SDK's stdio transport.
 */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** What to do about a message over MAX_MESSAGE_BYTES. */
export const TOO_LARGE_FIX = 'split large content over several calls, or keep it in a file and pass its path';

/** A size limit in words: `10 MiB`, or the bytes when it is not whole MiB. */
export function limitText(bytes: number): string {
  return bytes % 1048576 === 0 ? `${bytes / 1048576} MiB` : `${bytes} bytes`;
}

/** An id MCP allows: a string or an integer (never null). */
export const isRequestId = (v: unknown): v is string | number => typeof v === 'string' || Number.isSafeInteger(v);

/**
 * The message of Method not found (-32601) for a request of `method`, naming the fix: a notification sent with an id
 * (a request of that name, which no server answers) is to go without one; any other method is not one of `methods`,
 * the methods the server answers, which it lists.
 */
export function methodNotFound(method: string, methods: readonly string[]): string {
  const shown = JSON.stringify(method.length > 80 ? `${method.slice(0, 80)}…` : method);
  if (method.startsWith('notifications/')) {
    return `Method not found: ${shown} is a notification; send it without an id (a notification gets no answer)`;
  }
  return `Method not found: ${shown} is not a method this server answers; its methods: ${methods.join(', ')}`;
}

/**
 * The id of `body` when it is one request (a method, and an id MCP allows): a refusal of the HTTP request that carried
 * it answers under that id, so a client waiting on the id gets the error instead of an answer it cannot place.
 */
export function requestIdOf(body: unknown): string | number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const m = body as { id?: unknown; method?: unknown };
  return typeof m.method === 'string' && isRequestId(m.id) ? m.id : undefined;
}

/**
 * The refusal of a request whose id is already waiting for its answer (`where`: in this session, or earlier in its
 * batch): both answers would carry that id, the client would take the first for either, and a cancel of the id would
 * reach only one of them.
 */
export function idInUse(id: string | number, where: string): string {
  const shown = typeof id === 'string' ? JSON.stringify(id.length > 80 ? `${id.slice(0, 80)}…` : id) : id;
  return `Invalid Request: id ${shown} is already used by ${where}; give every request an id of its own until it is answered`;
}

/** The members of a JSON-RPC 2.0 message. */
const MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);

/** A refused message: the Invalid Request answer, and whether JSON-RPC answers it at all (not a notification or an answer). */
export interface InvalidMessage {
  answer: JSONRPCMessage;
  answered: boolean;
}

/**
 * Why `value` is not a message, as an Invalid Request error (-32600) naming the field to fix. The answer carries the
 * request's id when it has a usable one, else none (MCP allows no null id). `why` is what the schema said, used
 * when none of the usual mistakes explains the refusal.
 */
export function invalidMessage(value: unknown, why?: Error): InvalidMessage {
  const m = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  const problem = !m ? 'each message must be a JSON object'
    : m.jsonrpc !== '2.0' ? 'jsonrpc must be "2.0"'
    : 'method' in m && typeof m.method !== 'string' ? 'method must be a string'
    : 'id' in m && !isRequestId(m.id) ? `id must be a string or an integer${m.id === null ? ' (MCP allows no null id)' : ''}`
    : 'params' in m && (typeof m.params !== 'object' || m.params === null || Array.isArray(m.params)) ? 'params must be an object'
    : !('method' in m) && !('result' in m) && !('error' in m) ? 'a message needs a method (a request or notification), or a result or error (an answer)'
    : Object.keys(m).some((k) => !MEMBERS.has(k)) ? `unknown member ${JSON.stringify(Object.keys(m).find((k) => !MEMBERS.has(k))!.slice(0, 80))}; a message has only jsonrpc, id, method and params (or result or error): put request fields in params`
    : `not a message the server accepts${why ? ` (${firstIssue(why)})` : ''}`;
  const id = m && isRequestId(m.id) ? m.id : undefined;
  // JSON-RPC answers neither a notification (a method, no id) nor an answer, however malformed.
  const answered = !m || !((typeof m.method === 'string' && !('id' in m)) || (!('method' in m) && ('result' in m || 'error' in m)));
  const answer = { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code: -32600, message: `Invalid Request: ${problem}` } } as JSONRPCMessage;
  return { answer, answered };
}

/** One issue a schema (zod) reported, as `path.to.field: what is wrong`, or `path.to.field is required (a string)`. */
export function issueLine(issue: { path?: PropertyKey[]; message?: string; code?: string; expected?: unknown }): string {
  const path = issue.path?.length ? issue.path.map(String).join('.') : '';
  if (path && issue.code === 'invalid_type' && typeof issue.expected === 'string' && /received undefined$/.test(issue.message ?? '')) {
    return `${path} is required (${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected})`;
  }
  return `${path ? `${path}: ` : ''}${issue.message ?? 'invalid'}`;
}

/** A zod issue, as much of it as the messages read. */
export type Issue = Parameters<typeof issueLine>[0] & { errors?: Issue[][]; values?: unknown[] };

/**
 * One issue a schema reported, in a line. A union (the kinds of message, an id's string or number, a completion's
 * ref/prompt or ref/resource) says only "Invalid input": the issue of its closest branch, the one with the fewest, is
 * named instead, at its full path.
 */
export function issueText(issue: Issue): string {
  let first: Issue | undefined = issue;
  let path: PropertyKey[] = [];
  while (first?.code === 'invalid_union' && first.errors?.length) {
    path = [...path, ...(first.path ?? [])];
    const kinds = first.errors.map((branch) => (branch.length === 1 && branch[0]!.code === 'invalid_type' && !branch[0]!.path?.length ? branch[0]! : null));
    if (kinds.every((kind) => kind !== null)) {
      // A value of none of the kinds allowed (an id that is null): name them all.
      const received = / received (\w+)$/.exec(kinds[0]!.message ?? '')?.[1];
      const expected = [...new Set(kinds.map((kind) => String(kind!.expected)))].join(' or ');
      return issueLine({ path, code: 'invalid_type', expected, message: `Invalid input: expected ${expected}${received ? `, received ${received}` : ''}` });
    }
    // Branches told apart by a tag (a completion's ref.type): each says only its own value; name them all.
    const tags = first.errors.map((branch) => branch.find((i) => i.code === 'invalid_value' && i.values?.length));
    const at = new Set(tags.map((tag) => JSON.stringify(tag?.path ?? null)));
    if (tags.every((tag) => tag !== undefined) && at.size === 1) {
      const values = [...new Set(tags.flatMap((tag) => tag!.values!.map((v) => JSON.stringify(v))))].join(' or ');
      return issueLine({ path: [...path, ...(tags[0]!.path ?? [])], code: 'invalid_value', message: `Invalid input: expected ${values}` });
    }
    first = first.errors.reduce((a, b) => (b.length < a.length ? b : a))[0];
  }
  return issueLine({ ...(first ?? issue), path: [...path, ...(first?.path ?? [])] });
}

/** The first issue a schema reported, in a line (a zod error's message is all its issues as JSON). */
function firstIssue(error: Error): string {
  const first = (error as { issues?: Issue[] }).issues?.[0];
  return first ? issueText(first) : error.message.split('\n')[0]!;
}

/** Whether a session of this protocol version may send JSON-RPC batches: MCP 2025-06-18 removed them (2025-03-26 had them). */
export function batchesAllowed(version: string | undefined): boolean {
  return version !== undefined && version < '2025-06-18';
}

/** Why a batch is refused in a session of `version` (2025-06-18 or later, or none negotiated yet). */
export function batchRefusal(version: string | undefined): string {
  return `Invalid Request: MCP ${version ?? '2025-06-18 and later'} takes one JSON-RPC message at a time, not a batch (only 2025-03-26 had batches); send the messages one by one`;
}
