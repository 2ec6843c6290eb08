// Points on a call's path that a bench can time (bench/tailTrace.cjs, loaded with --require before Baton): where a tool
// call's handler starts, the engine's transaction starts and ends, the journal's flush starts, an answer is sent (over
// stdio). The bench sets a function under a global symbol before Baton loads; without it (always, outside a bench) a
// point costs one check. A global symbol, not a module's state: dist/cli.js and dist/engine.js each bundle this module.

/** The names of the points, in the order a call passes them. */
export type TracePointName = 'call' | 'transaction' | 'transaction-end' | 'flush' | 'send';

const HOOK = Symbol.for('baton.tracePoint');

/** Records that the process reached `name` now; undefined unless a bench set the hook before Baton loaded. */
export const tracePoint = (globalThis as Record<symbol, unknown>)[HOOK] as ((name: TracePointName) => void) | undefined;
