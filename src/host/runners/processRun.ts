// Runs one process for a run: started with an argument array (never a shell) in a process group of its own, its
// standard output parsed line by line into events as it arrives, its standard error kept (the last 8 KB). On abort or
// timeout the whole group gets SIGTERM, then SIGKILL after a grace period; whatever of the group outlives the process
// itself (a grandchild it left behind) is killed when it exits. Once started, the process is reported with what finds
// it again (`onSpawn`: pid, group, identity), so that a run whose Baton process died can stop it (agentProcesses.ts).
import { spawn } from 'node:child_process';
import { BatonError } from '../../core/errors.js';
import type { ProcessEnd } from '../../core/pipelines/runOutcome.js';
import type { AgentProcess, AgentRunEvent, CancelSignal } from '../../core/pipelines/runner.js';
import { LineSplitter } from '../../core/pipelines/streams/lineSplitter.js';
import type { StreamParser } from '../../core/pipelines/streams/streamParser.js';
import { KILL_GRACE_MS, processIdentity } from './processControl.js';

/** What to start. */
export interface ProcessSpec {
  /** Names the program in messages. */
  cli: string;
  executable: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string;
  /** Written to standard input, which is then closed; null: standard input is /dev/null. */
  stdin: string | null;
  parser: StreamParser;
  timeoutMs?: number;
  signal?: CancelSignal;
  /** Between SIGTERM and SIGKILL; KILL_GRACE_MS (2 s) unless set. */
  killGraceMs?: number;
  /** Receives each event as it is parsed. */
  onEvent(event: AgentRunEvent): void;
  /** Hears the process once it started. */
  onSpawn?(process: AgentProcess): void;
  /** The run's scratch folder, passed on to onSpawn (recorded with the process). */
  scratch?: string;
}

const STDERR_KEEP = 8 * 1024;
/** How long to wait for the output pipes to close once the process has exited and its group was killed. */
const DRAIN_MS = 2_000;

/** Runs the process to its end; rejects only when it cannot be started (BatonError `runner_unavailable`). */
export function runProcess(spec: ProcessSpec): Promise<ProcessEnd> {
  return new Promise<ProcessEnd>((resolve, reject) => {
    const started = Date.now();
    let ended: ProcessEnd['ended'] = 'exited';
    let exited = false;
    let spawned = false;
    let stderr = '';
    const splitter = new LineSplitter();
    const emit = (events: AgentRunEvent[]) => events.forEach((e) => spec.onEvent(e));
    const child = spawn(spec.executable, [...spec.args], {
      cwd: spec.cwd,
      env: spec.env,
      stdio: [spec.stdin === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: true,
      windowsHide: true,
    });
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is gone already.
      }
    };
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const stop = (why: 'aborted' | 'timeout') => {
      if (ended !== 'exited' || exited) return;
      ended = why;
      killGroup('SIGTERM');
      graceTimer = setTimeout(() => killGroup('SIGKILL'), spec.killGraceMs ?? KILL_GRACE_MS);
    };
    const timeout = spec.timeoutMs !== undefined ? setTimeout(() => stop('timeout'), spec.timeoutMs) : undefined;
    const onAbort = () => stop('aborted');
    spec.signal?.addEventListener('abort', onAbort, { once: true });

    child.once('spawn', () => {
      spawned = true;
      // detached: the child leads a new session and process group, whose id is its pid.
      if (child.pid !== undefined) spec.onSpawn?.({ pid: child.pid, pgid: child.pid, identity: processIdentity(child.pid), command: spec.executable, scratch: spec.scratch ?? null });
      if (spec.signal?.aborted) stop('aborted');
    });
    child.once('error', (ex: NodeJS.ErrnoException) => {
      if (spawned) return;
      cleanup();
      reject(new BatonError('runner_unavailable', `${spec.cli} could not be started (${spec.executable}): ${ex.code ?? ex.message}`, { executable: spec.executable }));
    });
    if (child.stdin) {
      child.stdin.on('error', () => undefined); // EPIPE: the program did not read its input
      child.stdin.end(spec.stdin ?? '');
    }
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      for (const line of splitter.push(chunk)) emit(spec.parser.line(line.text, { overlong: line.overlong }));
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP);
    });

    let exitCode: number | null = null;
    let exitSignal: string | null = null;
    child.once('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      killGroup('SIGKILL'); // anything the program left running in its group
      const drain = setTimeout(finish, DRAIN_MS);
      child.once('close', () => {
        clearTimeout(drain);
        finish();
      });
    });

    let finished = false;
    function finish(): void {
      if (finished) return;
      finished = true;
      cleanup();
      const rest = splitter.end();
      if (rest !== null) emit(spec.parser.line(rest, { last: true }));
      emit(spec.parser.end());
      resolve({
        ended, exitCode, signal: ended === 'exited' ? exitSignal : null, stderr, durationMs: Date.now() - started, timeoutMs: spec.timeoutMs,
      });
    }
    function cleanup(): void {
      clearTimeout(timeout);
      clearTimeout(graceTimer);
      spec.signal?.removeEventListener('abort', onAbort);
    }
  });
}
