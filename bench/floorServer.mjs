// The floor: a bare MCP SDK stdio server with one trivial tool, on the checkout's own SDK. bench/startup.bench.ts times
// its spawn -> initialized (no argument: the tool only answers). Given a file (`node floorServer.mjs LOG`), its tool
// is the durable floor of ../shared/peers/floor-server.mjs: it appends ~1 KB to the file, fdatasyncs it and answers
// ~2 KB of JSON (bench/tail.bench.ts splits its calls' time as Baton's).
import { fdatasyncSync, openSync, writeSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const log = process.argv[2];
const server = new McpServer({ name: 'floor', version: '1.0.0' });
if (log) {
  const fd = openSync(log, 'a');
  const answer = JSON.stringify({ status: 'ok', pad: 'x'.repeat(2000) });
  server.registerTool('write', { description: 'append + fdatasync', inputSchema: {} }, async (args) => {
    writeSync(fd, JSON.stringify(args ?? {}).padEnd(1024, ' ') + '\n');
    fdatasyncSync(fd);
    return { content: [{ type: 'text', text: answer }] };
  });
} else {
  server.registerTool('write', { description: 'answers', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
}
await server.connect(new StdioServerTransport());
