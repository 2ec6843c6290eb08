// A team's `setup` tasks: each command runs as the user wrote it (a workflow file is the user's own code) through
// /bin/sh -c, in the workflow's folder, with a timeout, in its own process group (killed with it). Its trimmed
// standard output becomes `${{ as }}`. A failing command stops the start and shows its standard error. Only the
// workflow file's own text and the values of earlier tasks reach a shell string — never anything an agent wrote.
import { spawn } from 'node:child_process';
import { BatonError } from '../../core/errors.js';
import type { SetupTask } from '../../core/worker/types.js';

/** How long one setup command may run; 120 s unless set. */
export const SETUP_TIMEOUT_MS = 120_000;
const OUTPUT_LIMIT = 4 * 1024 * 1024;

/** Options of `runSetup`. */
export interface SetupOptions {
  cwd: string;
  timeoutMs?: number;
  env?: Readonly<Record<string, string | undefined>>;
  /** Interpolates `${{ }}` in a command with the variables so far (the workflow's own text and earlier outputs). */
  expand: (command: string, vars: Readonly<Record<string, string>>, where: string) => string;
  /** Variables before the setup (reserved ones, env.*). */
  base: Readonly<Record<string, string>>;
  signal?: AbortSignal;
}

/** Runs the tasks in order; returns the variables they set. */
export async function runSetup(tasks: readonly SetupTask[], options: SetupOptions): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [i, task] of tasks.entries()) {
    const command = options.expand(task.shell, { ...options.base, ...out }, `setup[${i}].shell`);
    const stdout = await runShell(command, i, options);
    if (task.as) out[task.as] = stdout.trim();
  }
  return out;
}

/** One command through /bin/sh -c; its standard output, or a BatonError with its standard error. */
function runShell(command: string, index: number, options: SetupOptions): Promise<string> {
  const timeoutMs = options.timeoutMs ?? SETUP_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: options.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...options.env },
    });
    let stdout = '';
    let stderr = '';
    let why: 'timeout' | 'aborted' | 'too_large' | null = null;
    const kill = (reason: typeof why) => {
      why ??= reason;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => kill('timeout'), timeoutMs);
    const onAbort = () => kill('aborted');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (stdout.length > OUTPUT_LIMIT) kill('too_large');
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-16 * 1024)));
    child.on('error', (ex) => reject(new BatonError('invalid_state', `setup[${index}] could not start /bin/sh: ${ex.message}`)));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      const label = `setup[${index}] \`${command.length > 200 ? `${command.slice(0, 200)}…` : command}\``;
      const err = stderr.trim() ? `:\n${stderr.trim()}` : ' (no standard error)';
      if (why === 'timeout') return reject(new BatonError('invalid_state', `${label} did not finish within ${timeoutMs / 1000} s and was stopped${err}`));
      if (why === 'aborted') return reject(new BatonError('invalid_state', `${label} was stopped`));
      if (why === 'too_large') return reject(new BatonError('invalid_state', `${label} printed more than ${OUTPUT_LIMIT / 1024 / 1024} MB; write big output to a file and pass its path instead`));
      if (code !== 0) return reject(new BatonError('invalid_state', `${label} failed with ${code === null ? `signal ${signal}` : `exit code ${code}`}${err}`));
      resolve(stdout);
    });
  });
}
