// How the faces and the `context` tools reach team runs from the facade: a member of the core (Baton), not of
// BatonApi, as pipelineHost does for pipelines (api.ts stays a leaf that imports no folder).
import type { BatonApi } from '../api.js';
import type { TeamRuns } from './teamRuns.js';

/** The team members of a core that serves them. */
export interface TeamHost {
  readonly teams: TeamRuns;
}

/** `baton`'s team runs; undefined for a facade that does not serve them (test doubles). */
export function teamHost(baton: BatonApi): TeamHost | undefined {
  const b = baton as BatonApi & Partial<TeamHost>;
  return b.teams ? { teams: b.teams } : undefined;
}
