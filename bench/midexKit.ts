// The peers folder and the seed's own server, midex, as the benches drive it: where they are, whether midex is set up,
// a midex database seeded with its own content sync, and a client that walks midex's bug-fix workflow.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { StepKind } from './benchKit.js';

const ROOT = join(__dirname, '..');

/** The peers folder: $BATON_PEERS_DIR, else `shared/peers` beside this checkout or one of its parents. */
export function peersDir(): string | null {
  if (process.env.BATON_PEERS_DIR) return resolve(process.env.BATON_PEERS_DIR);
  for (let dir = resolve(ROOT, '..'); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'shared', 'peers', 'compare-midex'))) return join(dir, 'shared', 'peers');
    if (dirname(dir) === dir) return null;
  }
}

/** Where midex-setup.sh builds midex. */
export const midexDir = () => process.env.MIDEX_DIR ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'baton-peers', 'midex');

/** Whether a finished midex build is there. */
export function midexBuilt(): boolean {
  return existsSync(join(midexDir(), '.peers-stamp')) && existsSync(join(midexDir(), 'server', 'dist', 'mcp', 'server.js'));
}

/** What the benches print when midex is not set up, with the command that sets it up. */
export function midexSkipped(peers: string, bench: string) {
  return {
    skipped: 'midex is not set up on this machine',
    setup: `MIDEX_MIRROR=<a clone or git mirror of scscodes/midex> ${join(peers, 'midex-setup.sh')}   (once, a few minutes), then npm run bench -- ${bench}`,
  };
}

/** Creates a midex database at `db` and fills it with midex's own content sync (its workflows and agents). */
export function seedMidex(db: string): void {
  execFileSync(process.execPath, [join(peersDir()!, 'midex-seed.mjs'), midexDir(), db], { cwd: ROOT, stdio: 'ignore', timeout: 120_000 });
}

/** A midex stdio server on `db` (its own process, as each agent starts its own) with the SDK client connected. */
export async function midexClient(db: string, cwd: string): Promise<{ client: Client; pid: number }> {
  const client = new Client({ name: 'peers-midex', version: '1' });
  const transport = new StdioClientTransport({
    command: process.execPath, args: [join(midexDir(), 'server', 'dist', 'mcp', 'server.js')], cwd, stderr: 'ignore',
    env: { ...(process.env as Record<string, string>), MIDEX_DB_PATH: db },
  });
  await client.connect(transport);
  return { client, pid: transport.pid! };
}

/** The answer midex gave to a call of its workflow tools. */
interface MidexAnswer {
  success?: boolean;
  new_token?: string;
  step_name?: string;
}

/**
 * midex's bug-fix workflow through `client`, as compare-midex drives it (its own tool names and shapes): `step()` makes
 * the next call, a start or a continue, and returns the answer's `kind` ('continue' from one step to the next, else
 * 'create' or 'end') and how long it took; a failure throws with midex's answer.
 */
export async function midexSteps(client: Client) {
  const names = (await client.listTools()).tools.map((t) => t.name);
  const nextName = names.find((n) => /next_step/.test(n))!;
  const startName = names.find((n) => /^workflow[._]start$/.test(n))!;
  let token: string | null = null;
  let step = '';
  let i = 0;
  return async (): Promise<{ kind: StepKind; ms: number }> => {
    const args = token
      ? { name: nextName, arguments: { token, output: { summary: `Step ${step} done (${i}).`, artifacts: [{ type: 'report', title: `${step} notes`, content: `# ${step}\n\nFindings for ${step}, round ${i++}.` }] } } }
      : { name: startName, arguments: { workflow_name: 'bug-fix' } };
    const t0 = performance.now();
    const res = await client.callTool(args);
    const ms = performance.now() - t0;
    const text = (res.content as Array<{ type: string; text?: string }>).find((c) => c.type === 'text')?.text ?? '{}';
    let b: MidexAnswer;
    try {
      b = (res.structuredContent ?? JSON.parse(text)) as MidexAnswer;
    } catch {
      throw new Error(`midex answered ${text.slice(0, 300)}`);
    }
    const kind = token === null ? 'create' : 'continue';
    if (b.success === true && b.new_token && b.step_name) {
      token = b.new_token;
      step = b.step_name;
      return { kind, ms };
    }
    token = null;
    if (b.success === true) return { kind: 'end', ms };
    throw new Error(`midex answered ${text.slice(0, 300)}`);
  };
}

/** midex's bug-fix continues one at a time: `next()` times one step-to-step continue (starts and ends untimed). */
export async function midexWalker(dir: string): Promise<{ client: Client; next: () => Promise<number> }> {
  const db = join(dir, 'midex.db');
  seedMidex(db);
  const { client } = await midexClient(db, dir);
  const step = await midexSteps(client);
  const next = async (): Promise<number> => {
    for (;;) {
      const r = await step();
      if (r.kind === 'continue') return r.ms;
    }
  };
  return { client, next };
}
