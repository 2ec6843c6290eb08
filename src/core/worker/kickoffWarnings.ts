// What a person would want to hear about a team's kickoff before the run (the CLI's `baton run`/`start` and the
// editor's Run Agent Team say it): agents wake only when @mentioned, so a kickoff that mentions none of them wakes
// nobody, and an @name that is no agent of the workflow wakes nobody either.
import { mentionedNames } from './mentions.js';
import type { WorkflowFile } from './types.js';

/**
 * The warnings about `file`'s kickoff. `run` ends once every agent is idle, which with nobody woken is at once;
 * `start` keeps the team for messages (`baton send`, the panel), so no kickoff is fine there.
 */
export function kickoffWarnings(file: WorkflowFile, mode: 'run' | 'start' = 'start'): string[] {
  const agents = Object.keys(file.agents);
  if (file.kickoff === undefined) {
    return mode === 'run' ? [`the workflow has no kickoff, so no agent wakes up and the team ends at once; add one, as in kickoff: "@${agents[0]} …" (or use baton start, then baton send)`] : [];
  }
  const named = mentionedNames(file.kickoff);
  const out = named.filter((n) => !agents.includes(n)).map((n) => `the kickoff mentions @${n}, which is not an agent of this workflow (agents: ${agents.join(', ')})`);
  if (!named.some((n) => agents.includes(n))) {
    const then = mode === 'run' ? 'the team ends at once' : 'the team waits until a message @mentions one';
    out.push(`the kickoff mentions none of the agents, so none wakes up and ${then}; address one, as in "@${agents[0]} …"`);
  }
  return out;
}
