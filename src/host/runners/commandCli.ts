// command: any executable (the runner's `executable` and `args`), the prompt on standard input, standard output as
// the answer (with Baton's JSON-lines events where the program prints them; see commandStream.ts). It learns the rest
// from its environment: BATON_AGENT, BATON_MODEL, BATON_SYSTEM_PROMPT, and Baton's MCP server as BATON_MCP_URL,
// BATON_MCP_TOKEN and BATON_MCP_NAME.
import { CommandStreamParser } from '../../core/pipelines/streams/commandStream.js';
import { serverName, type CliDefinition } from './cliRunner.js';

/** The command runner's definition (its command is the runner's `executable`). */
export const commandCli: CliDefinition = {
  kind: 'command',
  command: '',
  install: 'Check the agent\'s command: its first item must be a program on PATH or a path to an executable file.',
  plan(request) {
    const env: Record<string, string> = { BATON_AGENT: request.agent };
    if (request.model) env.BATON_MODEL = request.model;
    if (request.systemPrompt) env.BATON_SYSTEM_PROMPT = request.systemPrompt;
    if (request.mcp) Object.assign(env, { BATON_MCP_URL: request.mcp.url, BATON_MCP_TOKEN: request.mcp.token, BATON_MCP_NAME: serverName(request.mcp) });
    return { args: [], env, stdin: request.prompt };
  },
  parser: () => new CommandStreamParser(),
};
