// Processes a test starts and watches: whether one is alive, and a command's output as it comes.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
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
