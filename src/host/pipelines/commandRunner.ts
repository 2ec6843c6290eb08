// A minimal `command` runner (any executable): the prompt on stdin, the answer on stdout, the system prompt and
// Baton's MCP endpoint in the environment. Lines `@baton {"usage": {...}, "costUsd": n}` report tokens and cost.
// Started with an argument array (never a shell), in its own process group, killed with it on abort or timeout.
// src/host/runners' commandCli is the other `command` runner (Baton's JSON-lines events): the two are to become one.
import { spawn } from 'node:child_process';
import { BatonError } from '../../core/errors.js';
import { ZERO_USAGE, type AgentRun, type AgentRunEvent, type AgentRunRequest, type AgentRunResult, type AgentRunner, type TokenUsage } from '../../core/pipelines/runner.js';

const STDERR_KEEP = 8 * 1024;
const KILL_GRACE_MS = 2000;

/** Runs one executable per agent step. */
export class CommandRunner implements AgentRunner {
  readonly kind = 'command' as const;

  constructor(private readonly argv: readonly string[]) {
    if (argv.length === 0) throw new BatonError('invalid_input', 'the command runner needs an executable: command: [program, arg, …]');
  }

  run(req: AgentRunRequest): AgentRun {
    const queue: AgentRunEvent[] = [];
    let wake: (() => void) | undefined;
    let finished = false;
    const push = (e: AgentRunEvent) => {
      queue.push(e);
      wake?.();
    };
    let settle!: (r: AgentRunResult) => void;
    let fail!: (ex: unknown) => void;
    const result = new Promise<AgentRunResult>((resolve, reject) => {
      settle = resolve;
      fail = reject;
    });
    result.catch(() => {}); // observed through the iteration too
    let startError: unknown;
    const started = Date.now();
    const child = spawn(this.argv[0]!, this.argv.slice(1), {
      cwd: req.cwd,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env, ...(req.env ?? {}), BATON_AGENT: req.agent, BATON_MODEL: req.model ?? '', BATON_SYSTEM_PROMPT: req.systemPrompt ?? '',
        BATON_MCP_URL: req.mcp?.url ?? '', BATON_MCP_TOKEN: req.mcp?.token ?? '',
      },
    });
    let text = '';
    let stderr = '';
    let usage: TokenUsage = ZERO_USAGE;
    let costUsd: number | null = null;
    let malformed = 0;
    let stopped: 'aborted' | 'timeout' | null = null;
    let killTimer: ReturnType<typeof setTimeout> | undefined;
    const killGroup = (why: 'aborted' | 'timeout') => {
      if (stopped || child.exitCode !== null || child.pid === undefined) return;
      stopped = why;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      killTimer = setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, KILL_GRACE_MS);
    };
    const onAbort = () => killGroup('aborted');
    req.signal?.addEventListener('abort', onAbort, { once: true });
    if (req.signal?.aborted) onAbort();
    const timeout = req.timeoutMs ? setTimeout(() => killGroup('timeout'), req.timeoutMs) : undefined;

    let pending = '';
    const onLine = (line: string) => {
      if (!line.startsWith('@baton ')) {
        text += `${line}\n`;
        push({ type: 'text', text: `${line}\n` });
        return;
      }
      try {
        const m = JSON.parse(line.slice(7)) as { usage?: Partial<TokenUsage>; costUsd?: number };
        if (m.usage) {
          usage = { ...ZERO_USAGE, ...m.usage };
          push({ type: 'usage', usage });
        }
        if (typeof m.costUsd === 'number') {
          costUsd = m.costUsd;
          push({ type: 'cost', usd: m.costUsd });
        }
      } catch {
        malformed++;
        push({ type: 'error', message: 'malformed @baton line', line });
      }
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        onLine(pending.slice(0, nl));
        pending = pending.slice(nl + 1);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_KEEP);
    });
    child.stdin.on('error', () => {}); // a program that does not read its input
    child.stdin.end(req.prompt);
    child.on('error', (ex: NodeJS.ErrnoException) => {
      startError = ex.code === 'ENOENT'
        ? new BatonError('runner_unavailable', `The command runner cannot start "${this.argv[0]}": no such program. Install it or fix the agent's command.`)
        : ex;
    });
    child.on('close', (code) => {
      if (pending) onLine(pending);
      if (timeout) clearTimeout(timeout);
      if (killTimer) clearTimeout(killTimer);
      req.signal?.removeEventListener('abort', onAbort);
      finished = true;
      if (startError) {
        fail(startError);
        wake?.();
        return;
      }
      const status = stopped ?? (code === 0 ? 'completed' : 'failed');
      const r: AgentRunResult = {
        status, text: text.trim(), usage, costUsd, costSource: costUsd === null ? null : 'cli', toolCalls: 0, malformedLines: malformed,
        error: status === 'completed' ? null : stopped ? stopped : `exited with code ${code}${stderr ? `: ${stderr.trim().split('\n').slice(-3).join(' ')}` : ''}`,
        exitCode: code, sessionId: null, durationMs: Date.now() - started, stderr,
      };
      push({ type: 'done', result: r });
      settle(r);
    });
    async function* iterate(): AsyncGenerator<AgentRunEvent> {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (finished) {
          if (startError) throw startError;
          return;
        }
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    }
    return { result, [Symbol.asyncIterator]: () => iterate() };
  }
}
