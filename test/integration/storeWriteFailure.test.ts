// Rule: when the journal cannot be written (here the file-size limit of `ulimit -f`, EFBIG, as a full disk gives
// ENOSPC), `baton mcp` answers store_failed naming the journal, and a call so answered is not applied after all: the
// database reopened without the limit holds exactly the acknowledged calls. And when the files are deleted under it
// (the .baton folder removed), it writes them again from memory: nothing acknowledged is lost.
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openStore } from '../../src/store/sqlJsStore.js';
import { validOutput } from '../fixtures/mcp/badInput.js';
import { CLI, ensureBuilt, killAll, runCli, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

interface Body { status?: string; execution_id?: string; new_step_token?: string; next_step_contract?: { step_name: string }; error?: { code: string; message: string } }

/** The servers a test started, killed at its end whatever happened. */
const started: number[] = [];

async function connect(args: string[], fileSizeLimitKb?: number): Promise<Client> {
  const transport = fileSizeLimitKb === undefined
    ? new StdioClientTransport({ command: process.execPath, args: [CLI, ...args], stderr: 'ignore' })
    : new StdioClientTransport({ command: '/bin/sh', args: ['-c', `ulimit -f ${fileSizeLimitKb} && exec "$0" "$@"`, process.execPath, CLI, ...args], stderr: 'ignore' });
  const client = new Client({ name: 'write-failure', version: '1' });
  await client.connect(transport);
  if (transport.pid) started.push(transport.pid);
  return client;
}

test('a journal past the file-size limit: store_failed, and the calls so answered are not in the database reopened', { skip: process.platform === 'win32' ? 'no ulimit' : false, timeout: 120_000 }, async () => {
  ensureBuilt();
  const setup = tempSetup('baton-efbig-');
  const args = ['mcp', '--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'];
  try {
    const client = await connect(args, 900);
    const call = async (a: Record<string, unknown>) => (await client.callTool({ name: 'workflow_next_step', arguments: a })).structuredContent as Body;
    let starts = 0;
    const submitted: Array<[string, string]> = [];
    let failed: { op: 'start' } | { op: 'submit'; execution: string; step: string } | undefined;
    let failure: Body['error'];
    for (let n = 0; n < 5000 && !failed; n++) {
      let b = await call({ template_name: 'bug-fix', task_description: `task ${n}` });
      if (b.status === 'error') [failed, failure] = [{ op: 'start' }, b.error];
      else starts++;
      while (!failed && b.status === 'ok') {
        const step = b.next_step_contract!.step_name;
        const r = await call({ step_token: b.new_step_token, model_output_so_far: { ...validOutput, summary: `${step} done ${'x'.repeat(2000)}` } });
        if (r.status === 'error') [failed, failure] = [{ op: 'submit', execution: b.execution_id!, step }, r.error];
        else submitted.push([b.execution_id!, step]);
        b = r;
      }
    }
    assert.ok(failed, 'the journal reached the limit');
    assert.equal(failure?.code, 'store_failed');
    assert.match(failure!.message, /could not write its journal .*baton\.journal \(EFBIG.*Raise the file-size limit \(ulimit -f\)/);
    // Every later write is refused the same way.
    assert.equal((await call({ template_name: 'bug-fix' })).error?.code, 'store_failed');
    await client.close();

    // Reopened without the limit (a call makes the owner open it, closing checkpoints it).
    const again = await connect(args);
    await again.callTool({ name: 'workflow_next_step', arguments: { template_name: 'no-such-template' } });
    await again.close();
    const store = await openStore({ path: setup.db, access: 'read' });
    try {
      const executions = store.get<{ n: number }>('SELECT count(*) AS n FROM executions')!.n;
      assert.equal(executions, starts, `${starts} starts were acknowledged; a refused one is not there`);
      for (const [execution, step] of submitted) {
        const row = store.get<{ status: string }>('SELECT status FROM steps WHERE execution_id = ? AND step_name = ?', [execution, step]);
        assert.ok(row && ['completed', 'awaiting_approval'].includes(row.status), `acknowledged submit of ${step}: ${row?.status}`);
      }
      if (failed!.op === 'submit') {
        const row = store.get<{ status: string }>('SELECT status FROM steps WHERE execution_id = ? AND step_name = ?', [failed!.execution, failed!.step]);
        assert.equal(row?.status, 'running', 'the submit answered store_failed was not applied');
      }
    } finally {
      await store.close();
    }
  } finally {
    killAll(started);
    rmSync(setup.dir, { recursive: true, force: true });
  }
});

test('its .baton folder deleted under a running baton mcp: the files and server.json come back, and no execution is lost', { timeout: 60_000 }, async () => {
  ensureBuilt();
  const setup = tempSetup('baton-deleted-');
  const dotBaton = join(setup.workspace, '.baton');
  try {
    const client = await connect(['mcp', '--workspace', setup.workspace]);
    const start = async () => ((await client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'x' } })).structuredContent as Body).execution_id!;
    const ids = [await start()];
    await waitFor(() => existsSync(join(dotBaton, 'server.json')), 10_000, 'server.json');
    rmSync(dotBaton, { recursive: true, force: true });
    ids.push(await start());
    await waitFor(() => existsSync(join(dotBaton, 'server.json')), 10_000, 'server.json written again');
    ids.push(await start());
    await client.close();
    const status = await runCli(['status', '--all', '--workspace', setup.workspace]);
    assert.equal(status.code, 0, status.stderr);
    for (const id of ids) assert.ok(status.stdout.includes(id), `${id} is still there:\n${status.stdout}`);
  } finally {
    killAll(started);
    rmSync(setup.dir, { recursive: true, force: true });
  }
});
