// What the `baton` command line loads only once it needs it (dist/engine.js, beside the lean dist/cli.js): the core,
// the store, the MCP server and every command but the start of `baton mcp`, which answers its client first.
export { blueprintCommand } from './blueprintCommand.js';
export { decideCommand } from './decideCommand.js';
export { cancelCommand } from './cancelCommand.js';
export { pipelineCommand } from './pipelineCommand.js';
export { forwardMcp, serveOwner } from './mcpEngine.js';
export { serveCommand } from './serveCommand.js';
export { specCommand } from './specCommand.js';
export { statusCommand } from './statusCommand.js';
export { listCommand } from './listCommand.js';
export { newCommand } from './newCommand.js';
export { peekCommand } from './peekCommand.js';
export { pruneCommand } from './pruneCommand.js';
export { releaseCommand } from './releaseCommand.js';
export { runCommand } from './runCommand.js';
export { sendCommand } from './sendCommand.js';
export { startCommand } from './startCommand.js';
export { stopCommand } from './stopCommand.js';
export { buildCatalog } from '../mcp/catalogBuilder.js';
export { buildSchemaImage } from '../store/buildSchemaImage.js';
export { buildContentCache } from '../host/contentCache.js';
