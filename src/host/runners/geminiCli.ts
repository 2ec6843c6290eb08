// gemini (`@google/gemini-cli`): `-o stream-json`, the prompt on standard input. Baton's MCP server is an entry of
// `~/.gemini/settings.json` in the scratch HOME (`httpUrl`, the bearer header, `trust: true`, without which gemini
// leaves its tools out); `config` is merged into that settings file (e.g. `security.auth.selectedType`). The system
// prompt is the scratch HOME's `~/.gemini/GEMINI.md`, which gemini adds to its own. The project folder is trusted
// for the run through the environment.
import { GeminiStreamParser } from '../../core/pipelines/streams/geminiStream.js';
import { deepMerge, serverName, type CliDefinition } from './cliRunner.js';

/** The gemini runner's definition. */
export const geminiCli: CliDefinition = {
  kind: 'gemini',
  command: 'gemini',
  install: 'Install Gemini CLI from npm: `npm install -g @google/gemini-cli` (package @google/gemini-cli), or put the folder that holds it on PATH',
  plan(request, scratch, options) {
    let settings: Record<string, unknown> = { ...options.config };
    if (request.mcp) {
      const entry = { httpUrl: request.mcp.url, headers: { Authorization: `Bearer ${request.mcp.token}` }, trust: true };
      settings = deepMerge(settings, { mcpServers: { [serverName(request.mcp)]: entry } });
    }
    scratch.write('home/.gemini/settings.json', JSON.stringify(settings, null, 2));
    if (request.systemPrompt) scratch.write('home/.gemini/GEMINI.md', request.systemPrompt);
    const args = ['-o', 'stream-json'];
    if (request.model) args.push('-m', request.model);
    return { args, env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' }, stdin: request.prompt };
  },
  parser: (request) => new GeminiStreamParser({ mcpServer: request.mcp ? serverName(request.mcp) : undefined }),
};
