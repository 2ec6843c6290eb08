// Bounds V8's young generation in a long-running Baton server (`baton mcp`, `baton serve`).
//
// Every call allocates a few hundred kilobytes that die young (parsed requests, step results, journal records). V8
// doubles the young generation whenever enough of it has survived since it last grew, which over a long session is
// always: it ends at 2 x 16 MiB, the largest share of a server's memory after 1,500 steps, for no gain in speed
// measured on Baton's calls (paired runs, sequential and 16 in flight). V8 reads the growth factor each time it would
// grow the space, so once the space has reached YOUNG_GENERATION_BYTES the factor is set to 1 and it grows no more.
// It is allowed to grow that far because a young generation much smaller than the data a call keeps alive for a
// moment copies that data over and over. Not for the editor's extension host: the flag is process-wide.
import { availableParallelism } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** Both semi-spaces of the young generation together, at most (V8's own limit is 32 MiB). */
export const YOUNG_GENERATION_BYTES = 8 * 1024 * 1024;

/** Stops V8 from growing this process's young generation past YOUNG_GENERATION_BYTES. */
export function capYoungGeneration(): void {
  const reached = () => (getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0) >= YOUNG_GENERATION_BYTES;
  const stop = () => setFlagsFromString('--semi-space-growth-factor=1');
  if (reached()) {
    stop();
    return;
  }
  // After each garbage collection (the space only grows in one): stop once it has reached the size.
  const observer = new PerformanceObserver(() => {
    if (!reached()) return;
    stop();
    observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
}

/** Cores at or below which a server scavenges on its main thread alone (see scavengeAlone). */
export const SCAVENGE_ALONE_MAX_CORES = 2;

/**
 * On a machine of SCAVENGE_ALONE_MAX_CORES cores or fewer, has V8 scavenge the young generation on the main thread
 * alone (`--no-parallel-scavenge`, read at each scavenge); says whether it did. A parallel scavenge shares the copying
 * with a helper thread and waits for it, and on two cores the other one is busy with the client (an agent, the load
 * driver): with 16 calls in flight over stdio a scavenge (about 0.4 MB kept alive) took 0.64-0.86 ms, alone 0.44-0.59;
 * the server's time in scavenges fell by 25-35% in each of 15 pairs of 8 s runs, its calls/s rose by 3% on average
 * (higher in 11 of the 15); under 16 HTTP clients 25% less time in scavenges, calls/s within 2%. On more cores the
 * helper has one of its own, and V8's default stays.
 */
export function scavengeAlone(cores = availableParallelism()): boolean {
  if (cores > SCAVENGE_ALONE_MAX_CORES) return false;
  setFlagsFromString('--no-parallel-scavenge');
  return true;
}

/**
 * What a long-running Baton server (`baton mcp`, `baton serve`) sets for V8's young generation, at its start: capped
 * (capYoungGeneration), and on a small machine scavenged on the main thread alone (scavengeAlone).
 */
export function tuneServerHeap(): void {
  capYoungGeneration();
  scavengeAlone();
}
