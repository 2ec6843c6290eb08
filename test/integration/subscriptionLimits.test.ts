// Rule: resources/subscribe on the real `baton mcp` (stdio) refuses, with Invalid params naming the fix, what would
// only grow the owner's memory: a URI longer than any Baton resource's (up to the 10 MiB a message may be), and more
// than MAX_SUBSCRIPTIONS subscriptions in one session; subscribing again to one it has, and any after an unsubscribe,
// work. A URI of a scheme Baton does not serve is taken (answered {}, as the MCP spec and its conformance suite ask)
// and never updated.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { MAX_SUBSCRIBED_URI_CHARS, MAX_SUBSCRIPTIONS } from '../../src/mcp/subscriptions.js';
import { ensureBuilt, tempSetup, waitFor } from '../fixtures/mcp/cliHarness.js';
import { rawStdio } from '../fixtures/mcp/rawStdio.js';

describe('baton mcp bounds what a session may subscribe to', () => {
  const setup = tempSetup('baton-subscriptions-');
  let mcp: ReturnType<typeof rawStdio>;
  let next = 1;
  const subscribe = async (uri: string, method = 'resources/subscribe') => {
    const id = next++;
    mcp.send({ id, method, params: { uri } });
    return mcp.answer(id, 20_000);
  };

  before(async () => {
    ensureBuilt();
    mcp = rawStdio(['--db', setup.db, '--workspace', setup.workspace]);
    await mcp.initialized();
  });
  after(async () => {
    await mcp.close();
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('takes a URI of a scheme it does not serve, and refuses one longer than any of its resources', async () => {
    const other = await subscribe('test://watched-resource');
    assert.deepEqual(other.result, {}, JSON.stringify(other.error));
    assert.deepEqual((await subscribe('test://watched-resource', 'resources/unsubscribe')).result, {});
    const long = await subscribe(`workflow-status://${'e'.repeat(9 * 1024 * 1024)}`);
    assert.equal(long.error?.code, -32602);
    assert.match(long.error?.message, new RegExp(`^uri "workflow-status://e{62}…" is 9437202 characters, longer than any Baton resource URI \\(at most ${MAX_SUBSCRIBED_URI_CHARS}\\)`));
  });

  it(`takes ${MAX_SUBSCRIPTIONS} subscriptions, refuses one more until one is dropped, and takes one it has again`, async () => {
    // Sent at once, as a client that subscribes to each run it lists does (and one at a time would take a poll each).
    const ids = Array.from({ length: MAX_SUBSCRIPTIONS }, (_, i) => {
      const id = next++;
      mcp.send({ id, method: 'resources/subscribe', params: { uri: `workflow-status://exec-${i}` } });
      return id;
    });
    const answers = await waitFor(() => (ids.every((id) => mcp.answersTo(id).length) ? ids.map((id) => mcp.answersTo(id)[0]!) : null), 30_000, 'the subscriptions\' answers');
    assert.deepEqual(answers.filter((a) => a.error), []);
    assert.ok(answers.every((a) => JSON.stringify(a.result) === '{}'));
    const over = await subscribe('workflow-status://active');
    assert.equal(over.error?.code, -32602);
    assert.match(over.error?.message, new RegExp(`^this session already has ${MAX_SUBSCRIPTIONS} subscriptions, the most one may have; unsubscribe \\(resources/unsubscribe\\)`));
    assert.deepEqual((await subscribe('workflow-status://exec-7')).result, {}, 'one it has already');
    assert.deepEqual((await subscribe('workflow-status://exec-0', 'resources/unsubscribe')).result, {});
    assert.deepEqual((await subscribe('workflow-status://active')).result, {});
    assert.equal(mcp.child.exitCode, null);
    assert.deepEqual(mcp.notJson, []);
  });
});
