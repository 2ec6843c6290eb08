// A terminal agent stand-in: an MCP SDK client connected to the editor's Baton endpoint with the token from the
// workspace's discovery file (.baton/server.json), as `baton mcp` or any HTTP client would find it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { waitFor } from './workbench.js';

export interface Agent {
  url: string;
  /** Calls `workflow_next_step` and returns its structured answer. */
  nextStep(args: Record<string, unknown>): Promise<Record<string, any>>;
  close(): Promise<void>;
}

/** Connects to the endpoint named in `<workspace>/.baton/server.json` (waits for the editor to write it). */
export async function connectAgent(workspace: string): Promise<Agent> {
  const file = join(workspace, '.baton', 'server.json');
  const { url, token } = await waitFor(`${file}`, () => existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { url: string; token: string }), 30_000);
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return {
    url,
    async nextStep(args) {
      // A well-behaved agent: on rate_limited it waits as told and repeats the same call.
      for (let attempt = 0; ; attempt++) {
        const result = await client.callTool({ name: 'workflow_next_step', arguments: args }, undefined, { timeout: 120_000 });
        const answer = result.structuredContent as Record<string, any> | undefined;
        if (!answer) throw new Error(`workflow_next_step gave no structured content: ${JSON.stringify(result).slice(0, 500)}`);
        if (answer.status !== 'error' || answer.error?.code !== 'rate_limited' || attempt >= 5) return answer;
        await new Promise((r) => setTimeout(r, Number(answer.error.retry_after_ms ?? 1000) + 50));
      }
    },
    close: () => client.close(),
  };
}

/** A plausible step output with one markdown artifact. */
export function stepOutput(step: string): Record<string, unknown> {
  return {
    summary: `Did ${step} for the cart total bug.`,
    artifacts: [{ type: 'markdown', title: `${step} notes`, content: `# ${step}\n\nThe cart total ignored quantities; see src/cart.js.` }],
    references: ['src/cart.js'],
    confidence: 0.9,
  };
}
