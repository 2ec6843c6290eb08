// Builds Baton's McpServer from the core facade: tools by group, resources, prompts, subscriptions, call log. No transport.
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, ReadResourceRequestSchema,
  type CallToolRequest, type CallToolResult, type ListToolsResult, type ReadResourceRequest,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { BatonApi, CallLogEntry } from '../core/api.js';
import { BatonError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import type { RunScope } from '../core/pipelines/runner.js';
import type { Log } from '../core/ports.js';
import { formatInputIssues, invalidArguments, quoted, specSchemeHint, unstorableInput, withoutRefusedNulls, withParsedJsonText } from './inputErrors.js';
import { issueText, methodNotFound, type Issue } from './invalidMessage.js';
import { plainToolCall, rpcError } from './jsonRpc.js';
import { portableSchema } from './portableSchema.js';
import { checkPromptRequests } from './promptRequests.js';
import { WorkflowPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import { installSubscriptions } from './subscriptions.js';
import { assertToolGroups, groupOfTool, type ToolGroup } from './toolGroups.js';
import type { ToolCallExtra, ToolSpec } from './toolSpec.js';
import { registerBrokerTools } from './tools/brokerTools.js';
import { GATE_PROGRESS_MS } from './tools/gateProgress.js';
import { registerContentTools } from './tools/contentTools.js';
import { registerContextTools } from './tools/contextTools.js';
import { registerLifecycleTools } from './tools/lifecycleTools.js';
import { registerMemoryTools } from './tools/memoryTools.js';
import { registerSpecTools } from './tools/specTools.js';
import { tracePoint } from '../shared/tracePoints.js';

/** Options of `createMcpServer`. */
export interface CreateMcpServerOptions {
  toolGroups: readonly ToolGroup[];
  version: string;
  log: Log;
  /** The run and agent this session serves (a run token opened it): its calls are logged under that agent and the memory tools are scoped to it. */
  scope?: RunScope;
  /** How often a call waiting on a human gate reports progress to a client that asked for it; default 5 s. */
  gateProgressMs?: number;
  /**
   * The pid of the process whose stdio the session serves: this process's for its own stdio client (`baton mcp`), a
   * forwarding `baton mcp`'s for the HTTP session it opened. The connection lives as long as that process, and the
   * steps handed out on it record it (see CallContext.holder_pid).
   */
  holderPid?: number;
}

/** A request handler as the SDK stores it. */
type RawHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/** The call-log category of an error code (a BatonError reason or a NextStepError code). */
export function errorCategory(code: string | undefined): NonNullable<CallLogEntry['error_category']> {
  if (!code) return 'system_error';
  if (code === 'rate_limited') return 'rate_limit';
  if (code.startsWith('token_')) return 'token';
  if (code === 'invalid_input' || code === 'template_not_found' || code === 'content_invalid') return 'validation';
  if (code === 'invalid_state' || code.endsWith('not_found')) return 'state';
  if (code === 'stall') return 'stall';
  return 'system_error';
}

/**
 * One JSON Schema validator for every session: the SDK builds an Ajv instance (meta-schemas and all) per server
 * otherwise, and the owner endpoint builds a server per HTTP session. It only checks answers to elicitations.
 */
let sharedValidator: AjvJsonSchemaValidator | undefined;

/**
 * The tools/list answer per set of tool groups: the SDK converts every tool's zod schemas to JSON Schema on each
 * tools/list, and each session asks once as it starts. A process's tools never change, so it is built once.
 */
const toolLists = new Map<string, Promise<ListToolsResult>>();

/** Builds the server; one per client session (they may share one BatonApi). */
export function createMcpServer(baton: BatonApi, options: CreateMcpServerOptions): McpServer {
  const groups = assertToolGroups(options.toolGroups);
  const { log } = options;
  const server = new McpServer(
    { name: 'baton', title: 'Baton', version: options.version },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
      },
      instructions:
        'Baton runs multi-step workflows. Start one with workflow_next_step {"template_name": …} ' +
        '(templates: available-workflows://all), then follow each step contract and submit with the step token.',
      jsonSchemaValidator: (sharedValidator ??= new AjvJsonSchemaValidator()),
    },
  );
  const clientName = () => server.server.getClientVersion()?.name;
  const agentName = options.scope?.agent;
  const specs: ToolSpec[] = [];
  // This server serves one client connection: the steps handed out on it may be handed back to it (request reclaim),
  // and once it closes, to the next caller at once (its agent went away).
  const sessionId = randomUUID();
  if (groups.includes('broker')) specs.push(...registerBrokerTools(server, baton, log, clientName, options.gateProgressMs ?? GATE_PROGRESS_MS, sessionId, options.holderPid));
  if (groups.includes('specs')) specs.push(...registerSpecTools(server, baton, log));
  if (groups.includes('lifecycle')) specs.push(...registerLifecycleTools(server, baton, log));
  if (groups.includes('content')) specs.push(...registerContentTools(server, baton, log));
  if (groups.includes('memory')) specs.push(...registerMemoryTools(server, baton, log, options.scope));
  if (groups.includes('context')) specs.push(...registerContextTools(server, baton, log, options.scope));
  registerResources(server, baton);
  const prompts = new WorkflowPrompts(server, baton);
  prompts.refresh();

  cacheToolList(server, groups.join(','));
  wrapToolCalls(server, baton, log, specs, groups, clientName, agentName);
  wrapResourceReads(server, baton, log, clientName);
  checkPromptRequests(requestHandlers(server), prompts);
  const unsubscribe = installSubscriptions(server, baton, log, () => {
    const promptsChanged = prompts.refresh();
    if (server.isConnected()) {
      server.sendResourceListChanged();
      if (promptsChanged) server.sendPromptListChanged();
    }
  });
  refuseCursors(server);
  answerMalformedParams(server); // last: it wraps every handler registered by now
  // The SDK answers a method it has no handler for with a bare "Method not found": name the fix instead (the methods
  // are listed when such a request comes, not on every session's start).
  server.server.fallbackRequestHandler = async (request) => {
    throw rpcError(-32601, methodNotFound(request.method, serverMethods(server)));
  };
  const previousOnClose = server.server.onclose;
  server.server.onclose = () => {
    unsubscribe();
    baton.connectionClosed?.(sessionId);
    previousOnClose?.();
  };
  return server;
}

/** The SDK's map of request handlers by method (each entry parses the request with zod before it calls the handler). */
function requestHandlers(server: McpServer): Map<string, RawHandler> {
  return (server.server as unknown as { _requestHandlers: Map<string, RawHandler> })._requestHandlers;
}

/** The methods `server` answers (those it has a handler for): any other it answers with Method not found. */
export function serverMethods(server: McpServer): string[] {
  return [...requestHandlers(server).keys()];
}

/** The SDK's own handler for `method`, so ours can wrap it. */
function sdkHandler(server: McpServer, method: string): RawHandler {
  const handler = requestHandlers(server).get(method);
  if (!handler) throw new Error(`the MCP SDK registered no ${method} handler`);
  return handler;
}

/** Answers tools/list from the process-wide list of these tool groups (see `toolLists`). */
function cacheToolList(server: McpServer, key: string): void {
  const original = sdkHandler(server, 'tools/list');
  server.server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    let list = toolLists.get(key);
    if (!list) {
      list = (original(request, extra) as Promise<ListToolsResult>).then((l) => ({
        ...l,
        tools: l.tools.map((t) => ({
          ...t,
          inputSchema: portableSchema(t.inputSchema),
          ...(t.outputSchema ? { outputSchema: portableSchema(t.outputSchema) } : {}),
        })),
      }));
      toolLists.set(key, list);
      list.catch(() => toolLists.delete(key));
    }
    return list;
  });
}

/** Accepts aliases (`workflow.next_step`), validates input with field-naming messages, logs every call. */
function wrapToolCalls(
  server: McpServer, baton: BatonApi, log: Log, specs: ToolSpec[], groups: readonly ToolGroup[], clientName: () => string | undefined,
  agentName: string | undefined,
): void {
  const byName = new Map<string, ToolSpec>();
  for (const spec of specs) {
    byName.set(spec.name, spec);
    for (const alias of spec.aliases) byName.set(alias, spec);
  }
  const handle = async (request: CallToolRequest, extra: ToolCallExtra): Promise<CallToolResult> => {
    const started = performance.now();
    tracePoint?.('call');
    const spec = byName.get(request.params.name);
    const name = spec?.name ?? request.params.name;
    const args = request.params.arguments ?? {};
    // The call's one entry in the call log, however it ends (`failed`: why, when it did).
    const logged = (response: unknown, failed?: { message: string | undefined; category: CallLogEntry['error_category'] }) => baton.logCall({
      call_type: 'tool', name, request: args, response, duration_ms: performance.now() - started, success: !failed,
      error_message: failed?.message, error_category: failed?.category, ide_type: clientName(), agent_name: agentName,
    });
    if (!spec) {
      // No tool of this server by that name: a protocol error, as MCP's tools spec has it (Invalid params).
      const message = unknownTool(name, [...byName.keys()], groups);
      logged(null, { message, category: 'validation' });
      throw rpcError(ErrorCode.InvalidParams, message);
    }
    let result: CallToolResult;
    let category: CallLogEntry['error_category'];
    const fast = spec.fastParse?.(args);
    let parsed = fast ? { success: true as const, data: fast } : spec.inputSchema.safeParse(args);
    let checked = args;
    // A null in a field that takes none is the field left out (withoutRefusedNulls), and a JSON text where an object or
    // a list is due is that object or list (withParsedJsonText): judge the call as meant. A parsed text may hold nulls
    // or texts of its own, so a few rounds.
    for (let round = 0; !parsed.success && round < 4; round++) {
      const lenient = withoutRefusedNulls(checked, parsed.error.issues) ?? withParsedJsonText(checked, parsed.error.issues);
      if (!lenient) break;
      checked = lenient;
      parsed = spec.inputSchema.safeParse(lenient);
    }
    const misspelt = spec.misspelt && parsed.success ? spec.misspelt(checked) : [];
    const unstorable = parsed.success ? unstorableInput(checked) : undefined;
    if (!parsed.success) {
      result = refusal(spec, formatInputIssues(spec.name, parsed.error, checked, spec.hints, Object.keys(spec.inputSchema.shape)));
      category = 'validation';
    } else if (misspelt.length || unstorable) {
      result = refusal(spec, invalidArguments(spec.name, unstorable ? [...misspelt, unstorable] : misspelt));
      category = 'validation';
    } else {
      // A known tool whose input just passed validation runs directly: the SDK's handler would parse the
      // input a second time and re-validate our own structured output on every call (a hot path). Every tool the
      // registrars register comes with its spec, so a name without one is no tool of this server (refused above).
      result = await spec.call(parsed.data as Record<string, unknown>, extra);
      const code = (result.structuredContent as { error?: { code?: string } } | undefined)?.error?.code
        ?? (result._meta as { errorCode?: string } | undefined)?.errorCode;
      if (result.isError) category = errorCategory(code);
    }
    const message = result.isError ? result.content.find((c) => c.type === 'text')?.text : undefined;
    logged(result.structuredContent ?? result.content, result.isError ? { message, category } : undefined);
    if (result.isError && category === 'system_error') log.debug(`tool ${name} failed: ${message ?? ''}`);
    return result;
  };
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => handle(request, extra));
  // The SDK parses each call twice and its result once with zod (~3% of a call's CPU). A plain call skips that: its
  // arguments are validated above and the result is Baton's own. Anything else (a task, odd params) keeps the SDK's checks.
  const checked = sdkHandler(server, 'tools/call');
  requestHandlers(server).set('tools/call', (received, extra) => {
    const request = withoutNullArguments(received);
    return plainToolCall(request) ? handle(request as CallToolRequest, extra as ToolCallExtra) : checked(request, extra);
  });
}

/**
 * Why a call of a tool this server does not have is refused, as the model should read it (clients pass a protocol
 * error's message on to it): the name it may have meant, and where the tools are listed.
 */
function unknownTool(name: string, known: readonly string[], served: readonly ToolGroup[]): string {
  const group = groupOfTool(name);
  if (group) {
    // A Baton tool of a group this server was not asked for: how to ask for it.
    const wanted = [...served, group].join(',');
    return `Unknown tool ${quoted(name)}: it is in Baton's ${group} tool group, which this server does not serve (it serves ` +
      `${served.join(', ')}). Ask for it with \`--tools ${wanted}\` on the Baton that owns the database (baton mcp, ` +
      'baton serve; a baton mcp that forwards to it serves its groups, whatever its own --tools) or the ' +
      'baton.mcp.toolGroups setting (the editor), then restart that one; tools/list names the tools this server has.';
  }
  const hint = didYouMean(name, known, (s) => `"${s}"`);
  return `Unknown tool ${quoted(name)}${hint}; tools/list names the tools this server has.`;
}

/**
 * A tools/call request with `"arguments": null` (a client with a nil map sends it, e.g. Go's encoding/json) as the
 * call without arguments it means, before either path looks at it; any other request as it is.
 */
function withoutNullArguments(request: unknown): unknown {
  const params = (request as { params?: { arguments?: unknown } } | null)?.params;
  if (params?.arguments !== null) return request;
  const { arguments: _, ...rest } = params;
  return { ...(request as object), params: rest };
}

/**
 * The SDK checks each request against its schema and throws zod's error as it is, which goes out as an Internal
 * error (-32603) whose message is the issues as JSON. A request the schema refuses is an Invalid params error
 * (-32602) instead, saying in a line which field is wrong and what it should be. An McpError the SDK throws (a
 * prompt or resource template that does not exist) goes out without its "MCP error -32602: " prefix, which the
 * client adds again.
 */
/** A call refused for its arguments: the message as text, and in the tool's structured error form if it has one. */
function refusal(spec: ToolSpec, text: string): CallToolResult {
  const structured = spec.structuredError?.(text);
  return { isError: true, content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) };
}

/** The list methods; Baton answers each with everything at once (no `nextCursor`). */
const LISTS = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'];

/**
 * Refuses a list request that carries a cursor: Baton never hands one out, so any cursor is one it did not issue,
 * which MCP's pagination says to answer with Invalid params (the SDK's handlers listed everything again).
 */
function refuseCursors(server: McpServer): void {
  const handlers = requestHandlers(server);
  for (const method of LISTS) {
    const handler = handlers.get(method);
    if (!handler) continue;
    handlers.set(method, (request, extra) => {
      const cursor = (request as { params?: { cursor?: unknown } }).params?.cursor;
      if (cursor === undefined) return handler(request, extra);
      return Promise.reject(rpcError(ErrorCode.InvalidParams, `Invalid params for ${method}: cursor ${typeof cursor === 'string' ? quoted(cursor, 40) : JSON.stringify(cursor)} is not one this server gave out; it lists everything on the first page (no nextCursor), so call without a cursor.`));
    });
  }
}

function answerMalformedParams(server: McpServer): void {
  const handlers = requestHandlers(server);
  for (const [method, handler] of handlers) {
    handlers.set(method, (request, extra) => {
      let answer: Promise<unknown>;
      try {
        answer = handler(request, extra);
      } catch (ex) {
        return Promise.reject(ex instanceof McpError ? unprefixed(ex) : invalidParams(method, ex));
      }
      return answer.catch((ex: unknown) => Promise.reject(ex instanceof McpError ? unprefixed(ex) : ex));
    });
  }
}

/** A zod error thrown while checking a request as an Invalid params error; anything else as it is. */
function invalidParams(method: string, ex: unknown): unknown {
  const issues = (ex as { issues?: Issue[] } | null)?.issues;
  if (!(ex instanceof Error) || !/^\$?ZodError$/.test(ex.name) || !Array.isArray(issues)) return ex;
  const said = issues.slice(0, 5).map(issueText);
  const shape = method === 'tools/call' ? ' A tool call is {"name": "<tool>", "arguments": {…}}, its arguments an object (not a JSON string).' : '';
  return rpcError(ErrorCode.InvalidParams, `Invalid params for ${method}: ${said.join('; ')}.${shape}`);
}

/** Logs every resource read and turns domain errors into MCP errors carrying the BatonError message. */
function wrapResourceReads(server: McpServer, baton: BatonApi, log: Log, clientName: () => string | undefined): void {
  const original = sdkHandler(server, 'resources/read');
  server.server.setRequestHandler(ReadResourceRequestSchema, async (request: ReadResourceRequest, extra) => {
    const started = performance.now();
    const entry = { call_type: 'resource' as const, name: request.params.uri, request: request.params, ide_type: clientName() };
    try {
      assertResourceUri(request.params.uri);
      const result = (await original(request, extra)) as ReadResourceResult;
      baton.logCall({ ...entry, response: { contents: result.contents.length }, duration_ms: performance.now() - started, success: true });
      return result;
    } catch (ex) {
      const error = toMcpError(ex, log, request.params.uri);
      baton.logCall({
        ...entry,
        response: null,
        duration_ms: performance.now() - started,
        success: false,
        error_message: error.message,
        error_category: BatonError.is(ex) ? errorCategory(ex.reason) : ex instanceof McpError ? 'validation' : 'system_error',
      });
      throw error;
    }
  });
}

/** Refuses, as Invalid params, a `uri` that is not a URI at all (the SDK's read would fail on it as an Internal error). */
export function assertResourceUri(uri: string): void {
  if (URL.canParse(uri)) return;
  throw new McpError(ErrorCode.InvalidParams, `uri ${quoted(uri)} is not a URI; read one that resources/list or resources/templates/list names, such as available-workflows://all.${specSchemeHint(uri)}`);
}

/** An McpError as the error the client should see: its message without the prefix the client adds itself. */
function unprefixed(ex: McpError): Error {
  return rpcError(ex.code, ex.message.replace(/^MCP error -?\d+: /, ''), ex.data);
}

/** A BatonError keeps its message; an unexpected failure is logged and hidden. */
function toMcpError(ex: unknown, log: Log, uri: string): Error {
  if (ex instanceof McpError && ex.code === ErrorCode.InvalidParams && ex.data === undefined && ex.message.endsWith(`Resource ${uri} not found`)) {
    // The SDK's answer for a URI no resource or template matches: say which ones there are, and carry the URI (SEP-2164).
    return rpcError(ErrorCode.InvalidParams, `Resource ${uri} not found; read one that resources/list or resources/templates/list names, such as available-workflows://all or current-step://active`, { uri });
  }
  if (ex instanceof McpError) return unprefixed(ex);
  if (BatonError.is(ex)) return rpcError(ErrorCode.InvalidParams, ex.message, { reason: ex.reason, uri });
  log.error(`reading ${uri} failed`, ex);
  return rpcError(ErrorCode.InternalError, "internal error; see Baton's log");
}
