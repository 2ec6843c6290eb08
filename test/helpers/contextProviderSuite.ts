// The shared ContextProvider suite (../shared/specs/agent-worker.md): every provider runs it, so the memory and file
// providers keep the same behaviour. Provider-specific cases live with each provider's test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import type { Clock } from '../../src/core/ports.js';
import { CONTEXT_LIMITS } from '../../src/core/worker/contextLimits.js';
import type { ContextProvider } from '../../src/core/worker/types.js';

/** What the suite needs to make a fresh provider. */
export interface ProviderFactory {
  (options: { agents: string[]; clock: Clock; documents?: string[] }): Promise<ContextProvider>;
}

/** A clock that stands still until moved. */
export function fakeClock(start = Date.parse('2024-01-15T10:00:00.000Z')): Clock & { ms: number } {
  const c = { ms: start, now: () => c.ms };
  return c;
}

const AGENTS = ['reviewer', 'coder'];
const refused = (reason: string, pattern: RegExp) => (ex: unknown) => BatonError.is(ex) && ex.reason === reason && pattern.test(ex.message);

/** Runs the shared suite against `make`. */
export function contextProviderSuite(name: string, make: ProviderFactory): void {
  describe(`${name}: channel`, () => {
    it('appends entries with mentions of valid agents and reads them in order', async () => {
      const clock = fakeClock();
      const p = await make({ agents: AGENTS, clock });
      const a = await p.appendChannel('system', 'Workflow started');
      clock.ms += 5000;
      const b = await p.appendChannel('reviewer', '@coder found an issue; cc @nobody, me@reviewer.dev');
      assert.deepEqual(a, { timestamp: '2024-01-15T10:00:00.000Z', from: 'system', message: 'Workflow started', mentions: [] });
      assert.deepEqual(b.mentions, ['coder']);
      assert.equal(b.timestamp, '2024-01-15T10:00:05.000Z');
      assert.deepEqual(await p.readChannel(), [a, b]);
      assert.deepEqual(await p.readChannel(a.timestamp), [b]);
      assert.deepEqual(await p.readChannel(undefined, 1), [b]);
    });

    it('gives two appends in one millisecond increasing timestamps', async () => {
      const p = await make({ agents: AGENTS, clock: fakeClock() });
      const a = await p.appendChannel('reviewer', '@coder first');
      const b = await p.appendChannel('reviewer', '@coder second');
      assert.ok(b.timestamp > a.timestamp, `${b.timestamp} > ${a.timestamp}`);
      await p.ackInbox('coder', a.timestamp);
      assert.deepEqual((await p.getInbox('coder')).map((m) => m.entry.message), ['@coder second']);
    });

    it('keeps timestamps increasing when the clock goes back', async () => {
      const clock = fakeClock();
      const p = await make({ agents: AGENTS, clock });
      const a = await p.appendChannel('system', 'one');
      clock.ms -= 60_000;
      const b = await p.appendChannel('system', 'two');
      assert.ok(b.timestamp > a.timestamp);
    });

    it('round-trips messages that look like markdown structure', async () => {
      const p = await make({ agents: AGENTS, clock: fakeClock() });
      const messages = [
        '### 10:00:00 [system]\nnot an entry',
        '\\### 10:00:00 [coder] <!-- 2024-01-15T10:00:00.000Z -->\nescaped already',
        '### 10:00:01 [coder] <!-- 2024-01-15T10:00:01.000Z -->',
        '# Title\n\n## Section\n\n- item\n\n',
        '',
        'trailing newline\n',
        '\n\nleading blank lines',
        'unicode ✓ — “quotes” 日本',
        'windows\r\nline ends',
      ];
      for (const m of messages) await p.appendChannel('coder', m);
      assert.deepEqual((await p.readChannel()).map((e) => e.message), messages);
    });

    it('refuses oversized messages and invalid senders with the fix', async () => {
      const p = await make({ agents: AGENTS, clock: fakeClock() });
      await assert.rejects(p.appendChannel('coder', 'x'.repeat(CONTEXT_LIMITS.messageBytes + 1)), refused('invalid_input', /at most 64 KB.*document/));
      await assert.rejects(p.appendChannel('co der', 'hi'), refused('invalid_input', /not a valid name/));
      await assert.rejects(p.appendChannel('coder]\n### x', 'hi'), refused('invalid_input', /not a valid name/));
      assert.deepEqual(await p.readChannel(), []);
    });

    it('refuses a malformed since and limit', async () => {
      const p = await make({ agents: AGENTS, clock: fakeClock() });
      await assert.rejects(p.readChannel('yesterday'), refused('invalid_input', /since must be an ISO timestamp/));
      await assert.rejects(p.readChannel(undefined, 0), refused('invalid_input', /limit must be/));
    });
  });

  describe(`${name}: inbox`, () => {
    it('follows the spec\'s example flow', async () => {
      const clock = fakeClock();
      const p = await make({ agents: AGENTS, clock });
      const e = await p.appendChannel('reviewer', '@coder please fix the auth issue');
      const inbox = await p.getInbox('coder');
      assert.deepEqual(inbox, [{ entry: e, unread: true, priority: 'normal' }]);
      assert.deepEqual(await p.getInbox('coder'), inbox, 'checking does not mark as read');
      assert.deepEqual(await p.peekInbox('coder'), inbox);
      assert.deepEqual(await p.getInbox('reviewer'), []);
      await p.ackInbox('coder', e.timestamp);
      assert.deepEqual(await p.getInbox('coder'), []);
    });

    it('marks several mentions and urgent words high', async () => {
      const p = await make({ agents: AGENTS, clock: fakeClock() });
      await p.appendChannel('system', '@coder @reviewer sync up');
      await p.appendChannel('reviewer', '@coder urgent: build is red');
      assert.deepEqual((await p.getInbox('coder')).map((m) => m.priority), ['high', 'high']);
    });

    it('never moves a cursor backwards, and caps it at the newest entry', async () => {
      const clock = fakeClock();
      const p = await make({ agents: AGENTS, clock });
      const a = await p.appendChannel('reviewer', '@coder one');
      clock.ms += 1000;
      const b = await p.appendChannel('reviewer', '@coder two');
      await p.ackInbox('coder', b.timestamp);
      await p.ackInbox('coder', a.timestamp);
      assert.deepEqual(await p.getInbox('coder'), []);
      await p.ackInbox('coder', '2099-01-01T00:00:00Z');
      clock.ms += 1000;
      await p.appendChannel('reviewer', '@coder three');
      assert.deepEqual((await p.getInbox('coder')).map((m) => m.entry.message), ['@coder three'], 'a future ack does not hide later messages');
    });

    it('accepts a timestamp without milliseconds', async () => {
      const clock = fakeClock();
      const p = await make({ agents: AGENTS, clock });
      clock.ms += 500;
      await p.appendChannel('reviewer', '@coder at .500');
      await p.ackInbox('coder', '2024-01-15T10:00:00Z');
      assert.equal((await p.getInbox('coder')).length, 1, '10:00:00Z is before 10:00:00.500Z');
      await assert.rejects(p.ackInbox('coder', 'soon'), refused('invalid_input', /until must be an ISO timestamp/));
    });
  });

  describe(`${name}: documents`, () => {
    it('reads an empty entry point, writes, appends, creates, lists and deletes', async () => {
      const p = await make({ agents: AGENTS, clock: fakeClock(), documents: ['goals.md'] });
      assert.equal(await p.readDocument(), '');
      await p.writeDocument('# Notes\n');
      await p.appendDocument('- one\n');
      assert.equal(await p.readDocument(), '# Notes\n- one\n');
      assert.equal(await p.readDocument('notes.md'), '# Notes\n- one\n');
      await p.createDocument('findings/auth.md', '# Auth\n');
      await p.writeDocument('# Todos\n- [ ] x\n', 'todos.md');
      assert.deepEqual(await p.listDocuments(), ['findings/auth.md', 'goals.md', 'notes.md', 'todos.md']);
      assert.equal(await p.readDocument('./findings//auth.md'), '# Auth\n');
      assert.equal(await p.readDocument('goals.md'), '');
      await p.deleteDocument('findings/auth.md');
      assert.deepEqual(await p.listDocuments(), ['goals.md', 'notes.md', 'todos.md']);
    });

    it('refuses missing, existing and entry-point documents with the fix', async () => {
      const p = await make({ agents: AGENTS, clock: fakeClock() });
      await assert.rejects(p.readDocument('nope.md'), refused('not_found', /no document nope.md.*document_create/));
      await p.createDocument('a.md', 'x');
      await assert.rejects(p.createDocument('a.md', 'y'), refused('invalid_state', /already exists.*document_write/));
      await assert.rejects(p.deleteDocument('notes.md'), refused('invalid_input', /entry-point/));
      await assert.rejects(p.deleteDocument('gone.md'), refused('not_found', /no document gone.md/));
    });

    it('keeps document paths inside the context', async () => {
      const p = await make({ agents: AGENTS, clock: fakeClock() });
      for (const bad of ['../escape.md', 'a/../../b.md', '/etc/passwd', 'C:\\Windows\\x.md', '\\\\server\\share', '..', '', 'a\0b']) {
        await assert.rejects(p.writeDocument('x', bad), refused('invalid_input', /relative to the context directory/), bad);
        await assert.rejects(p.readDocument(bad), refused('invalid_input', /relative to the context directory/), bad);
        await assert.rejects(p.createDocument(bad, 'x'), refused('invalid_input', /relative to the context directory/), bad);
      }
    });

    it('bounds document sizes', async () => {
      const p = await make({ agents: AGENTS, clock: fakeClock() });
      await assert.rejects(p.writeDocument('x'.repeat(CONTEXT_LIMITS.documentBytes + 1)), refused('invalid_input', /at most 1 MB/));
      await p.writeDocument('x'.repeat(CONTEXT_LIMITS.documentBytes - 1));
      await assert.rejects(p.appendDocument('yy'), refused('invalid_input', /at most 1 MB/));
      assert.equal((await p.readDocument()).length, CONTEXT_LIMITS.documentBytes - 1, 'a refused append changes nothing');
    });
  });
}
