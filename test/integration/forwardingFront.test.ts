// Rule: a `baton mcp` that forwards to the database's owner answers the client's handshake (`initialize`,
// `tools/list`) itself when the owner is of the same build (its discovery file names the same catalog), with the tool
// groups the owner serves, before it loads its engine or reaches the owner; the calls after it go to the owner. An
// owner that never answers: the calls held meanwhile, and the later ones until the client leaves, are answered with
// why and how to end it; one that dies before the forwarder reaches it leaves the database to the forwarder. An owner
// of another build: the handshake goes to the owner, as before. A client that closes stdin right after its calls gets
// their answers, then the forwarder exits.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { after, afterEach, describe, it } from 'node:test';
import { discoveryPath, readDiscovery } from '../../src/host/discovery.js';
import { ensureBuilt, rawMcp, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';

const INIT = { method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const START = { method: 'tools/call', params: { name: 'workflow_next_step', arguments: { template_name: 'bug-fix', task_description: 'through the front' } } };

describe('a forwarding baton mcp answers the handshake for its owner', () => {
  const setups: Array<ReturnType<typeof tempSetup>> = [];
  const children: ChildProcess[] = [];
  ensureBuilt();
  afterEach(() => {
    for (const child of children.splice(0)) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
  });
  after(() => setups.forEach((s) => rmSync(s.dir, { recursive: true, force: true })));

  /** An owner (`baton mcp --tools broker,content`) with its handshake's answers, and a forwarder's arguments. */
  async function owner() {
    const setup = tempSetup('baton-forward-front-');
    setups.push(setup);
    const args = ['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off'];
    const own = rawMcp([...args, '--tools', 'broker,content']);
    children.push(own.child);
    own.send({ id: 1, ...INIT });
    own.send({ method: 'notifications/initialized' });
    own.send({ id: 2, method: 'tools/list', params: {} });
    const [init, tools] = [await own.answer(1), await own.answer(2)];
    const info = await waitFor(() => readDiscovery(setup.db), 10_000, 'the discovery file');
    return { setup, args, own, init, tools, info };
  }

  /** A forwarding `baton mcp` (default groups) that has sent the handshake. */
  function forwarder(args: string[]) {
    const fwd = rawMcp(args);
    children.push(fwd.child);
    fwd.send({ id: 1, ...INIT });
    fwd.send({ method: 'notifications/initialized' });
    fwd.send({ id: 2, method: 'tools/list', params: {} });
    return fwd;
  }

  it("answers it as the owner does, with the owner's groups, while the owner is stopped; the calls reach the owner", async () => {
    const { args, own, init, tools, info } = await owner();
    assert.deepEqual(info.toolGroups, ['broker', 'content'], 'the discovery file names the groups the owner serves');
    assert.match(info.catalog ?? '', /^[0-9a-f]{32}$/);
    own.child.kill('SIGSTOP'); // the owner can answer nothing: whatever answers now is the forwarder
    const fwd = forwarder(args);
    assert.deepEqual(await fwd.answer(1, 20_000), init);
    assert.deepEqual(await fwd.answer(2, 20_000), tools, "the owner's groups (broker, content), not the forwarder's default");
    fwd.send({ id: 3, ...START });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(fwd.answered(3), undefined, 'a call waits for the owner');
    own.child.kill('SIGCONT');
    const started = (await fwd.answer(3)).result as { structuredContent?: { status?: string } };
    assert.equal(started.structuredContent?.status, 'ok', JSON.stringify(started).slice(0, 300));
    assert.match(fwd.stderr(), /forwarding stdio to http:\/\/127\.0\.0\.1/);
  });

  it('an owner that stays stopped: the held call, and each later one, is answered with its pid and how to end it', async () => {
    const { args, own, info } = await owner();
    own.child.kill('SIGSTOP');
    const fwd = forwarder(args);
    await fwd.answer(2, 20_000);
    fwd.send({ id: 3, ...START });
    const answer = (await fwd.answer(3, 20_000)).result as { isError?: boolean; content?: Array<{ text: string }> };
    assert.equal(answer.isError, true, 'a tool error the model reads');
    const why = new RegExp(`owned by Baton process ${info.pid} .*does not answer.*kill -9 ${info.pid}`, 's');
    assert.match(answer.content?.[0]?.text ?? '', why, JSON.stringify(answer));
    // The forwarder stays to say so: an agent whose server had gone would show only "connection closed".
    fwd.send({ id: 4, ...START });
    const later = (await fwd.answer(4, 20_000)).result as { isError?: boolean; content?: Array<{ text: string }> };
    assert.equal(later.isError, true);
    assert.match(later.content?.[0]?.text ?? '', /^Baton's MCP server could not start: /);
    assert.match(later.content?.[0]?.text ?? '', why);
    fwd.child.stdin!.end();
    const code = fwd.child.exitCode ?? (await new Promise((resolve) => fwd.child.once('exit', resolve)));
    assert.equal(code, 1, fwd.stderr());
  });

  it("an owner that dies before the forwarder reaches it (its initialize answered from the owner's catalog): the forwarder owns the database", async () => {
    // The forwarder answers `initialize` from the owner's catalog, then waits for the rest of the handshake (100 ms)
    // before it loads its proxy: it is stopped within that wait, the owner is killed, and then it goes on. Killed once
    // the whole handshake was answered, the owner could be met by a proxy that had loaded meanwhile on a fast machine
    // (that forwarder takes over as the owner dies, another test's case). A test process too slow to stop it within
    // the wait (its stderr already names the owner it met) tries again with a new owner.
    for (let attempt = 1; ; attempt++) {
      const { args, own, init } = await owner();
      const fwd = rawMcp(args);
      children.push(fwd.child);
      fwd.send({ id: 1, ...INIT });
      assert.deepEqual(await fwd.answer(1, 20_000), init, "answered from the owner's catalog");
      fwd.child.kill('SIGSTOP');
      await new Promise((r) => setTimeout(r, 200)); // what it wrote before it stopped, read
      if (/is owned by process/.test(fwd.stderr()) && attempt < 3) continue;
      own.child.kill('SIGKILL');
      await waitFor(() => own.child.exitCode !== null || own.child.signalCode !== null, 20_000, 'the owner to be gone');
      fwd.child.kill('SIGCONT');
      fwd.send({ method: 'notifications/initialized' });
      fwd.send({ id: 2, method: 'tools/list', params: {} });
      await fwd.answer(2, 20_000);
      fwd.send({ id: 3, ...START });
      const started = (await fwd.answer(3, 20_000)).result as { structuredContent?: { status?: string } };
      assert.equal(started.structuredContent?.status, 'ok', JSON.stringify(started).slice(0, 300));
      assert.match(fwd.stderr(), /serving MCP on stdio; owner of /);
      assert.doesNotMatch(fwd.stderr(), /is owned by process/, 'its proxy never met the owner');
      return;
    }
  });

  it('a client that writes its calls and closes stdin at once gets their answers, and the forwarder then exits', async () => {
    const { args } = await owner();
    const fwd = forwarder(args);
    fwd.send({ id: 3, ...START });
    fwd.child.stdin!.end(); // before the proxy is up: it must not wait for an 'end' already emitted
    const started = (await fwd.answer(3, 20_000)).result as { structuredContent?: { status?: string } };
    assert.equal(started.structuredContent?.status, 'ok', JSON.stringify(started).slice(0, 300));
    await waitFor(() => fwd.child.exitCode !== null || fwd.child.signalCode !== null, 20_000, 'the forwarder to exit (it waited for ever)');
    assert.equal(fwd.child.exitCode, 0, fwd.stderr());
    assert.match(fwd.stderr(), /proxy closing: stdin ended/);
  });

  it('an owner of another build: the handshake goes to the owner', async () => {
    const { setup, args, own, init } = await owner();
    const path = discoveryPath(setup.db);
    writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), catalog: 'another-build' }));
    own.child.kill('SIGSTOP');
    const fwd = forwarder(args);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(fwd.answered(1), undefined, 'not answered by the forwarder');
    own.child.kill('SIGCONT');
    assert.deepEqual((await fwd.answer(1)).result, init.result);
  });
});
