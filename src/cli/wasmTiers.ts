// How V8 compiles sql.js's WebAssembly in the `baton` commands: the baseline compiler alone for their first seconds.
import { setFlagsFromString } from 'node:v8';

/**
 * How long a command runs sql.js on V8's baseline WebAssembly compiler (Liftoff) alone before the optimizing one
 * (TurboFan) may recompile its hot functions: longer than a command that answers and exits takes, and than a server
 * takes to open its database and answer an agent's first calls.
 */
export const BASELINE_MS = 5000;

/**
 * Runs sql.js on Liftoff alone for this command's first BASELINE_MS, then lets V8 tier its hot functions up to
 * TurboFan as usual (V8 reads the flag when a function has run enough to tier up). With both tiers from the start, V8
 * recompiled the functions a database's load runs most on background threads, for code a short command would not run
 * again, and the process waited for those compiles before it exited: `baton status` on a database exited a quarter of
 * a second after its answer, with twice the CPU; on a 2-core machine they also slowed a server's first answers (`baton
 * mcp`: its first `workflow_next_step` about 0.55 s after spawn, 0.40 s on Liftoff). A server wants TurboFan's code
 * after that (the engine alone, 16 calls in flight: about 4,000-4,250 calls/s with both tiers, 3,050-3,150 on Liftoff
 * alone, 3,800 with TurboFan back after 2 s of 12). The timer does not keep the process alive.
 */
export function startOnBaselineWasm(ms = BASELINE_MS): void {
  setFlagsFromString('--liftoff-only');
  setTimeout(() => setFlagsFromString('--no-liftoff-only'), ms).unref();
}
