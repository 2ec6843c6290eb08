// cursor-agent (not on npm): `-p --output-format stream-json --trust --approve-mcps --workspace CWD PROMPT`, from its
// documented flags. Baton's MCP server is the scratch HOME's `~/.cursor/mcp.json` (cursor-agent's own global MCP
// file), never a `.cursor/mcp.json` in the user's project; `config` is merged into that file. cursor-agent has no
// system-prompt flag, so the system prompt leads the prompt.
import { CursorStreamParser } from '../../core/pipelines/streams/cursorStream.js';
import { deepMerge, serverName, type CliDefinition } from './cliRunner.js';

/** The cursor-agent runner's definition. */
export const cursorAgentCli: CliDefinition = {
  kind: 'cursor-agent',
  command: 'cursor-agent',
  install: 'Install the Cursor CLI with `curl https://cursor.com/install -fsS | bash` (it is not on npm; see cursor.com/docs/cli/installation), and make sure ~/.local/bin is on PATH',
  plan(request, scratch, options) {
    let mcp: Record<string, unknown> = { ...options.config };
    if (request.mcp) {
      const entry = { url: request.mcp.url, headers: { Authorization: `Bearer ${request.mcp.token}` } };
      mcp = deepMerge(mcp, { mcpServers: { [serverName(request.mcp)]: entry } });
    }
    scratch.write('home/.cursor/mcp.json', JSON.stringify(mcp, null, 2));
    const args = ['-p', '--output-format', 'stream-json', '--trust', '--approve-mcps', '--workspace', request.cwd];
    if (request.model) args.push('--model', request.model);
    args.push(request.systemPrompt ? `${request.systemPrompt}\n\n${request.prompt}` : request.prompt);
    return { args, stdin: null };
  },
  parser: (request) => new CursorStreamParser({ mcpServer: request.mcp ? serverName(request.mcp) : undefined }),
};
