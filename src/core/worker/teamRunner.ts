// The team loop of ../shared/specs/agent-worker.md ("Execution Flow"): an agent with unread @mentions is invoked (one
// invocation at a time per agent; agents run concurrently), with its unread messages in the prompt. After an
// invocation the runner acks the agent's inbox up to the newest message it was shown — an agent that forgets
// `inbox_ack` is not woken again for the same messages, while messages that arrived during its turn stay unread and
// wake it again. `run` ends when every agent is idle (no unread mentions, none running); both modes end after
// `maxInvocations` invocations (agents that keep @mentioning each other), or when stopped. Pure: the host supplies
// the invocation (a runner process) and the provider.
import type { ChannelEntry, ContextProvider, InboxMessage } from './types.js';
import { teamPrompt, teamSystemPrompt } from './teamPrompts.js';

/** How one invocation of an agent ended. */
export interface InvocationOutcome {
  status: 'completed' | 'failed' | 'aborted' | 'timeout';
  /** The agent's final answer (its CLI's last text). */
  text: string;
  error: string | null;
}

/** A started invocation: its outcome, and a way to stop it (its process group). */
export interface Invocation {
  readonly outcome: Promise<InvocationOutcome>;
  stop(): void;
}

/** What the host runs for an agent's turn. */
export type InvokeAgent = (agent: string, request: { prompt: string; systemPrompt: string }) => Invocation;

/** Why a team stopped. */
export type TeamEndReason = 'idle' | 'stopped' | 'max_invocations' | 'failed';

/** Something a team did, for progress output (`--verbose`, `--json`) and the faces. */
export type TeamEvent =
  | { type: 'channel'; entry: ChannelEntry }
  | { type: 'agent_started'; agent: string; unread: number; invocation: number }
  | { type: 'agent_finished'; agent: string; status: InvocationOutcome['status']; error: string | null; text: string }
  | { type: 'team_ended'; reason: TeamEndReason; message: string; invocations: number; failures: number };

/** How a team ended. */
export interface TeamEnd {
  reason: TeamEndReason;
  /** A sentence for a person (what happened, what to do). */
  message: string;
  invocations: number;
  /** Invocations that did not complete. */
  failures: number;
}

/** What an agent is doing; `failed`: waiting, as idle, after a turn that failed (its next @mention wakes it again). */
export type AgentState = 'idle' | 'running' | 'failed' | 'stopped';

/** Options of a team runner. */
export interface TeamRunnerOptions {
  workflow: string;
  instance: string;
  /** The agents and their own system prompts. */
  agents: Readonly<Record<string, string>>;
  provider: ContextProvider;
  invoke: InvokeAgent;
  /** 'run' ends when every agent is idle; 'start' keeps waiting for messages until stopped. */
  mode: 'run' | 'start';
  /** Invocations of all agents together before the team is stopped; 50 unless set. */
  maxInvocations?: number;
  onEvent?: (event: TeamEvent) => void;
  /** Unexpected failures of the loop (a provider error), for the log. */
  onError?: (error: unknown) => void;
}

/** The default bound on invocations of a team. */
export const DEFAULT_MAX_INVOCATIONS = 50;

/** Runs a team's agents on their @mentions until idle (run), stopped, or out of invocations. */
export class TeamRunner {
  private readonly running = new Map<string, Invocation>();
  private readonly stopped = new Set<string>();
  /** Why each agent's last turn failed, until a turn of it completes. */
  private readonly lastErrors = new Map<string, string>();
  private invocations = 0;
  private failures = 0;
  private seen: string | undefined;
  private pumping: Promise<void> | null = null;
  private again = false;
  private ended: TeamEnd | null = null;
  private settled = false;
  private resolveEnd!: (end: TeamEnd) => void;
  /** Settles once the team has ended and every invocation is over. */
  readonly done: Promise<TeamEnd>;

  private readonly agents: Record<string, string>;

  constructor(private readonly options: TeamRunnerOptions) {
    this.done = new Promise((resolve) => (this.resolveEnd = resolve));
    this.agents = { ...options.agents };
  }

  /** Adds an agent to the running team (it is woken by its @mentions from now on). */
  addAgent(name: string, systemPrompt: string): void {
    if (name in this.agents) throw new Error(`agent ${name} is already in the team`);
    this.agents[name] = systemPrompt;
    this.notify();
  }

  /** The agents' states. */
  states(): Record<string, AgentState> {
    const out: Record<string, AgentState> = {};
    for (const name of Object.keys(this.agents)) {
      out[name] = this.stopped.has(name) || this.ended ? (this.running.has(name) ? 'running' : 'stopped')
        : this.running.has(name) ? 'running' : this.lastErrors.has(name) ? 'failed' : 'idle';
    }
    return out;
  }

  /** Why `agent`'s last turn failed; undefined when it has not failed or a later turn completed. */
  lastError(agent: string): string | undefined {
    return this.lastErrors.get(agent);
  }

  /** Invocations so far. */
  get invocationCount(): number {
    return this.invocations;
  }

  /** Whether the team has ended. */
  get isEnded(): boolean {
    return this.ended !== null;
  }

  /** Looks for agents with unread mentions (call after anything may have written to the channel). */
  notify(): void {
    if (this.ended) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump().catch((ex: unknown) => {
      this.options.onError?.(ex);
      this.end('failed', `the team's context failed: ${(ex as Error).message ?? String(ex)}`);
    }).finally(() => {
      this.pumping = null;
      if (this.again) {
        this.again = false;
        this.notify();
      }
    });
  }

  /** Stops one agent (its running invocation is killed; it is not woken again); the team ends when none is left. */
  stopAgent(agent: string): void {
    if (!(agent in this.agents)) throw new Error(`no agent ${agent}`);
    this.stopped.add(agent);
    this.kill(this.running.get(agent));
    if (Object.keys(this.agents).every((a) => this.stopped.has(a))) this.end('stopped', 'every agent was stopped');
  }

  /** Stops the team: every running invocation is killed. */
  stop(message = 'stopped'): void {
    this.end('stopped', message);
  }

  /** Ends the team as failed (it could not start: the kickoff was not posted); every running invocation is killed. */
  fail(message: string): void {
    this.end('failed', message);
  }

  private async pump(): Promise<void> {
    do {
      this.again = false;
      await this.emitChannel();
      for (const agent of Object.keys(this.agents)) {
        if (this.ended) return;
        if (this.running.has(agent) || this.stopped.has(agent)) continue;
        const unread = (await this.options.provider.peekInbox(agent)).filter((m) => m.unread);
        if (unread.length > 0) this.startInvocation(agent, unread);
      }
    } while (this.again && !this.ended);
    if (this.options.mode === 'run' && this.running.size === 0 && !this.ended) {
      this.end('idle', `every agent is idle after ${this.invocations} invocation${this.invocations === 1 ? '' : 's'}`);
    }
  }

  private startInvocation(agent: string, unread: InboxMessage[]): void {
    const max = this.options.maxInvocations ?? DEFAULT_MAX_INVOCATIONS;
    if (this.invocations >= max) {
      this.end('max_invocations', `stopped after ${max} agent invocations (the limit) while @${agent} still had unread messages: the agents may be @mentioning each other in a loop. Read the channel, then raise the limit with --max-invocations N if the work needs more turns.`);
      return;
    }
    this.invocations++;
    const { instance, workflow } = this.options;
    const shownUntil = unread.reduce((max, m) => (m.entry.timestamp > max ? m.entry.timestamp : max), unread[0]!.entry.timestamp);
    const invocation = this.options.invoke(agent, {
      prompt: teamPrompt(agent, workflow, instance, unread),
      systemPrompt: teamSystemPrompt(this.agents[agent] ?? '', agent, Object.keys(this.agents)),
    });
    this.running.set(agent, invocation);
    this.emit({ type: 'agent_started', agent, unread: unread.length, invocation: this.invocations });
    void invocation.outcome
      .catch((ex: unknown): InvocationOutcome => ({ status: 'failed', text: '', error: (ex as Error).message ?? String(ex) }))
      .then((outcome) => this.finishInvocation(agent, shownUntil, outcome, invocation));
  }

  private async finishInvocation(agent: string, shownUntil: string, outcome: InvocationOutcome, invocation: Invocation): Promise<void> {
    // A turn Baton ended itself (baton stop, Ctrl-C, the team's end) did not fail: a person or the team stopped it.
    if (outcome.status === 'completed') this.lastErrors.delete(agent);
    else if (!(outcome.status === 'aborted' && this.killed.has(invocation))) {
      this.failures++;
      this.lastErrors.set(agent, outcome.error ?? `its turn ended ${outcome.status} with no reason given`);
    }
    try {
      await this.options.provider.ackInbox(agent, shownUntil);
    } catch (ex) {
      this.options.onError?.(ex);
    }
    this.running.delete(agent);
    this.emit({ type: 'agent_finished', agent, status: outcome.status, error: outcome.error, text: outcome.text });
    if (this.ended) this.settleIfDone();
    else this.notify();
  }

  private async emitChannel(): Promise<void> {
    if (!this.options.onEvent) return;
    const entries = await this.options.provider.readChannel(this.seen);
    for (const entry of entries) {
      if (this.seen !== undefined && entry.timestamp <= this.seen) continue;
      this.seen = entry.timestamp;
      this.emit({ type: 'channel', entry });
    }
  }

  private end(reason: TeamEndReason, message: string): void {
    if (this.ended) return;
    this.ended = { reason, message, invocations: this.invocations, failures: this.failures };
    for (const invocation of this.running.values()) this.kill(invocation);
    this.settleIfDone();
  }

  private readonly killed = new WeakSet<Invocation>();

  private kill(invocation: Invocation | undefined): void {
    if (!invocation || this.killed.has(invocation)) return;
    this.killed.add(invocation);
    invocation.stop();
  }

  private settleIfDone(): void {
    if (!this.ended || this.running.size > 0 || this.settled) return;
    this.settled = true;
    const end = { ...this.ended, invocations: this.invocations, failures: this.failures };
    void this.emitChannel().catch(() => undefined).finally(() => {
      this.emit({ type: 'team_ended', ...end });
      this.resolveEnd(end);
    });
  }

  private emit(event: TeamEvent): void {
    try {
      this.options.onEvent?.(event);
    } catch (ex) {
      this.options.onError?.(ex);
    }
  }
}
