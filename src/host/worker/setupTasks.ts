// A team's `setup` tasks: each command runs as the user wrote it (a workflow file is the user's own code) through
// /bin/sh -c, in the workflow's folder, with a timeout, in its own process group (killed with it). Its trimmed
// standard output becomes `${{ as }}`. A failing command stops the start and shows its standard error. Only the
// workflow file's own text is ever shell code: a `${{ name }}` in a command becomes a quoted shell variable
// ("$BATON_VAR_1") whose value travels in the environment, so a value (an earlier task's output such as a PR diff, an
// env.* value) is never parsed by the shell — and nothing an agent wrote reaches a shell at all.
import { spawn } from 'node:child_process';
import { BatonError } from '../../core/errors.js';
import type { SetupTask } from '../../core/worker/types.js';
import { VARIABLE_PATTERN, variablesIn } from '../../core/worker/workflowFile.js';

/** How long one setup command may run; 120 s unless set. */
export const SETUP_TIMEOUT_MS = 120_000;
const OUTPUT_LIMIT = 4 * 1024 * 1024;

/** Options of `runSetup`. */
export interface SetupOptions {
  cwd: string;
  timeoutMs?: number;
  env?: Readonly<Record<string, string | undefined>>;
  /** The workflow's `${{ }}` interpolation: here it reports an unknown variable in a command (naming the known ones). */
  expand: (command: string, vars: Readonly<Record<string, string>>, where: string) => string;
  /** Variables before the setup (reserved ones, env.*). */
  base: Readonly<Record<string, string>>;
  signal?: AbortSignal;
}

/** Runs the tasks in order; returns the variables they set. */
export async function runSetup(tasks: readonly SetupTask[], options: SetupOptions): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [i, task] of tasks.entries()) {
    const { command, env } = shellCommand(task.shell, { ...options.base, ...out }, options.expand, `setup[${i}].shell`);
    const stdout = await runShell(command, i, { ...options, env: { ...options.env, ...env } });
    if (task.as) out[task.as] = stdout.trim();
  }
  return out;
}

/**
 * `shell` with each `${{ name }}` replaced by a reference to an environment variable that holds its value, written for
 * where it stands: `"$BATON_VAR_1"` outside quotes, `${BATON_VAR_1}` inside double quotes, `'"$BATON_VAR_1"'` inside
 * single quotes — so the value is one word, as the person wrote it, and never shell code. Unknown names are refused
 * by `expand` as everywhere else.
 */
export function shellCommand(shell: string, vars: Readonly<Record<string, string>>, expand: SetupOptions['expand'], where: string): { command: string; env: Record<string, string> } {
  const env: Record<string, string> = {};
  const keys = new Map<string, string>();
  for (const name of new Set(variablesIn(shell))) {
    if (vars[name] === undefined) expand(`\${{ ${name} }}`, vars, where); // throws, naming the known ones
    keys.set(name, `BATON_VAR_${keys.size + 1}`);
    env[`BATON_VAR_${keys.size}`] = vars[name]!;
  }
  let command = '';
  let quote: "'" | '"' | null = null;
  let at = 0;
  for (const m of shell.matchAll(VARIABLE_PATTERN)) {
    quote = quoteAfter(shell.slice(at, m.index), quote);
    const key = keys.get(m[1]!.trim())!;
    command += shell.slice(at, m.index) + (quote === '"' ? `\${${key}}` : quote === "'" ? `'"$${key}"'` : `"$${key}"`);
    at = m.index + m[0].length;
  }
  return { command: command + shell.slice(at), env };
}

/** The quote open after `text`, starting with `open` (POSIX sh: backslash escapes outside single quotes). */
function quoteAfter(text: string, open: "'" | '"' | null): "'" | '"' | null {
  let quote = open;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && quote !== "'") i++;
    else if (quote === null && (c === "'" || c === '"')) quote = c;
    else if (c === quote) quote = null;
  }
  return quote;
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
      // 127: the shell found no such command (gh not installed, say); the bare code named no way on.
      const missing = code === 127 ? ' (no such command here: install it, or take this step out of the workflow file)' : '';
      if (code !== 0) return reject(new BatonError('invalid_state', `${label} failed with ${code === null ? `signal ${signal}` : `exit code ${code}`}${missing}${err}`));
      resolve(stdout);
    });
  });
}
