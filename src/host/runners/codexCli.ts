// codex (`@openai/codex`): `exec --json --ignore-user-config --ephemeral`, the prompt on standard input (`-`). Baton's
// MCP server is a `-c mcp_servers.<name>={url, bearer_token_env_var, default_tools_approval_mode="approve", required}` override
// whose token travels in the environment; `config` becomes more `-c key=value` overrides (dotted keys, TOML values),
// e.g. a model provider. The system prompt is `-c developer_instructions=…`.
import { CodexStreamParser } from '../../core/pipelines/streams/codexStream.js';
import { serverName, type CliDefinition } from './cliRunner.js';
import { tomlKey, tomlValue } from './toml.js';

/** The variable that carries the MCP bearer token to codex (never an argument, which `ps` would show). */
export const CODEX_TOKEN_VARIABLE = 'BATON_MCP_TOKEN';

/** The codex runner's definition. */
export const codexCli: CliDefinition = {
  kind: 'codex',
  command: 'codex',
  install: 'Install Codex from npm: `npm install -g @openai/codex` (package @openai/codex), or put the folder that holds it on PATH',
  plan(request, _scratch, options) {
    const args = ['exec', '--json', '--skip-git-repo-check', '--ignore-user-config', '--ephemeral'];
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.config ?? {})) args.push('-c', `${key}=${tomlValue(value)}`);
    if (request.mcp) {
      // required: `codex exec` sends its first model request without waiting for servers that are still starting, and
      // the model then has no Baton tools; with it, codex waits (and fails plainly if Baton cannot be reached).
      const server = { url: request.mcp.url, bearer_token_env_var: CODEX_TOKEN_VARIABLE, default_tools_approval_mode: 'approve', required: true };
      args.push('-c', `mcp_servers.${tomlKey(serverName(request.mcp))}=${tomlValue(server)}`);
      env[CODEX_TOKEN_VARIABLE] = request.mcp.token;
    }
    if (request.model) args.push('-m', request.model);
    if (request.systemPrompt) args.push('-c', `developer_instructions=${tomlValue(request.systemPrompt)}`);
    args.push('-');
    return { args, env, stdin: request.prompt };
  },
  parser: (request) => new CodexStreamParser({ mcpServer: request.mcp ? serverName(request.mcp) : undefined }),
};
