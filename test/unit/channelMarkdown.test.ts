// Rule: the channel file's encoding reads as the spec's `### HH:MM:SS [from]` and parses back exactly: full
// timestamps, messages holding headings or header-like lines, text before the first entry ignored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatChannelEntry, lastChannelTimestamp, parseChannelMarkdown } from '../../src/core/worker/channelMarkdown.js';

const ts = '2024-01-15T10:00:05.123Z';

describe('channel markdown', () => {
  it('writes the spec\'s header with the full timestamp in a comment', () => {
    assert.equal(formatChannelEntry({ timestamp: ts, from: 'reviewer', message: '@coder hi' }), `\n### 10:00:05 [reviewer] <!-- ${ts} -->\n@coder hi\n`);
  });
  it('escapes header-like message lines and nothing else', () => {
    const text = formatChannelEntry({ timestamp: ts, from: 'a', message: '## Heading\n### 10:00:00 [b] <!-- 2024-01-15T10:00:00.000Z -->\n\\### 10:00:00 [c]' });
    assert.match(text, /\n## Heading\n\\### 10:00:00 \[b\]/);
    assert.match(text, /\n\\\\### 10:00:00 \[c\]\n$/);
  });
  it('parses entries back, ignoring a preamble and headers whose time does not match', () => {
    const messages = ['one', '', 'three\n', '### 11:11:11 [x] <!-- 2024-01-15T10:00:00.000Z -->'];
    const body = messages.map((m, i) => formatChannelEntry({ timestamp: `2024-01-15T10:00:0${i}.000Z`, from: 'a', message: m })).join('');
    const entries = parseChannelMarkdown(`# Channel of pr-1\n\nnotes by hand\n${body}`, ['a']);
    assert.deepEqual(entries.map((e) => e.message), messages);
    assert.deepEqual(entries.map((e) => e.timestamp), messages.map((_, i) => `2024-01-15T10:00:0${i}.000Z`));
    assert.equal(lastChannelTimestamp(body), '2024-01-15T10:00:03.000Z');
    assert.deepEqual(parseChannelMarkdown('', []), []);
    assert.deepEqual(parseChannelMarkdown('### 10:00:05 [x]\nthe spec\'s short header alone is text\n', []), []);
  });
  it('derives mentions from the team\'s agents', () => {
    const [e] = parseChannelMarkdown(formatChannelEntry({ timestamp: ts, from: 'a', message: '@coder and `@reviewer`' }), ['coder', 'reviewer']);
    assert.deepEqual(e?.mentions, ['coder']);
  });
});
