// Rule: @mentions, priority and inbox derivation follow the spec: valid agents only, first-mention order without
// repeats; unknown names, e-mail addresses and code spans are not mentions; several mentions or urgent keywords are
// high priority; the inbox holds mentions after the read cursor, and cursors never move backwards.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { advanceCursor, calculatePriority, deriveInbox, extractMentions, normalizeTimestamp } from '../../src/core/worker/mentions.js';
import type { ChannelEntry } from '../../src/core/worker/types.js';

const AGENTS = ['reviewer', 'coder', 'coordinator', 'qa-bot'];

describe('extractMentions', () => {
  const cases: Array<[string, string, string[]]> = [
    ['spec example', '@coder please fix the auth issue', ['coder']],
    ['two agents in order', '@reviewer and @coder, look', ['reviewer', 'coder']],
    ['no repeats', '@coder @reviewer @coder', ['coder', 'reviewer']],
    ['unknown names are not mentions', '@nobody and @Coder (case matters)', []],
    ['hyphenated names', 'ping @qa-bot.', ['qa-bot']],
    ['a longer name is another name', '@coder-bot is not coder', []],
    ['punctuation after the name', '(@coder), @reviewer: ok', ['coder', 'reviewer']],
    ['e-mail address', 'mail coder@reviewer.com or a@coder.io', []],
    ['e-mail next to a mention', 'me@coder.dev, @reviewer', ['reviewer']],
    ['agent@instance names the agent', '@coder@pr-123 please', ['coder']],
    ['inline code span', 'run `@coder` then ask @reviewer', ['reviewer']],
    ['double-backtick span', 'see ``a ` @coder`` here', []],
    ['fenced block', 'look:\n```ts\nconst x = "@coder";\n```\n@reviewer done', ['reviewer']],
    ['tilde fence', '~~~\n@coder\n~~~', []],
    ['unclosed fence runs to the end', 'text\n```\n@coder', []],
    ['unmatched backtick is not a span', 'a ` b @coder', ['coder']],
    ['start of message', '@coordinator', ['coordinator']],
    ['empty message', '', []],
  ];
  for (const [name, message, expected] of cases) {
    it(name, () => assert.deepEqual(extractMentions(message, AGENTS), expected));
  }
  it('stays fast on adversarial 64 KB messages (backtick runs of every length, fences, @ floods)', () => {
    const nasty = [
      Array.from({ length: 300 }, (_, i) => `${'`'.repeat(i + 1)}a`).join(' ').slice(0, 65536),
      '` @coder '.repeat(7000), '```\n'.repeat(16000), `x\n\`\`\`${' @coder'.repeat(9000)}`, '@'.repeat(65536), 'a@b.c '.repeat(10000),
    ];
    for (const m of nasty) {
      const started = performance.now();
      extractMentions(m, AGENTS);
      assert.ok(performance.now() - started < 1500, `${m.slice(0, 20)}… took ${Math.round(performance.now() - started)} ms`);
    }
  });
  it('finds mentions on repeated calls (no shared regex state)', () => {
    assert.deepEqual(extractMentions('@coder', AGENTS), ['coder']);
    assert.deepEqual(extractMentions('@coder', AGENTS), ['coder']);
  });
});

const entry = (message: string, mentions: string[], timestamp = '2024-01-15T10:00:00.000Z', from = 'reviewer'): ChannelEntry => ({ timestamp, from, message, mentions });

describe('calculatePriority', () => {
  const cases: Array<[string, ChannelEntry, 'normal' | 'high']> = [
    ['one mention', entry('@coder fix it', ['coder']), 'normal'],
    ['several mentions', entry('@coder @reviewer sync', ['coder', 'reviewer']), 'high'],
    ['urgent', entry('@coder URGENT: prod is down', ['coder']), 'high'],
    ['asap', entry('@coder asap please', ['coder']), 'high'],
    ['blocked', entry('I am blocked, @coder', ['coder']), 'high'],
    ['critical', entry('critical bug @coder', ['coder']), 'high'],
    ['keyword inside a word is not urgent', entry('unblocked and noncritical @coder', ['coder']), 'normal'],
  ];
  for (const [name, e, expected] of cases) it(name, () => assert.equal(calculatePriority(e), expected));
});

describe('deriveInbox', () => {
  const ch = [
    entry('@coder one', ['coder'], '2024-01-15T10:00:01.000Z'),
    entry('@reviewer only', ['reviewer'], '2024-01-15T10:00:02.000Z', 'coder'),
    entry('@coder @reviewer two', ['coder', 'reviewer'], '2024-01-15T10:00:03.000Z'),
    entry('@coder note to self', ['coder'], '2024-01-15T10:00:04.000Z', 'coder'),
  ];
  it('holds the mentions of the agent, oldest first, all unread', () => {
    const inbox = deriveInbox(ch, 'coder', undefined);
    assert.deepEqual(inbox.map((m) => m.entry.message), ['@coder one', '@coder @reviewer two']);
    assert.ok(inbox.every((m) => m.unread));
    assert.deepEqual(inbox.map((m) => m.priority), ['normal', 'high']);
  });
  it('skips what is at or before the cursor', () => {
    assert.deepEqual(deriveInbox(ch, 'coder', '2024-01-15T10:00:01.000Z').map((m) => m.entry.timestamp), ['2024-01-15T10:00:03.000Z']);
    assert.deepEqual(deriveInbox(ch, 'coder', '2024-01-15T10:00:03.000Z'), []);
  });
  it('never holds the agent\'s own messages', () => {
    assert.ok(deriveInbox(ch, 'coder', undefined).every((m) => m.entry.from !== 'coder'));
  });
});

describe('advanceCursor', () => {
  const newest = '2024-01-15T10:00:09.000Z';
  const cases: Array<[string, string | undefined, string, string | undefined, string | undefined]> = [
    ['first ack', undefined, '2024-01-15T10:00:03.000Z', newest, '2024-01-15T10:00:03.000Z'],
    ['forward', '2024-01-15T10:00:03.000Z', '2024-01-15T10:00:05.000Z', newest, '2024-01-15T10:00:05.000Z'],
    ['never backwards', '2024-01-15T10:00:05.000Z', '2024-01-15T10:00:01.000Z', newest, '2024-01-15T10:00:05.000Z'],
    ['capped at the newest entry', undefined, '2099-01-01T00:00:00.000Z', newest, newest],
    ['empty channel keeps the cursor', undefined, '2024-01-15T10:00:03.000Z', undefined, undefined],
  ];
  for (const [name, current, until, top, expected] of cases) it(name, () => assert.equal(advanceCursor(current, until, top), expected));
});

describe('normalizeTimestamp', () => {
  it('makes timestamps compare as text', () => {
    assert.equal(normalizeTimestamp('2024-01-15T10:05:00Z'), '2024-01-15T10:05:00.000Z');
    assert.ok(normalizeTimestamp('2024-01-15T10:05:00Z') < '2024-01-15T10:05:00.500Z');
  });
  it('refuses what is not a timestamp, naming the field and the form', () => {
    for (const bad of ['yesterday', '', '10:05:00', '2024-13-45T99:99']) {
      assert.throws(() => normalizeTimestamp(bad), (ex: unknown) => BatonError.is(ex, 'invalid_input') && /until must be an ISO timestamp/.test(ex.message));
    }
  });
});
