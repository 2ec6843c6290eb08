// The floor for start-up: a bare MCP SDK stdio server with one trivial tool, on the checkout's own SDK (the same server
// as ../shared/peers/floor-server.mjs without its file writes). bench/startup.bench.ts times its spawn -> initialized.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const server = new McpServer({ name: 'floor', version: '1.0.0' });
server.registerTool('write', { description: 'answers', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
await server.connect(new StdioServerTransport());
