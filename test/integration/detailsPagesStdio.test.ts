// Rule: over the real `baton mcp` (stdio) and the official SDK client, which checks each answer against the tool's
// output schema, get_execution_details on a run with more artifacts and logs than a page holds lists a bounded page
// of each, and following pages.<list>.nextOffset lists every artifact and every log exactly once. (The run is
// written by the core into the database beforehand: 274 calls over stdio, each flushed to disk, took 20 s.)
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DETAILS_LIST_LIMIT } from '../../src/core/lifecycle/detailsPages.js';
import { ensureBuilt, killAll, startMcp, tempSetup, type CliSession } from '../fixtures/mcp/cliHarness.js';
import { openLifecycle } from '../helpers/lifecycleHarness.js';

interface Page { total: number; limit: number; offset: number; nextOffset?: number }
interface Details {
  artifacts?: Array<{ id: string; name: string; content: string }>;
  logs?: Array<{ id: string; message: string }>;
  pages: { artifacts?: Page; logs?: Page };
}

describe('get_execution_details over stdio: paging through a long run', () => {
  const setup = tempSetup('baton-details-pages-');
  let session: CliSession;
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await session.client.callTool({ name, arguments: args });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    return { sc: r.structuredContent as Record<string, unknown>, text: (r.content as Array<{ text: string }>)[0]!.text };
  };

  const n = DETAILS_LIST_LIMIT + 37;
  let executionId: string;
  const stored = { artifacts: [] as string[], logs: [] as string[] };

  before(async () => {
    ensureBuilt();
    mkdirSync(dirname(setup.db), { recursive: true });
    const rig = await openLifecycle({ dbPath: setup.db, workspace: setup.workspace });
    const lc = rig.baton.lifecycle;
    executionId = (await lc.startExecution({ workflowName: 'bug-fix' })).id;
    for (let i = 0; i < n; i++) {
      stored.artifacts.push((await lc.storeArtifact({ executionId, name: `a-${i}.md`, contentType: 'markdown', content: `# ${i}` })).id);
      stored.logs.push((await lc.log({ executionId, layer: 'step', layerId: `l${i}`, logLevel: 'info', message: `log ${i}` })).log.id);
    }
    await rig.close();
    session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--tools', 'lifecycle', '--rate-limits', 'off']);
    // The SDK client checks structuredContent against the output schemas it has listed.
    assert.ok((await session.client.listTools()).tools.some((t) => t.name === 'get_execution_details' && t.outputSchema?.properties?.pages));
  });
  after(async () => {
    await session?.client.close().catch(() => undefined);
    if (session?.pid) killAll([session.pid]);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('lists more artifacts and logs than a page holds, each exactly once across the pages', async () => {
    // The default page: the newest DETAILS_LIST_LIMIT of each, and where the rest is.
    const first = await call('get_execution_details', { executionId, includeArtifacts: true, includeLogs: true });
    const d = first.sc as unknown as Details;
    assert.deepEqual(d.artifacts!.map((a) => a.id), stored.artifacts.slice(n - DETAILS_LIST_LIMIT));
    assert.deepEqual(d.logs!.map((l) => l.id), stored.logs.slice(n - DETAILS_LIST_LIMIT));
    assert.deepEqual(d.pages.logs, { total: n, limit: DETAILS_LIST_LIMIT, offset: 0, nextOffset: DETAILS_LIST_LIMIT });
    assert.match(first.text, new RegExp(`Listed ${DETAILS_LIST_LIMIT} of ${n} logs \\(logsOffset: ${DETAILS_LIST_LIMIT} lists older ones\\); `));

    // Both lists paged together, each by its own limit and offset, until neither has older ones.
    const seen = { artifacts: [] as string[], logs: [] as string[] };
    let offsets: { artifacts?: number; logs?: number } = { artifacts: 0, logs: 0 };
    let calls = 0;
    while (offsets.artifacts !== undefined || offsets.logs !== undefined) {
      const args: Record<string, unknown> = { executionId, includeSteps: false };
      if (offsets.artifacts !== undefined) Object.assign(args, { includeArtifacts: true, artifactsLimit: 30, artifactsOffset: offsets.artifacts });
      if (offsets.logs !== undefined) Object.assign(args, { includeLogs: true, logsLimit: 50, logsOffset: offsets.logs });
      const page = (await call('get_execution_details', args)).sc as unknown as Details;
      if (page.artifacts) seen.artifacts.unshift(...page.artifacts.map((a) => a.id));
      if (page.logs) seen.logs.unshift(...page.logs.map((l) => l.id));
      offsets = { artifacts: page.pages.artifacts?.nextOffset, logs: page.pages.logs?.nextOffset };
      calls++;
    }
    assert.deepEqual(seen, stored, 'every artifact and every log, once each, in the order stored');
    assert.equal(calls, Math.ceil(n / 30));
  });
});
