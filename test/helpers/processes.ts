// Processes a test starts and watches: whether one is alive, and a command's output as it comes.
import { spawn, type ChildProcessByStdio, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

/** Alive and not a zombie, by /proc (a zombie has ended; only its parent has not collected it yet). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2)[0]!);
  } catch {
    return false;
  }
}

/**
 * The pid a process wrote into `file` (a shell's `echo $$ > file`, or writeFileSync), once it is there: undefined while
 * the file is missing or still empty (the shell's redirection creates it before echo writes). Never 0 or below:
 * process.kill(0) would signal this process's own group, the test runner and CI with it, and -1 every process.
 */
export function readPid(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const pid = /^\s*\d+\s*$/.test(text) ? Number(text) : 0;
  return pid > 1 ? pid : undefined;
}

/** A started command: its output so far, and its exit code once it exits. */
export interface Started {
  child: ChildProcessByStdio<null, Readable, Readable>;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

/** Starts `node args…` with `env` added to this process's, collecting its stdout and stderr. */
export function startNode(args: string[], env: Record<string, string> = {}): Started {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, out: () => out, err: () => err, exited };
}

/**
 * Runs `command args…` (an agent CLI in its JSON-lines mode) to its end and resolves with the JSON objects it printed,
 * one a line (other lines left out); rejects, with its output, when it exits other than 0 or runs past `timeoutMs`.
 */
export function runJsonLines(command: string, args: string[], options: Pick<SpawnOptions, 'cwd' | 'env'>, timeoutMs: number): Promise<Array<Record<string, any>>> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => void (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`${command} exited ${code}: ${err}\n${out}`));
      resolve(out.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>));
    });
  });
}
