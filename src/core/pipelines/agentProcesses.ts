// The agent processes runs have spawned and not yet seen end (pipeline steps, team turns), kept in the database
// (agent_processes, migration 009) from their spawn until they end. When a run's process dies without stopping its
// agents (kill -9, a crash, the editor's host ending), an agent lives on in its own process group; a run taken up
// again stops it before the step starts again, instead of a second agent working beside it. Only a process the host
// proves to be the recorded one is signalled: a live pid that cannot be proved to be it is never touched.
import { BatonError } from '../errors.js';
import type { CorePorts } from '../ports.js';
import type { AgentProcess } from './runner.js';

/**
 * What a look at a recorded process found: no such process (or only its zombie), provably that process, provably
 * another one (its pid reused), or a live process that nothing tells apart from another with the same pid.
 */
export type ProcessCheck = 'gone' | 'same' | 'other' | 'unknown';

/** The host's hold on processes (src/host/runners/processControl.ts). */
export interface ProcessControl {
  /** This process, recorded as the owner of the agents it spawns. */
  self(): { pid: number; identity: string | null };
  check(process: { pid: number; identity: string | null }): ProcessCheck;
  /**
   * Stops the group of a process proven `same`: SIGTERM, then SIGKILL after the runners' grace period; settles once
   * nothing of the group is left, rejects when something is.
   */
  stopGroup(process: AgentProcess): Promise<void>;
  /**
   * Removes a run's scratch folder that its dead Baton process left: true when it was removed, false when it was not
   * there; rejects, removing nothing, for a path that is not a folder a runner made.
   */
  removeScratch(path: string): Promise<boolean>;
}

/** A recorded agent process. */
export interface AgentProcessRecord extends AgentProcess {
  executionId: string;
  /** What it works on: a pipeline's step instance, or a team's agent. */
  slot: string;
  agent: string;
  runner: string;
  /** The Baton process that spawned it. */
  ownerPid: number;
  ownerIdentity: string | null;
  startedAt: string;
}

/** A recorded agent still alive: `left running` when the Baton process that spawned it has ended. */
export interface LiveAgent {
  agent: string;
  slot: string;
  runner: string;
  pid: number;
  pgid: number;
  ownerPid: number;
  state: 'running' | 'left running';
}

/** What taking a run up again did with one recorded agent, with a line for the person. */
export interface LeftoverOutcome {
  record: AgentProcessRecord;
  /** `ended`: it was gone, or its pid is another process now; `forgotten` / `kept`: alive, not proven, left alone. */
  outcome: 'stopped' | 'ended' | 'forgotten' | 'kept';
  message: string;
}

/** What to do with a live agent that cannot be proved to be the recorded one: refuse, drop its record, or keep it. */
export type UnprovenPolicy = 'refuse' | 'forget' | 'keep';

/** One attempt's process, recorded from its spawn until `ended`. */
export interface ProcessTrack {
  /** For the runner's `onProcess`. */
  onProcess(process: AgentProcess): void;
  /** Clears the record once the run is over (its process ended and its group was killed). */
  ended(): Promise<void>;
}

type Row = {
  execution_id: string; slot: string; agent: string; runner: string; pid: number; pgid: number; identity: string | null;
  command: string; owner_pid: number; owner_identity: string | null; started_at: string; scratch: string | null;
};

/** The agent processes of runs: recorded while they run, stopped when a run is taken up after its process died. */
export class AgentProcesses {
  private control: ProcessControl | undefined;

  constructor(private readonly deps: { ports: CorePorts; event: (executionId: string, type: string, data: unknown) => void }) {}

  /** Installs the host's process control; without it nothing is recorded or stopped. */
  setControl(control: ProcessControl): void {
    this.control = control;
  }

  /** Records the process of one attempt at `slot` of run `executionId`; undefined without a process control. */
  track(executionId: string, slot: string, agent: string, runner: string): ProcessTrack | undefined {
    const control = this.control;
    if (!control) return undefined;
    let written: Promise<number | null> = Promise.resolve(null);
    return {
      onProcess: (p) => {
        written = this.record(control, { executionId, slot, agent, runner, ...p }).then(() => p.pid, (ex: unknown) => {
          this.deps.ports.log.warn(`recording agent ${agent}'s process ${p.pid} of run ${executionId} failed`, ex);
          return null;
        });
      },
      ended: async () => {
        const pid = await written;
        if (pid === null) return;
        try {
          await this.deps.ports.store.transaction(() => this.deps.ports.store.run(
            'DELETE FROM agent_processes WHERE execution_id = ? AND slot = ? AND pid = ?', [executionId, slot, pid]));
        } catch (ex) {
          // The step's end matters more than this row: a leftover row of a process that ended is cleared on resume.
          this.deps.ports.log.warn(`clearing agent ${agent}'s process ${pid} of run ${executionId} failed`, ex);
        }
      },
    };
  }

  private async record(control: ProcessControl, r: Omit<AgentProcessRecord, 'ownerPid' | 'ownerIdentity' | 'startedAt'>): Promise<void> {
    const owner = control.self();
    const iso = new Date(this.deps.ports.clock.now()).toISOString();
    await this.deps.ports.store.transaction(() => this.deps.ports.store.run(
      `INSERT OR REPLACE INTO agent_processes (execution_id, slot, agent, runner, pid, pgid, identity, command, owner_pid, owner_identity, started_at, scratch)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [r.executionId, r.slot, r.agent, r.runner, r.pid, r.pgid, r.identity, r.command, owner.pid, owner.identity, iso, r.scratch ?? null],
    ));
  }

  /** The recorded processes of a run, or of every run. */
  records(executionId?: string): AgentProcessRecord[] {
    const rows = executionId === undefined
      ? this.deps.ports.store.all<Row>('SELECT * FROM agent_processes ORDER BY rowid')
      : this.deps.ports.store.all<Row>('SELECT * FROM agent_processes WHERE execution_id = ? ORDER BY rowid', [executionId]);
    return rows.map((r) => ({
      executionId: r.execution_id, slot: r.slot, agent: r.agent, runner: r.runner, pid: r.pid, pgid: r.pgid, identity: r.identity,
      command: r.command, ownerPid: r.owner_pid, ownerIdentity: r.owner_identity, startedAt: r.started_at, scratch: r.scratch,
    }));
  }

  /** The recorded agents still alive, by run (a process that cannot be proved to be gone counts as alive). */
  live(): Map<string, LiveAgent[]> {
    const out = new Map<string, LiveAgent[]>();
    const control = this.control;
    if (!control) return out;
    for (const r of this.records()) {
      const seen = control.check(r);
      if (seen !== 'same' && seen !== 'unknown') continue;
      const owner = control.check({ pid: r.ownerPid, identity: r.ownerIdentity });
      const agent: LiveAgent = {
        agent: r.agent, slot: r.slot, runner: r.runner, pid: r.pid, pgid: r.pgid, ownerPid: r.ownerPid,
        state: owner === 'gone' || owner === 'other' ? 'left running' : 'running',
      };
      out.set(r.executionId, [...(out.get(r.executionId) ?? []), agent]);
    }
    return out;
  }

  /**
   * Stops the agents a run's earlier process left running (proven ones: the whole group, waited for until gone),
   * forgets the records of those that ended, and records both in the run's events. A live agent that cannot be proved
   * to be the recorded one is never signalled: `unproven` refuses (nothing is done then), forgets or keeps it.
   * The caller makes sure no process drives the run now.
   */
  async stopLeftovers(executionId: string, unproven: UnprovenPolicy): Promise<LeftoverOutcome[]> {
    const control = this.control;
    const records = this.records(executionId);
    if (!control || records.length === 0) return [];
    const seen = records.map((record) => ({ record, check: control.check(record) }));
    const doubtful = seen.filter((s) => s.check === 'unknown').map((s) => s.record);
    if (doubtful.length && unproven === 'refuse') throw unprovenError(executionId, doubtful);
    const settled = await Promise.allSettled(seen.map(async ({ record, check }): Promise<LeftoverOutcome> => {
      if (check === 'same') {
        await control.stopGroup(record);
        const removed = await this.removeScratch(control, record);
        return { record, outcome: 'stopped', message: `stopped ${describe(record)}, left running by the run's earlier process (pid ${record.ownerPid})${removed}` };
      }
      if (check === 'unknown') {
        const outcome = unproven === 'keep' ? 'kept' : 'forgotten';
        return { record, outcome, message: `left ${describe(record)} alone: process ${record.pid} is alive but cannot be proved to be that agent` };
      }
      return { record, outcome: 'ended', message: `${describe(record)} had ended${await this.removeScratch(control, record)}` };
    }));
    const done = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    await this.deps.ports.store.transaction(() => {
      for (const { record: r, outcome, message } of done) {
        if (outcome === 'kept') continue;
        this.deps.ports.store.run('DELETE FROM agent_processes WHERE execution_id = ? AND slot = ? AND pid = ?', [executionId, r.slot, r.pid]);
        if (outcome === 'ended') continue;
        this.deps.event(executionId, outcome === 'stopped' ? 'agent_stopped' : 'agent_forgotten', {
          agent: r.agent, step_name: r.slot, runner: r.runner, pid: r.pid, owner_pid: r.ownerPid, message,
        });
      }
    });
    const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [{ record: seen[i]!.record, ex: s.reason as unknown }] : []));
    if (failed.length) {
      const what = failed.map(({ record, ex }) => `${describe(record)}: ${ex instanceof Error ? ex.message : String(ex)}`).join('; ');
      throw new BatonError('invalid_state', `Run ${executionId}: the agents its earlier process left running could not all be stopped (${what}); stop them by hand and try again.`);
    }
    return done;
  }

  /**
   * Removes the scratch folder of an agent that is gone now (its runner, in the dead process, never got to): its
   * sessions, caches and config files with the run's token. What to add to the message; a failure is only logged.
   */
  private async removeScratch(control: ProcessControl, record: AgentProcessRecord): Promise<string> {
    if (!record.scratch) return '';
    try {
      return (await control.removeScratch(record.scratch)) ? `; removed its scratch folder ${record.scratch}` : '';
    } catch (ex) {
      this.deps.ports.log.warn(`removing the scratch folder ${record.scratch} of ${describe(record)} failed; delete it by hand`, ex);
      return '';
    }
  }
}

/** `the claude agent reviewer of step review (pid 1234)`. */
function describe(r: AgentProcessRecord): string {
  return `the ${r.runner} agent ${r.agent}${r.slot === r.agent ? '' : ` of step ${r.slot}`} (pid ${r.pid})`;
}

function unprovenError(executionId: string, records: AgentProcessRecord[]): BatonError {
  const which = records.map((r) => `process ${r.pid} may be ${describe(r)}, started by the run's earlier process (pid ${r.ownerPid})`).join('; ');
  const groups = records.map((r) => `kill -TERM -- -${r.pgid}`).join('; ');
  return new BatonError('invalid_state',
    `Run ${executionId} was not resumed: ${which}. It is alive, but nothing proves it is that agent rather than another program that now has its pid, `
    + `so Baton does not stop it. If it is the agent, stop its process group (${groups}) and resume again; if it is not, `
    + `resume with --forget-agents (baton pipeline resume ${executionId} --forget-agents).`,
    { pids: records.map((r) => r.pid) });
}
