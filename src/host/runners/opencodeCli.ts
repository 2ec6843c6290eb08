// opencode (`opencode-ai`): `run --format json`, the prompt on standard input. Everything comes from one
// configuration file in the scratch folder named by OPENCODE_CONFIG: `config` (e.g. a provider and `model`), Baton's
// MCP server as a `remote` entry with the bearer header, the system prompt as an `instructions` file.
import { OpencodeStreamParser } from '../../core/pipelines/streams/opencodeStream.js';
import { deepMerge, serverName, type CliDefinition } from './cliRunner.js';

/** The opencode runner's definition. */
export const opencodeCli: CliDefinition = {
  kind: 'opencode',
  command: 'opencode',
  install: 'Install OpenCode from npm: `npm install -g opencode-ai` (package opencode-ai), or put the folder that holds it on PATH',
  plan(request, scratch, options) {
    let config: Record<string, unknown> = { ...options.config };
    if (request.mcp) {
      const entry = { type: 'remote', url: request.mcp.url, headers: { Authorization: `Bearer ${request.mcp.token}` }, enabled: true };
      config = deepMerge(config, { mcp: { [serverName(request.mcp)]: entry } });
    }
    if (request.model) config.model = request.model;
    if (request.systemPrompt) {
      const previous = Array.isArray(config.instructions) ? config.instructions : [];
      config.instructions = [...previous, scratch.write('system-prompt.md', request.systemPrompt)];
    }
    const file = scratch.write('opencode.json', JSON.stringify(config, null, 2));
    return {
      args: ['run', '--format', 'json'],
      env: { OPENCODE_CONFIG: file, OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' },
      stdin: request.prompt,
    };
  },
  parser: (request) => new OpencodeStreamParser({ mcpServer: request.mcp ? serverName(request.mcp) : undefined }),
};
