// What the `baton` command line loads only once it needs it (dist/engine.js, beside the lean dist/cli.js): the core,
// the store, the MCP server and every command but the start of `baton mcp`, which answers its client first.
// Each command's module is imported when the command runs, so the bundle runs the top-level code of that command's
// modules only: `baton status` does not build the MCP server's schemas (zod, the SDK), which cost a third of its
// start-up CPU.

/** The names of the async functions a module exports. */
type AsyncExports<M> = { [K in keyof M]: M[K] extends (...args: never[]) => Promise<unknown> ? K : never }[keyof M];

/** `name` from the module `load` imports: the module (and what it imports) runs on the first call, not before. */
function lazy<M, K extends AsyncExports<M>>(load: () => Promise<M>, name: K): M[K] {
  const call = async (...args: unknown[]) => ((await load())[name] as (...a: unknown[]) => unknown)(...args);
  return call as M[K];
}

export const blueprintCommand = lazy(() => import('./blueprintCommand.js'), 'blueprintCommand');
export const decideCommand = lazy(() => import('./decideCommand.js'), 'decideCommand');
export const cancelCommand = lazy(() => import('./cancelCommand.js'), 'cancelCommand');
export const pipelineCommand = lazy(() => import('./pipelineCommand.js'), 'pipelineCommand');
export const serveOwner = lazy(() => import('./mcpEngine.js'), 'serveOwner');
// A forwarding `baton mcp` (dist/forward.js) that must own the database after all.
export const becomeOwnerOf = lazy(() => import('./mcpEngine.js'), 'becomeOwnerOf');
export const serveFound = lazy(() => import('./mcpEngine.js'), 'serveFound');
export const takeOver = lazy(() => import('./mcpEngine.js'), 'takeOver');
export const serveCommand = lazy(() => import('./serveCommand.js'), 'serveCommand');
export const specCommand = lazy(() => import('./specCommand.js'), 'specCommand');
export const statusCommand = lazy(() => import('./statusCommand.js'), 'statusCommand');
export const listCommand = lazy(() => import('./listCommand.js'), 'listCommand');
export const newCommand = lazy(() => import('./newCommand.js'), 'newCommand');
export const peekCommand = lazy(() => import('./peekCommand.js'), 'peekCommand');
export const pruneCommand = lazy(() => import('./pruneCommand.js'), 'pruneCommand');
export const releaseCommand = lazy(() => import('./releaseCommand.js'), 'releaseCommand');
export const runCommand = lazy(() => import('./runCommand.js'), 'runCommand');
export const sendCommand = lazy(() => import('./sendCommand.js'), 'sendCommand');
export const startCommand = lazy(() => import('./startCommand.js'), 'startCommand');
export const stopCommand = lazy(() => import('./stopCommand.js'), 'stopCommand');
export const buildCatalog = lazy(() => import('../mcp/catalogBuilder.js'), 'buildCatalog');
export const buildSchemaImage = lazy(() => import('../store/buildSchemaImage.js'), 'buildSchemaImage');
export const buildContentCache = lazy(() => import('../host/contentCache.js'), 'buildContentCache');
