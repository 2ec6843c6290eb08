// claude (`@anthropic-ai/claude-code`): `-p --output-format stream-json --verbose`, the prompt on standard input.
// Baton's MCP server comes from a `--mcp-config` file in the scratch folder with `--strict-mcp-config` (no other MCP
// configuration is read) and its tools are allowed with `--allowedTools mcp__<server>`; tool search is turned off so
// the model sees Baton's tools at once. `config` is written as a `--settings` file.
import { ClaudeStreamParser } from '../../core/pipelines/streams/claudeStream.js';
import { serverName, type CliDefinition } from './cliRunner.js';

/** The claude runner's definition. */
export const claudeCli: CliDefinition = {
  kind: 'claude',
  command: 'claude',
  install: 'Install Claude Code from npm: `npm install -g @anthropic-ai/claude-code` (package @anthropic-ai/claude-code), or put the folder that holds it on PATH',
  plan(request, scratch, options) {
    const args = ['-p', '--output-format', 'stream-json', '--verbose', '--no-session-persistence'];
    const allowed = [...(request.allowedTools ?? [])];
    if (request.mcp) {
      const name = serverName(request.mcp);
      const config = { mcpServers: { [name]: { type: 'http', url: request.mcp.url, headers: { Authorization: `Bearer ${request.mcp.token}` } } } };
      args.push('--mcp-config', scratch.write('claude-mcp.json', JSON.stringify(config)), '--strict-mcp-config');
      allowed.push(`mcp__${name}`);
    }
    if (allowed.length > 0) args.push('--allowedTools', allowed.join(','));
    if (options.config) args.push('--settings', scratch.write('claude-settings.json', JSON.stringify(options.config)));
    if (request.model) args.push('--model', request.model);
    if (request.systemPrompt) args.push('--append-system-prompt-file', scratch.write('system-prompt.md', request.systemPrompt));
    return {
      args,
      env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1', ENABLE_TOOL_SEARCH: 'false' },
      stdin: request.prompt,
    };
  },
  parser: (request) => new ClaudeStreamParser({ mcpServer: request.mcp ? serverName(request.mcp) : undefined }),
};
