// How V8 compiles sql.js's WebAssembly: in a command that answers and exits, and in the servers.
import { setFlagsFromString } from 'node:v8';

/**
 * Runs sql.js on V8's baseline WebAssembly compiler (Liftoff) alone in this process. V8 otherwise recompiles the
 * functions a database's load runs most with its optimizing compiler (TurboFan) on background threads, and the process
 * waits for those compiles before it exits: `baton status` on a database took a quarter of a second more and twice
 * the CPU, for code it would not run again. For the commands that answer and exit; the servers (mcp, serve) and the
 * commands that hold a run (run, start, new, pipeline run and resume) keep the optimizing tier for the calls they
 * serve (the engine alone, 16 calls in flight, does 4-30% more calls/s with it). Call it before the command opens a
 * database: V8 decides a module's tiers when it compiles it, and clearing the flag later does not bring TurboFan back.
 */
export function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
}

/**
 * Lets V8 recompile sql.js's hot functions with its optimizing compiler on one background thread at a time, not on as
 * many as there are cores: for the servers and the commands that hold a run, which keep both tiers. On two cores the
 * compiles of a server's first seconds otherwise take both from the event loop, and the first tool call of
 * `baton mcp` was answered a quarter later (about 600 ms from the spawn instead of 460, on a database in use) for a
 * fifth more CPU; the calls that follow run the same optimized code. Call it before the command opens a database.
 */
export function optimizeOnOneThread(): void {
  setFlagsFromString('--wasm-num-compilation-tasks=1');
}

/** The environment variable that puts every command, the servers too, on V8's baseline WebAssembly compiler alone. */
export const WASM_TIERS_ENV = 'BATON_WASM_TIERS';

/**
 * Whether BATON_WASM_TIERS asks for the baseline compiler alone in every command (`baseline`), or leaves each command
 * its own choice (unset, empty or `both`). A server on the baseline compiler alone takes about 40% less CPU over a
 * five-call session (the optimizing compiles of its first seconds are not made) and serves fewer calls per second
 * under load: for machines where the CPU of many short sessions counts more than throughput (the test suite sets it).
 * Another value is reported through `warn` and ignored.
 */
export function baselineWasmAsked(env: NodeJS.ProcessEnv, warn: (line: string) => void): boolean {
  const raw = env[WASM_TIERS_ENV];
  const value = raw?.trim().toLowerCase();
  if (value === 'baseline') return true;
  if (value && value !== 'both') warn(`${WASM_TIERS_ENV}="${raw}" is not a choice; using both tiers (choices: baseline, both)`);
  return false;
}
