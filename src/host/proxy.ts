// `baton mcp` when another process owns the database: raw JSON-RPC piped between stdio and the owner's HTTP endpoint.
// When the owner goes away mid-session (the editor closed, a crash), the proxy takes over: it becomes the owner (or
// finds the process that did), replays the client's handshake and subscriptions there, and keeps the session alive.
// An owner that lives but stops answering (stopped, hung) does not hold calls for good (see checkOwner), and requests
// sent before the client's initialize are answered as Baton's server answers them over stdio (see answerEarly).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type {
  JSONRPCErrorResponse, JSONRPCMessage, JSONRPCRequest, JSONRPCResultResponse, ProgressToken, RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { BatonError } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import { CATALOG_FILE, readCatalog } from '../mcp/catalog.js';
import { methodNotFound } from '../mcp/invalidMessage.js';
import { isNotification, isRequest, progressReportedFor, progressTokenOf } from '../mcp/jsonRpc.js';
import { carriedKey, isKeyedStart, withRequestKey } from '../mcp/requestKey.js';
import { exitsWithin, HOLDER_PID_HEADER, isPidAlive, ownerAnswers, type DiscoveryInfo } from './discovery.js';
import { EarlySession } from './earlySession.js';
import { connectionRefused } from './requestWithin.js';
import { OwnerHttpError, OwnerHttpTransport } from './ownerHttpTransport.js';
import { didNotAnswer, ownerRefusal, ownerSilent, safeToSendAgain, stoppedBeforeAnswering } from './proxyAnswers.js';
import { halted, ownerState, SilenceCount, silentOwnerWays, type OwnerState } from './silentOwner.js';
import { onStopSignal } from './stopSignals.js';
import { plural } from '../shared/labels.js';

/** Where the proxy forwards to. */
export interface Upstream {
  transport: Transport;
  /** For logs and error messages: "Baton process 123" or "this process". */
  name: string;
  /** The owner's pid, watched so its death is noticed while the agent is idle; null when this process owns the database. */
  pid: number | null;
  /** The owner's discovery entry, to ask whether it still answers (see ownerAnswers); none for this process. */
  owner?: DiscoveryInfo;
  /** Closes the connection (and, for an owner in this process, the database). */
  close(): Promise<void>;
}

/** Options of `runProxy`. */
export interface ProxyOptions {
  /** The owner to forward to; none with `resume`, whose session starts with `takeOver`. */
  owner?: DiscoveryInfo;
  /**
   * A client session begun with another server (this process's own, until it lost its database): its handshake and
   * subscriptions are replayed on the owner `takeOver` finds, and the client's calls go there from then on.
   */
  resume?: { why: string; initialize: JSONRPCRequest | null; initialized: JSONRPCMessage | null; subscriptions: readonly string[] };
  log: Log;
  /** The agent-facing side; stdio (the SDK's transport) unless another is given. */
  downstream?: Transport;
  /** The given downstream reads this process's stdin: the proxy stops when stdin ends, or on a stop signal. */
  downstreamIsStdio?: boolean;
  /**
   * Called once the owner is gone: opens the database in this process (or finds whoever did) and returns the new
   * upstream. Without it the proxy ends with the owner.
   */
  takeOver?: () => Promise<Upstream>;
  /** How often the owner's pid is checked, in ms (default 500). */
  watchMs?: number;
  /**
   * How long, in ms, the owner may fail its health check, check after check, while calls wait on it, before they are
   * answered with an error that names it (default 30 s); a stopped owner's calls after a third of that. An owner that
   * is alive but stopped or hung never answers; one that answers its health check keeps its calls as long as they wait
   * (a gate waits for a person for hours).
   */
  silentLimitMs?: number;
  /** How the owner's state is read (default ownerState: /proc, or ps): a test's stand-in for a hung owner. */
  ownerStateOf?: (pid: number) => OwnerState;
  /**
   * Whether the database's discovery file names another endpoint than `owner`'s now: an owner whose connection is
   * refused while its pid lives has then let go of the database (another process took it), and is taken over.
   */
  ownerMoved?: (owner: DiscoveryInfo) => boolean;
}

/** An upstream to the owner's Streamable HTTP endpoint. */
export function httpUpstream(owner: DiscoveryInfo): Upstream {
  const transport = new OwnerHttpTransport(new URL(owner.url), { authorization: `Bearer ${owner.token}`, [HOLDER_PID_HEADER]: String(process.pid) });
  return {
    transport,
    name: `Baton process ${owner.pid}`,
    pid: owner.pid,
    owner,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await transport.close().catch(() => undefined);
    },
  };
}

/** The upstream of a resumed session until its takeover: nothing is sent through it. */
function noUpstream(): Upstream {
  const transport: Transport = {
    start: async () => undefined,
    send: () => Promise.reject(new Error('no owner yet')),
    close: async () => undefined,
  };
  return { transport, name: 'no process yet', pid: null, close: async () => undefined };
}

// What both sides hand over is checked already (the client's side by its transport, the owner's by
// OwnerHttpTransport): messages are told apart by their keys here, not by the SDK's guards, which parse each one
// with zod again (a call's request and answer went through them up to six times).
const isResult = (m: JSONRPCMessage): m is JSONRPCResultResponse => 'result' in m;
const isErrorAnswer = (m: JSONRPCMessage): m is JSONRPCErrorResponse => 'error' in m;

/** Whether a send was refused because the owner is stopping (503): the owner did not run it. */
function ownerStopping(ex: unknown): boolean {
  return ex instanceof OwnerHttpError && ex.code === 503;
}

/** Whether a send was refused because the owner's session was gone (404): the owner did not run it. */
function sessionGone(ex: unknown): boolean {
  return ex instanceof OwnerHttpError && ex.code === 404;
}

/** A request as the log names it: "tools/call workflow_next_step (id 4)". */
function described(request: JSONRPCRequest): string {
  const name = (request.params as { name?: unknown } | undefined)?.name;
  return `${request.method}${typeof name === 'string' ? ` ${name}` : ''} (id ${String(request.id)})`;
}

/** How long a takeover keeps trying when the owner it found is stopping as well (then the next, and so on). */
const TAKEOVER_MS = 30_000;

/** The code an owner's transport answers a call with when its session closes before the answer (and for no session). */
const SESSION_CLOSED = -32001;

/** Ids of the requests the proxy itself sends when it replays a session on a new owner. */
const REPLAY_PREFIX = `baton-proxy-replay-${randomUUID()}-`;

/**
 * Waits for the owner's first answer to /healthz. An owner busy for seconds (a big checkpoint) is waited for by the
 * silence rule that calls in flight get (`silentLimitMs`, at least three failed checks): a forwarding `baton mcp` that
 * gave up on it after one check had ended its agent's MCP server over a busy spell. One that exited, or is stopped
 * (Ctrl-Z, a debugger: it answers nothing until resumed), is not waited for: owner_unreachable.
 */
async function firstAnswer(owner: DiscoveryInfo, silentLimitMs: number, log: Log): Promise<void> {
  const silence = new SilenceCount(silentLimitMs);
  for (let first = true; ; first = false) {
    const at = Date.now();
    if (await ownerAnswers(owner, Math.min(2000, silentLimitMs))) return;
    if (!isPidAlive(owner.pid) || halted(ownerState(owner.pid)) || silence.failed(at)) {
      throw new BatonError('owner_unreachable', `Baton process ${owner.pid} owns the database but its endpoint ${owner.url} does not answer`, {
        ownerPid: owner.pid,
      });
    }
    if (first) log.info(`Baton process ${owner.pid} does not answer yet (busy?); waiting for it up to ${Math.round(silentLimitMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The methods Baton's server answers: the build's catalog beside the bundle names them. Without one (run from source),
 * a server is built to ask (mcp/catalogBuilder.ts, loaded only then: a forwarding process does not load the MCP
 * server otherwise).
 */
async function serverMethods(): Promise<ReadonlySet<string>> {
  const listed = readCatalog(join(__dirname, CATALOG_FILE))?.methods;
  return listed ? new Set(listed) : (await import('../mcp/catalogBuilder.js')).batonMethods();
}

/** Forwards messages both ways until the client closes (or the owner goes and cannot be replaced); resolves then. */
export async function runProxy(options: ProxyOptions): Promise<void> {
  const { owner, log, resume } = options;
  if (!owner && !(resume && options.takeOver)) throw new Error('runProxy needs an owner, or a session to resume and a takeover');
  if (owner) {
    await firstAnswer(owner, options.silentLimitMs ?? 30_000, log);
    // Said once the owner answered: before, "forwarding" read as done when the owner then proved silent.
    log.info(`forwarding ${!options.downstream || options.downstreamIsStdio ? 'stdio' : 'the client'} to ${owner.url}`);
  }
  const methods = await serverMethods();
  const down = options.downstream ?? new (await import('@modelcontextprotocol/sdk/server/stdio.js')).StdioServerTransport();
  let up = owner ? httpUpstream(owner) : noUpstream();
  // What a new owner needs to continue this client's session.
  let initialize: JSONRPCRequest | null = resume?.initialize ?? null;
  let initialized: JSONRPCMessage | null = resume?.initialized ?? null;
  const subscriptions = new Set<string>(resume?.subscriptions);
  // Client requests forwarded and not yet answered: answered with an error if the owner goes before it answers.
  const pending = new Map<RequestId, JSONRPCRequest>();
  // Of those, the ones whose send has not settled yet.
  const sending = new Set<RequestId>();
  // Client messages that arrive while the proxy reconnects.
  let queue: JSONRPCMessage[] | null = null;
  // Client messages that arrive while the owner has not yet answered the forwarded initialize: until then the HTTP
  // session does not exist, and the owner would refuse them (a client should wait for that answer, but may not).
  let afterInitialize: JSONRPCMessage[] | null = null;
  const replies = new Map<string, (message: JSONRPCMessage) => void>();
  let replaySeq = 0;
  let closing = false;
  // Calls answered here because their owner stopped answering (see checkOwner), with their progress tokens: what that
  // owner sends for them if it goes on after all (a stopped process continued) is dropped, as they were answered. (A
  // client that used such an id again before that would get the late answer; clients number their requests.)
  const givenUp = new Map<RequestId, ProgressToken | undefined>();
  // Requests the client sends before its initialize, on a session of their own with the owner (see answerEarly).
  let early: EarlySession | null = null;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));

  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    clearInterval(watch);
    clearInterval(health);
    log.info(`proxy closing: ${why}`);
    await Promise.allSettled([up.close(), down.close(), early?.close()]);
    finished();
  };

  /**
   * The end of stdin closes the proxy once the calls sent before it are answered (a script that writes its requests
   * and closes stdin still reads the answers), as the owning `baton mcp` answers them before it stops. Each waiting
   * call ends: answered, or failed by the owner's health check.
   */
  const drainThenShutdown = (why: string) => {
    const idle = () => pending.size === 0 && sending.size === 0 && afterInitialize === null && queue === null && !early?.waiting;
    if (idle()) return void shutdown(why);
    log.info(`${why}: closing once the ${plural(pending.size, 'call')} sent before it ${pending.size === 1 ? 'is' : 'are'} answered`);
    const drain = setInterval(() => {
      if (!closing && !idle()) return;
      clearInterval(drain);
      void shutdown(why);
    }, 50);
  };

  const toClient = (message: JSONRPCMessage) => {
    down.send(message).catch((ex: unknown) => log.warn(`writing to the client failed: ${(ex as Error).message}`));
  };

  const failRequest = (id: RequestId, message: string, code = -32603) => {
    pending.delete(id);
    toClient({ jsonrpc: '2.0', id, error: { code, message } });
    if (initialize && id === initialize.id) initializeAnswered();
  };

  /**
   * A call that `via` may or may not have run before it stopped answering. One that is safe to send again (a read, a
   * call with a step_token, a start with its request key) is sent again, as it is, to the next owner (queued while the
   * proxy takes over), and the agent gets its answer. Any other call is answered with what the agent should do (see
   * stoppedBeforeAnswering).
   */
  const answerLost = (via: Upstream, id: RequestId) => {
    const request = pending.get(id);
    if (request && safeToSendAgain(request)) {
      pending.delete(id);
      log.info(`sending ${described(request)} again: ${via.name} stopped before answering it`);
      forward(request);
      return;
    }
    failRequest(id, stoppedBeforeAnswering(via, request));
  };

  // Requests sent again once after a failed connection to an owner still there (sent again once only).
  const resent = new WeakSet<JSONRPCMessage>();

  /** The forwarded initialize has its answer: what the client sent meanwhile goes on, in order. */
  const initializeAnswered = () => {
    const held = afterInitialize;
    afterInitialize = null;
    for (const m of held ?? []) forward(m);
  };

  const forward = (message: JSONRPCMessage) => {
    if (queue) {
      queue.push(message);
      return;
    }
    if (afterInitialize) {
      afterInitialize.push(message);
      return;
    }
    const via = up;
    const id = isRequest(message) ? message.id : undefined;
    if (isRequest(message) && message.method === 'initialize') afterInitialize = [];
    if (id !== undefined) {
      pending.set(id, message as JSONRPCRequest);
      sending.add(id);
    }
    const lostSince = () => via !== up || queue !== null;
    via.transport.send(message).then(
      () => {
        if (id === undefined) return;
        sending.delete(id);
        // Delivered to an owner that was lost meanwhile: it will never answer.
        if (lostSince() && pending.has(id)) answerLost(via, id);
      },
      async (ex: unknown) => {
        // Lost already (a takeover closed this connection), or about to be: a killed owner drops its connections
        // a moment before its pid is gone (until its parent reaps it). Only a network failure (fetch's TypeError)
        // can mean the latter; an HTTP error status is answered at once.
        // A stopping owner refuses new calls (503) while it answers those in flight, then exits within moments.
        // So does one whose session closed as it stops (404: a call sent again after its session answered "closed").
        const refused = ownerStopping(ex) || sessionGone(ex);
        const moved = !!via.owner && connectionRefused(ex) && !!options.ownerMoved?.(via.owner);
        const lost = lostSince() || moved || (via.pid !== null && (ex instanceof TypeError || refused) && (await exitsWithin(via.pid, refused ? 5000 : 1000)));
        const gone = `${via.name} ${moved ? 'no longer serves the database' : 'exited'}`;
        // Settled only now: meanwhile a takeover must leave this call to this handler (see ownerLost).
        if (id !== undefined) sending.delete(id);
        if (lost) {
          if (connectionRefused(ex) || sessionGone(ex) || ownerStopping(ex)) {
            // Refused outright, or by a stopping owner (its session closed, or 503): it never ran; the next owner
            // takes it.
            if (id !== undefined) pending.delete(id);
            if (via === up) void ownerLost(gone);
            if (!closing) forward(message);
            return;
          }
          if (via === up) void ownerLost(gone);
          // It may have reached the owner and taken effect: sent again if that is safe, else the agent decides.
          if (id !== undefined && pending.has(id)) answerLost(via, id);
          return;
        }
        if (id === undefined || !pending.has(id)) return;
        // This proxy is closing (its client went away): a call its own close cut short has nobody to answer.
        if (closing) return;
        // The owner closed the session or refused the call (it is stopping) and is still there: the call did not
        // run, but may not be taken by the next owner either; the agent decides.
        if (sessionGone(ex) || ownerStopping(ex)) return failRequest(id, stoppedBeforeAnswering(via, pending.get(id)));
        const refusal = ownerRefusal(ex);
        if (refusal) return failRequest(id, refusal.message, refusal.code);
        const request = pending.get(id)!;
        // A network failure with the owner still there: an owner whose event loop stalled past its keep-alive time
        // (5 min; 5 s in an older Baton), stopped or in a debugger, resets the idle connection the call went out on
        // when it wakes, unread. A call that is safe to send again goes again, once, on a new connection.
        if (ex instanceof TypeError && !resent.has(message) && safeToSendAgain(request)) {
          resent.add(message);
          pending.delete(id);
          log.info(`sending ${described(request)} again: the connection to ${via.name} failed (${(ex as Error).message})`);
          forward(message);
          return;
        }
        log.warn(`forwarding to ${via.name} failed: ${(ex as Error).message}`);
        failRequest(id, didNotAnswer(via, request, ex));
      },
    );
  };

  /** Sends a request of the proxy's own to the current upstream and waits for its answer. */
  const replay = (method: string, params: unknown): Promise<JSONRPCMessage> => {
    const id = `${REPLAY_PREFIX}${++replaySeq}`;
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<JSONRPCMessage>((resolve, reject) => {
      timer = setTimeout(() => {
        replies.delete(id);
        reject(new Error(`${up.name} did not answer ${method}`));
      }, 10_000);
      replies.set(id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
    });
    return up.transport.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage).then(() => answered, (ex: unknown) => {
      // Never sent: no answer will come, and the wait must not reject later with nobody listening.
      clearTimeout(timer);
      replies.delete(id);
      throw ex;
    });
  };

  const fromOwner = (message: JSONRPCMessage) => {
    const answer = isResult(message) || isErrorAnswer(message);
    const own = answer && typeof message.id === 'string' ? message.id : undefined;
    const reply = own === undefined ? undefined : replies.get(own);
    if (answer && message.id !== undefined && !pending.has(message.id) && givenUp.delete(message.id)) {
      log.info(`dropped the answer ${up.name} sent late to a call (id ${String(message.id)}) answered when it had stopped answering`);
      return;
    }
    const progressOf = givenUp.size > 0 ? progressReportedFor(message) : undefined;
    if (progressOf !== undefined && [...givenUp.values()].includes(progressOf)) return;
    if (reply) {
      // An answer to one of the proxy's own replayed requests (a client's request with such an id is passed on).
      replies.delete(own!);
      reply(message);
      return;
    }
    if (isErrorAnswer(message) && message.error.code === SESSION_CLOSED && message.id !== undefined && pending.has(message.id)) {
      // A call the owner's closing session could not answer: as for an owner that stopped (the session goes on here).
      answerLost(up, message.id);
      return;
    }
    const answersInitialize = answer && !!initialize && message.id === initialize.id;
    if (answer && message.id !== undefined) pending.delete(message.id);
    if (answersInitialize) setProtocolVersion(message); // an error answer carries no version: nothing is set
    toClient(message);
    if (answersInitialize) initializeAnswered();
  };

  // The SDK's Client does this after initialize; a raw pipe must too, or later requests lack the protocol header.
  const setProtocolVersion = (message: JSONRPCMessage) => {
    const version = isResult(message) ? (message.result as { protocolVersion?: string }).protocolVersion : undefined;
    const t = up.transport as Partial<OwnerHttpTransport>;
    if (version && typeof t.setProtocolVersion === 'function') t.setProtocolVersion(version);
  };

  const attach = async (next: Upstream) => {
    up = next;
    next.transport.onmessage = fromOwner;
    next.transport.onerror = (ex) => {
      log.debug(`owner connection: ${ex.message}`);
      if (next === up && next.pid !== null && !isPidAlive(next.pid)) void ownerLost(`${next.name} exited`);
    };
    next.transport.onclose = () => {
      if (next === up && !closing && queue === null) void ownerLost(`the connection to ${next.name} closed`);
    };
    await next.transport.start();
  };

  /** The owner is gone: answer what it left unanswered, take over, and carry the session to the new owner. */
  const ownerLost = async (why: string, then = 'taking over the database') => {
    if (closing || queue !== null) return;
    // What waited for the lost owner's initialize answer waits for the takeover instead (it replays the initialize).
    queue = afterInitialize ?? [];
    afterInitialize = null;
    const lost = up;
    givenUp.clear(); // the lost owner's connection is closed: nothing more comes from it
    early?.fail((request) => stoppedBeforeAnswering(lost, request));
    void early?.close();
    early = null;
    log.warn(`${why}; ${then}`);
    // Requests still being sent are settled by their own send (refused ones go to the next owner); keyed starts are
    // queued for it here.
    for (const id of [...pending.keys()]) if (!sending.has(id)) answerLost(lost, id);
    void lost.close().catch(() => undefined);
    if (!options.takeOver) {
      await shutdown(`${why}; no takeover configured`);
      return;
    }
    // The next owner may be stopping too (another agent's baton mcp that took over, then closed): the replay is then
    // refused (503, 404) or its connection fails; once it is gone, the takeover is tried again, until TAKEOVER_MS.
    const deadline = Date.now() + TAKEOVER_MS;
    for (;;) {
      let next: Upstream | undefined;
      try {
        next = await options.takeOver();
        await attach(next);
        if (initialize) {
          const reply = await replay('initialize', initialize.params);
          setProtocolVersion(reply);
          if (initialized) await up.transport.send(initialized);
        }
        for (const uri of subscriptions) await replay('resources/subscribe', { uri });
        log.info(`took over: now forwarding to ${up.name}`);
        break;
      } catch (ex) {
        const stopping = next !== undefined && (ownerStopping(ex) || sessionGone(ex) || ex instanceof TypeError);
        if (stopping && !closing && Date.now() < deadline) {
          log.warn(`taking over: ${next!.name} refused the session (${(ex as Error).message}); it is stopping: trying again once it is gone`);
          await next!.close().catch(() => undefined);
          if (next!.pid !== null) await exitsWithin(next!.pid, 5000);
          continue;
        }
        log.error(`taking over after "${why}" failed: ${(ex as Error).message}`);
        const waiting = queue;
        queue = null;
        for (const m of waiting) if (isRequest(m)) failRequest(m.id, `Baton lost the owner of its database and could not take over: ${(ex as Error).message}`);
        await shutdown('takeover failed');
        return;
      }
    }
    const waiting = queue;
    queue = null;
    for (const m of waiting) forward(m);
  };

  /**
   * A request before the client's initialize, answered as Baton's server answers it over stdio (the SDK's server does
   * not wait for the handshake): ping at once, a method it does not know with Method not found, any other through a
   * session of the proxy's own with the owner, whose endpoint answers nothing outside a session.
   */
  const answerEarly = (request: JSONRPCRequest) => {
    if (request.method === 'ping') return toClient({ jsonrpc: '2.0', id: request.id, result: {} });
    if (!methods.has(request.method)) {
      return toClient({ jsonrpc: '2.0', id: request.id, error: { code: -32601, message: methodNotFound(request.method, [...methods]) } });
    }
    // This process's own server (after a takeover) answers it as over stdio; during a takeover it waits for its end.
    const owner = up.owner;
    if (!owner || queue !== null) return forward(request);
    early ??= new EarlySession({ open: () => httpUpstream(owner), toClient, log, failed: (r, ex) => ownerRefusal(ex) ?? { code: -32603, message: didNotAnswer(up, r, ex) } });
    early.send(request);
  };

  down.onmessage = (received: JSONRPCMessage) => {
    // A start gets a request key (unless its client gave it one), so that it can be sent again to the next owner if
    // this one stops before answering it.
    const keyless = isRequest(received) && isKeyedStart(received) && carriedKey(received) === undefined;
    const message = keyless ? withRequestKey(received, randomUUID()) : received;
    if (isRequest(message) && initialize === null && message.method !== 'initialize') return answerEarly(message);
    if (isNotification(message) && initialize === null && early?.waiting) return early.send(message); // a cancel
    if (isRequest(message)) {
      if (message.method === 'initialize') {
        initialize = message;
        early?.end();
      }
      const uri = (message.params as { uri?: unknown } | undefined)?.uri;
      if (typeof uri === 'string' && message.method === 'resources/subscribe') subscriptions.add(uri);
      if (typeof uri === 'string' && message.method === 'resources/unsubscribe') subscriptions.delete(uri);
    } else if (isNotification(message) && message.method === 'notifications/initialized') {
      initialized = message;
    }
    forward(message);
  };
  down.onerror = (ex) => log.warn(`client connection: ${ex.message}`);
  down.onclose = () => void shutdown('client closed');

  const watch = setInterval(() => {
    if (up.pid !== null && queue === null && !isPidAlive(up.pid)) void ownerLost(`${up.name} exited`);
  }, options.watchMs ?? 500);
  watch.unref();

  // While calls wait on the owner, its health is asked back to back: a pid that lives says nothing of a process that
  // is stopped or hung, and a call may rightly wait for hours (a gate), so no call has a time limit of its own.
  const silentLimitMs = options.silentLimitMs ?? 30_000;
  const checkMs = Math.min(2000, Math.max(50, Math.floor(silentLimitMs / 5)));
  const silence = new SilenceCount(silentLimitMs);
  // A stopped owner (Ctrl-Z, SIGSTOP, a debugger) answers nothing until it is resumed: its calls are told sooner than a
  // hung one's, as the editor's window tells its own, yet a stop of a few seconds (Ctrl-Z, then fg) stays unseen.
  const stoppedLimitMs = Math.floor(silentLimitMs / 3);
  const stateOf = options.ownerStateOf ?? ownerState;
  let checking = false;
  const checkOwner = async () => {
    const via = up;
    if (checking || closing || queue !== null || !via.owner) return;
    if (pending.size === 0 && !early?.waiting) {
      silence.heard(); // the next call is measured afresh
      return;
    }
    checking = true;
    const at = Date.now();
    const answers = await ownerAnswers(via.owner, checkMs);
    checking = false;
    if (via !== up || queue !== null || closing) return;
    if (answers) {
      silence.heard();
      return;
    }
    if (!silence.failed(at) && !(via.pid !== null && silence.silentMs() >= stoppedLimitMs && halted(stateOf(via.pid)))) return;
    giveUp(via, silence.silentMs());
    silence.heard();
  };
  const health = setInterval(() => void checkOwner(), checkMs);
  health.unref();

  /** The owner has not answered its health check for `silentMs`: every call waiting on it is answered with an error. */
  const giveUp = (via: Upstream, silentMs: number) => {
    const waiting = [...pending.values()];
    // Read once: the log and every answer say the same of it.
    const state = stateOf(via.pid!);
    const { why, resume, kill } = silentOwnerWays(via.pid!, state);
    const ways = `${resume ? `${resume} and it answers again; ` : ''}end it (${kill}) and this process takes over`;
    log.warn(`${via.name} has not answered for ${Math.round(silentMs / 1000)} s (${why}, its pid alive): answering ${plural(waiting.length + (early?.waiting ?? 0), 'call')} waiting on it with an error; ${ways}`);
    for (const request of waiting) {
      givenUp.set(request.id, progressTokenOf(request));
      failRequest(request.id, ownerSilent(via, silentMs, request, state));
    }
    early?.fail((request) => ownerSilent(via, silentMs, request, state));
  };

  // A resumed session starts as one whose owner was lost: the client's calls wait for the takeover and its replay.
  if (owner) await attach(up);
  else void ownerLost(resume!.why, "carrying the agent's session on to the database's owner (this process again if none)");
  await down.start();
  if (!options.downstream || options.downstreamIsStdio) {
    // The front reads stdin from the process's first moment, so a client that wrote its messages and closed may have
    // ended it already: 'end' is emitted once, and a listener added after it would wait for ever.
    if (process.stdin.readableEnded) drainThenShutdown('stdin ended');
    else process.stdin.once('end', () => drainThenShutdown('stdin ended'));
    onStopSignal((signal) => void shutdown(signal));
  }
  await done;
}
