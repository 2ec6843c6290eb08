// Rule: many agents claiming parallel steps at once over the real HTTP transport never receive the same
// step twice, and no transition is lost: every step completes once and the workflow closes exactly once.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { openBaton } from '../../src/host/openBaton.js';
import { startOwnerServer } from '../../src/host/ownerServer.js';
import { silentLog } from '../../src/core/ports.js';
import { createMcpServer } from '../../src/mcp/createMcpServer.js';
import { makeWorkspace } from '../helpers/coreHarness.js';

const WIDTH = 10;
const AGENTS = 12;
const wide = [
  'name: wide', 'description: one root, ten parallel steps, one join', 'type: parallel', 'steps:',
  '  - name: root', '    agent: architect', '    description: start',
  ...Array.from({ length: WIDTH }, (_, i) => [`  - name: part-${String(i).padStart(2, '0')}`, '    agent: implementer', '    description: part', '    dependencies: [root]']).flat(),
  '  - name: join', '    agent: reviewer', '    description: join',
  `    dependencies: [${Array.from({ length: WIDTH }, (_, i) => `part-${String(i).padStart(2, '0')}`).join(', ')}]`,
].join('\n');

const out = (s: string) => ({ summary: s, artifacts: [{ type: 'markdown', title: s, content: `# ${s}` }], references: [], confidence: 1 });

describe('concurrency over HTTP', () => {
  it(`${AGENTS} agents claim ${WIDTH} parallel steps at once: each step handed out once, none lost`, { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-conc-'));
    const workspace = makeWorkspace({ wide });
    const opened = await openBaton({ dbPath: join(dir, 'baton.db'), workspace, rateLimits: false, log: silentLog });
    const owner = await startOwnerServer({
      baton: opened.baton, log: silentLog,
      createServer: () => createMcpServer(opened.baton, { toolGroups: ['broker'], version: 'test', log: silentLog }),
    });
    const clients: Client[] = [];
    try {
      for (let i = 0; i < AGENTS; i++) {
        const client = new Client({ name: `agent-${i}`, version: '1' });
        await client.connect(new StreamableHTTPClientTransport(new URL(owner.url), { requestInit: { headers: { Authorization: `Bearer ${owner.token}` } } }));
        clients.push(client);
      }
      const call = async (c: Client, args: Record<string, unknown>) =>
        (await c.callTool({ name: 'workflow_next_step', arguments: args })).structuredContent as unknown as NextStepResponse;
      const start = await call(clients[0]!, { template_name: 'wide' });
      const exec = start.execution_id!;
      // Submitting the root hands the first client one part; everyone else claims at the same moment.
      const firstPart = await call(clients[0]!, { step_token: start.new_step_token, model_output_so_far: out('root') });
      const handedOut: string[] = [];
      const closes: NextStepResponse[] = [];
      async function work(c: Client, first?: NextStepResponse): Promise<void> {
        let r = first ?? (await call(c, { task_id: exec }));
        for (let idle = 0; idle < 200; ) {
          if (r.status === 'ok') {
            handedOut.push(r.next_step_contract!.step_name);
            r = await call(c, { step_token: r.new_step_token, model_output_so_far: out(r.next_step_contract!.step_name) });
            continue;
          }
          if (r.status === 'task_closed') {
            closes.push(r);
            return;
          }
          assert.equal(r.status, 'no_op', JSON.stringify(r));
          if (opened.baton.workflowStatus(exec).status === 'completed') return;
          idle++;
          await new Promise((res) => setTimeout(res, 5));
          r = await call(c, { task_id: exec });
        }
      }
      await Promise.all(clients.map((c, i) => work(c, i === 0 ? firstPart : undefined)));
      const expected = [...Array.from({ length: WIDTH }, (_, i) => `part-${String(i).padStart(2, '0')}`), 'join'];
      assert.deepEqual([...handedOut].sort(), expected.sort(), 'every step handed out exactly once');
      assert.ok(closes.length >= 1, 'agents are told the workflow closed');
      assert.equal(opened.baton.events(exec).filter((e) => e.event_type === 'workflow_completed').length, 1, 'closed exactly once');
      assert.equal(opened.baton.artifacts({ type: 'execution', execution_id: exec, limit: 500 }).artifacts.filter((a) => a.title === 'Workflow Synthesis').length, 1);
      const status = opened.baton.workflowStatus(exec);
      assert.equal(status.status, 'completed');
      assert.ok(status.steps.every((s) => s.status === 'completed' && s.artifacts.length === 1), 'every transition and artifact kept');
      const started = opened.baton.events(exec).filter((e) => e.event_type === 'step_started').length;
      assert.equal(started, WIDTH + 2);
      const claimedBy = new Set(opened.store.all<{ claimed_by: string }>("SELECT claimed_by FROM steps WHERE step_name LIKE 'part-%'", []).map((r) => r.claimed_by));
      assert.ok(claimedBy.size > 1, `parts were spread over several agents (${[...claimedBy].join(', ')})`);
    } finally {
      await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
      await owner.close();
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
