// How the faces reach pipelines and shared memory from the facade: they are members of the core (Baton) but not of
// BatonApi, so that api.ts stays a leaf that imports no folder (pipelines/ imports api.ts, never the reverse).
import type { BatonApi } from '../api.js';
import type { Memory } from './memory.js';
import type { PipelineRuns } from './pipelineRuns.js';

/** The pipeline members of a core that serves them. */
export interface PipelineHost {
  readonly memory: Memory;
  readonly pipelines: PipelineRuns;
}

/** `baton`'s pipelines and memory; undefined for a facade that does not serve them (test doubles). */
export function pipelineHost(baton: BatonApi): PipelineHost | undefined {
  const b = baton as BatonApi & Partial<PipelineHost>;
  return b.memory && b.pipelines ? { memory: b.memory, pipelines: b.pipelines } : undefined;
}
