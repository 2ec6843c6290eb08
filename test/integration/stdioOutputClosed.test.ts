// Rule: a real `baton mcp` whose client stops reading its stdout (closes its end, or dies) stops in order, as when its
// client closes stdin: exit 0 with a warning naming why, its discovery file removed, not a crash on EPIPE with a
// stack trace; the database is intact, and the next `baton mcp` on it starts a workflow. So does one that forwards.
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { discoveryPath } from '../../src/host/discovery.js';
import { ensureBuilt, rawMcp, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

const T = { timeout: 60_000 };
const INIT = { method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const START = { method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'after EPIPE' } } };

describe('baton mcp: the client stops reading stdout', () => {
  const setup = tempSetup('baton-stdout-closed-');
  const kills: Array<() => void> = [];
  after(() => {
    for (const kill of kills) kill();
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('stops in order on EPIPE, and the database serves the next process', T, async () => {
    ensureBuilt();
    const args = ['--db', setup.db, '--workspace', setup.workspace];
    const mcp = rawMcp(args);
    kills.push(() => mcp.child.kill('SIGKILL'));
    const exited = new Promise<number | null>((resolve) => mcp.child.once('exit', (code) => resolve(code)));
    mcp.send({ id: 1, ...INIT });
    await mcp.answer(1);
    mcp.send({ id: 2, method: 'resources/list' });
    await mcp.answer(2);
    await waitFor(() => existsSync(discoveryPath(setup.db)), 10_000, 'its discovery file');
    mcp.child.stdout!.destroy();
    mcp.send({ id: 3, ...START }); // its answer is the first write to the closed pipe
    assert.equal(await exited, 0, mcp.stderr());
    assert.match(mcp.stderr(), /stdout: write EPIPE; the client reads no answers any more, so this process stops/);
    assert.doesNotMatch(mcp.stderr(), /Unhandled 'error' event/);
    assert.equal(existsSync(discoveryPath(setup.db)), false, 'its discovery file is removed, as in an orderly stop');

    const next = rawMcp(args);
    kills.push(() => next.child.kill('SIGKILL'));
    next.send({ id: 1, ...INIT });
    await next.answer(1);
    next.send({ id: 2, ...START });
    const started = (await next.answer(2)).result as { structuredContent?: { status?: string } };
    assert.equal(started.structuredContent?.status, 'ok', JSON.stringify(started).slice(0, 300));

    // A `baton mcp` that forwards to that owner stops the same way.
    const forwarding = rawMcp(args);
    kills.push(() => forwarding.child.kill('SIGKILL'));
    const forwardingExited = new Promise<number | null>((resolve) => forwarding.child.once('exit', (code) => resolve(code)));
    forwarding.send({ id: 1, ...INIT });
    await forwarding.answer(1);
    await waitFor(() => /forwarding stdio to http:\/\/127\.0\.0\.1/.test(forwarding.stderr()), 10_000, 'the second process forwarding');
    forwarding.child.stdout!.destroy();
    forwarding.send({ id: 2, method: 'resources/list' });
    assert.equal(await forwardingExited, 0, forwarding.stderr());
    assert.match(forwarding.stderr(), /stdout: write EPIPE; the client reads no answers any more/);
    next.child.stdin!.end();
    await waitFor(() => next.child.exitCode !== null, 10_000, 'the owner to exit');
  });
});
