// Resource subscriptions: which subscribed URIs a domain event touches, and the notifications it sends.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { BatonApi } from '../core/api.js';
import type { Log } from '../core/ports.js';
import type { BatonEvent } from '../core/types.js';
import { quoted, specSchemeHint } from './inputErrors.js';

/**
 * Bounds on one session's subscriptions: no Baton URI is longer (its ids are UUIDs), and a client that subscribes
 * to more has lost track of them. Each one is kept and matched against every event while the session lasts, so
 * without a bound a client sending 10 MiB URIs would grow the owner's memory (shared by every client) without end.
 */
export const MAX_SUBSCRIBED_URI_CHARS = 2048;
export const MAX_SUBSCRIPTIONS = 1000;

/** Forms of a per-task URI that follow whatever is active or recent rather than one execution. */
const FLOATING = new Set(['active', 'recent', 'final', 'all', 'current']);

/** A subscribed URI split into what matching needs. */
interface Subscription {
  scheme: string;
  /** First path segment after `//` (task id, execution id, `active`, `recent`, `type`, `final`, …). */
  head: string;
  /** Second segment (`final/{id}`), if any. */
  second: string | null;
  /** The execution a task-id subscription resolved to when it was made. */
  executionId: string | null;
}

/** Splits `scheme://head/second?query`; null when it is not of that form or its escapes are malformed (`%E0`). */
function parse(uri: string): Omit<Subscription, 'executionId'> | null {
  const m = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(?:\/([^?#]*))?/i.exec(uri);
  if (!m) return null;
  try {
    return { scheme: m[1]!.toLowerCase(), head: decodeURIComponent(m[2] ?? ''), second: m[3] ? decodeURIComponent(m[3]) : null };
  } catch {
    return null;
  }
}

/** Whether `event` changes what `sub` returns. */
export function eventTouches(sub: Subscription, event: BatonEvent): boolean {
  if (event.type === 'content') return sub.scheme === 'persona' || sub.scheme === 'guardrails' || sub.scheme === 'available-workflows';
  if (event.type === 'project') return sub.scheme === 'project-context' || sub.head === 'active';
  if (event.type === 'stall') return false;
  if (sub.scheme === 'project-context') return true;
  if (sub.scheme !== 'current-step' && sub.scheme !== 'workflow-status' && sub.scheme !== 'workflow-artifacts') return false;
  if (FLOATING.has(sub.head) && !(sub.head === 'final' && sub.second)) return true;
  if (sub.scheme === 'workflow-artifacts' && sub.head === 'type') return true;
  const id = sub.head === 'final' && sub.second ? sub.second : sub.head;
  if (event.type === 'pruned') return event.execution_ids.includes(id) || (sub.executionId !== null && event.execution_ids.includes(sub.executionId));
  const taskId = event.type === 'execution' ? event.task_id : null;
  return id === event.execution_id || (taskId !== null && id === taskId) || sub.executionId === event.execution_id;
}

/** Tracks one server's subscriptions and sends `notifications/resources/updated`; returns a disposer. */
export function installSubscriptions(server: McpServer, baton: BatonApi, log: Log, onContent: () => void): () => void {
  const subs = new Map<string, Subscription>();
  server.server.setRequestHandler(SubscribeRequestSchema, (req) => {
    const parsed = parse(req.params.uri);
    if (!parsed) {
      throw new McpError(ErrorCode.InvalidParams, `uri ${quoted(req.params.uri)} is not a resource URI (scheme://…); subscribe to one that resources/list or resources/templates/list names, such as workflow-status://active.${specSchemeHint(req.params.uri)}`);
    }
    const { uri } = req.params;
    // A URI of a scheme Baton does not serve is taken, and simply never updated: the spec asks a server to accept a
    // subscription and answer {} (the official conformance suite subscribes to a test:// URI no server lists).
    if (uri.length > MAX_SUBSCRIBED_URI_CHARS) {
      throw new McpError(ErrorCode.InvalidParams, `uri ${quoted(uri)} is ${uri.length} characters, longer than any Baton resource URI (at most ${MAX_SUBSCRIBED_URI_CHARS}); subscribe to one that resources/list or resources/templates/list names`);
    }
    if (!subs.has(uri) && subs.size >= MAX_SUBSCRIPTIONS) {
      throw new McpError(ErrorCode.InvalidParams, `this session already has ${MAX_SUBSCRIPTIONS} subscriptions, the most one may have; unsubscribe (resources/unsubscribe) from those you no longer read, or subscribe to a floating form such as workflow-status://active`);
    }
    subs.set(uri, { ...parsed, executionId: resolveExecution(baton, parsed) });
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (req) => {
    subs.delete(req.params.uri);
    return {};
  });
  // One call's events (a step completed, the next one ready, the run's status) come together, each touching the same
  // URIs: they are gathered and each touched URI is sent once, on the microtask after them, which still goes out
  // ahead of the call's answer. A client re-reads a resource on each update, so three updates were three reads.
  const touched = new Set<string>();
  const send = (): void => {
    const uris = [...touched];
    touched.clear();
    if (!server.isConnected()) return;
    for (const uri of uris) {
      if (!subs.has(uri)) continue; // unsubscribed in between
      server.server.sendResourceUpdated({ uri }).catch((ex: unknown) => log.debug(`resources/updated for ${uri} not sent`, ex));
    }
  };
  return baton.onEvent((event) => {
    if (event.type === 'content') onContent();
    if (!server.isConnected()) return;
    for (const [uri, sub] of subs) {
      if (!eventTouches(sub, event) || touched.has(uri)) continue;
      if (touched.size === 0) queueMicrotask(send);
      touched.add(uri);
    }
  });
}

/** The execution a task-id subscription names now, so step events (which carry no task id) match it. */
function resolveExecution(baton: BatonApi, sub: Omit<Subscription, 'executionId'>): string | null {
  if (sub.scheme !== 'current-step' && sub.scheme !== 'workflow-status' && sub.scheme !== 'workflow-artifacts') return null;
  const id = sub.head === 'final' && sub.second ? sub.second : sub.head;
  if (!id || FLOATING.has(id) || id === 'type') return null;
  try {
    return baton.currentStep(id).execution_id;
  } catch {
    return null;
  }
}
