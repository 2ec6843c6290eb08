// The context provider of a team instance, from its resolved configuration: the file provider under the context
// directory (relative to the project folder), or the memory provider (as openContext.ts, but with the caller's
// `agents` array itself: an agent that joins later — baton new --context — becomes a valid @mention by being pushed
// onto it). `context: false` still needs a channel for the kickoff and @mentions to wake agents: it is kept in memory
// only, and no files are written.
import { isAbsolute, resolve } from 'node:path';
import { MemoryContextProvider } from '../../core/worker/memoryContextProvider.js';
import type { ContextProvider } from '../../core/worker/types.js';
import type { ResolvedContext } from '../../core/worker/workflowVariables.js';
import { FileContextProvider } from './fileContextProvider.js';

/** Opens the provider of an instance; `dir` is its context directory (null in memory). */
export async function createTeamContext(context: ResolvedContext, agents: string[], cwd: string): Promise<{ provider: ContextProvider; dir: string | null }> {
  if (context === false || context.provider === 'memory') {
    const provider = new MemoryContextProvider({ agents, ...(context ? { document: context.document, documents: context.documents } : {}) });
    return { provider, dir: null };
  }
  const dir = isAbsolute(context.dir) ? context.dir : resolve(cwd, context.dir);
  const provider = await FileContextProvider.open({
    agents, dir, channel: context.channel, document: context.document, documents: context.documents,
    ...(context.documentsDir ? { documentsDir: context.documentsDir } : {}),
  });
  return { provider, dir };
}
