// Rule: the file provider passes the shared ContextProvider suite, writes the spec's readable layout, keeps read
// cursors across a restart, refuses paths (`..`, absolute, symlinks) that lead out of the context directory, and
// lets two processes append to one channel without losing or interleaving entries.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BatonError } from '../../src/core/errors.js';
import { FileContextProvider } from '../../src/host/worker/fileContextProvider.js';
import { spawnTs } from '../fixtures/store/helpers.js';
import { contextProviderSuite, fakeClock } from '../helpers/contextProviderSuite.js';

const base = mkdtempSync(join(tmpdir(), 'baton-filectx-'));
after(() => rmSync(base, { recursive: true, force: true }));
let n = 0;
const freshDir = () => join(base, `ctx-${++n}`);

contextProviderSuite('file provider', (o) => FileContextProvider.open({ ...o, dir: freshDir() }));

const refusedOut = (ex: unknown) => BatonError.is(ex, 'invalid_input') && /context directory/.test(ex.message);

describe('file provider: on disk', () => {
  it('writes channel.md as the spec shows it, with the full timestamp in a comment', async () => {
    const dir = freshDir();
    const clock = fakeClock();
    const p = await FileContextProvider.open({ dir, agents: ['coder', 'reviewer'], clock });
    await p.appendChannel('system', 'Workflow started');
    clock.ms += 5123;
    await p.appendChannel('reviewer', '@coder found auth validation issue in line 42');
    assert.equal(readFileSync(join(dir, 'channel.md'), 'utf8'),
      '\n### 10:00:00 [system] <!-- 2024-01-15T10:00:00.000Z -->\nWorkflow started\n' +
      '\n### 10:00:05 [reviewer] <!-- 2024-01-15T10:00:05.123Z -->\n@coder found auth validation issue in line 42\n');
  });

  it('keeps read cursors across a restart, in a readable file', async () => {
    const dir = freshDir();
    const clock = fakeClock();
    const first = await FileContextProvider.open({ dir, agents: ['coder'], clock });
    const a = await first.appendChannel('system', '@coder one');
    await first.appendChannel('system', '@coder two');
    await first.ackInbox('coder', a.timestamp);
    const second = await FileContextProvider.open({ dir, agents: ['coder'], clock });
    assert.deepEqual((await second.getInbox('coder')).map((m) => m.entry.message), ['@coder two']);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, '.baton-inbox.json'), 'utf8')), { coder: a.timestamp });
    const third = await FileContextProvider.open({ dir, agents: ['coder'], clock });
    await third.appendChannel('system', '@coder three');
    assert.equal((await third.readChannel()).length, 3, 'a later process appends after the existing entries');
    assert.ok((await third.readChannel())[2]!.timestamp > (await third.readChannel())[1]!.timestamp);
  });

  it('sees what another instance appends, and a channel rewritten by hand', async () => {
    const dir = freshDir();
    const clock = fakeClock();
    const one = await FileContextProvider.open({ dir, agents: ['coder'], clock });
    const two = await FileContextProvider.open({ dir, agents: ['coder'], clock });
    await one.appendChannel('system', 'first');
    assert.equal((await one.readChannel()).length, 1);
    await two.appendChannel('user', '@coder second');
    assert.deepEqual((await one.readChannel()).map((e) => e.message), ['first', '@coder second']);
    assert.equal((await one.getInbox('coder')).length, 1);
    writeFileSync(join(dir, 'channel.md'), '# cleared by hand\n');
    assert.deepEqual(await one.readChannel(), []);
  });

  it('finds the newest timestamp behind a long message', async () => {
    const clock = fakeClock();
    const p = await FileContextProvider.open({ dir: freshDir(), agents: [], clock });
    const a = await p.appendChannel('system', `${'long line\n'.repeat(6000)}end`);
    const b = await p.appendChannel('system', 'x'.repeat(60_000));
    const c = await p.appendChannel('system', 'short');
    assert.deepEqual([b.timestamp > a.timestamp, c.timestamp > b.timestamp], [true, true]);
    assert.deepEqual((await p.readChannel()).map((e) => e.message.length), [a.message.length, 60_000, 5]);
  });

  it('uses the configured channel, entry point and documents', async () => {
    const dir = freshDir();
    const p = await FileContextProvider.open({ dir, agents: [], channel: 'discussion.md', document: 'workspace.md', documents: ['goals.md', 'findings/a.md'], documentsDir: 'more' });
    await p.writeDocument('# Workspace');
    assert.equal(readFileSync(join(dir, 'workspace.md'), 'utf8'), '# Workspace');
    assert.deepEqual(await p.listDocuments(), ['findings/a.md', 'goals.md', 'workspace.md']);
    await p.appendChannel('system', 'hi');
    assert.match(readFileSync(join(dir, 'discussion.md'), 'utf8'), /\[system\]/);
    await assert.rejects(p.writeDocument('x', 'discussion.md'), (ex: unknown) => BatonError.is(ex, 'invalid_input') && /channel/.test(ex.message));
    await assert.rejects(p.readDocument('.baton-inbox.json'), (ex: unknown) => BatonError.is(ex, 'invalid_input'));
  });

  it('refuses symlinks that lead out of the context directory', async () => {
    const dir = freshDir();
    const outside = join(base, `outside-${n}`);
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.md'), 'secret');
    const p = await FileContextProvider.open({ dir, agents: [] });
    symlinkSync(join(outside, 'secret.md'), join(dir, 'link.md'));
    symlinkSync(outside, join(dir, 'linkdir'));
    symlinkSync(join(outside, 'missing.md'), join(dir, 'dangling.md'));
    await assert.rejects(p.readDocument('link.md'), refusedOut);
    await assert.rejects(p.writeDocument('x', 'link.md'), refusedOut);
    await assert.rejects(p.appendDocument('x', 'link.md'), refusedOut);
    await assert.rejects(p.readDocument('linkdir/secret.md'), refusedOut);
    await assert.rejects(p.createDocument('linkdir/new.md', 'x'), refusedOut);
    await assert.rejects(p.writeDocument('x', 'dangling.md'), refusedOut);
    await assert.rejects(p.deleteDocument('link.md'), refusedOut);
    assert.equal(readFileSync(join(outside, 'secret.md'), 'utf8'), 'secret', 'nothing outside changed');
    assert.ok(!(await p.listDocuments()).some((d) => d.includes('secret')), 'listing does not follow links out');
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'inside'));
    await p.writeDocument('ok', 'inside/x.md');
    assert.equal(await p.readDocument('real/x.md'), 'ok', 'a link that stays inside is fine');
  });

  it('lets two processes append to one channel without losing or interleaving entries', async () => {
    const dir = freshDir();
    await FileContextProvider.open({ dir, agents: ['a', 'b'] });
    const count = 40;
    const child = (name: string) => new Promise<void>((resolve, reject) => {
      const c = spawnTs(join(__dirname, '..', 'helpers', 'appendChannelChild.ts'), [dir, name, String(count)]);
      let err = '';
      c.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`child ${name} exited ${code}: ${err}`))));
    });
    await Promise.all([child('a'), child('b')]);
    const p = await FileContextProvider.open({ dir, agents: ['a', 'b'] });
    const entries = await p.readChannel();
    assert.equal(entries.length, 2 * count);
    for (let i = 1; i < entries.length; i++) assert.ok(entries[i]!.timestamp > entries[i - 1]!.timestamp, `entry ${i} is after entry ${i - 1}`);
    for (const name of ['a', 'b']) {
      const mine = entries.filter((e) => e.from === name);
      assert.deepEqual(mine.map((e) => e.message.split('\n')[0]), Array.from({ length: count }, (_, i) => `${name} ${i}`));
      mine.forEach((e, i) => assert.equal(e.message, `${name} ${i}\n### 10:00:00 [x]\n@${name === 'a' ? 'b' : 'a'} ${'.'.repeat(i * 97 % 3000)}`));
      assert.ok(mine.every((e) => e.mentions.length === 1));
    }
  });
});

describe('file provider: the lock', () => {
  it('takes over a lock left by a process that was killed', async () => {
    const dir = freshDir();
    const p = await FileContextProvider.open({ dir, agents: [] });
    const dead = spawn(process.execPath, ['-e', '']);
    const pid = dead.pid!;
    await new Promise((r) => dead.on('exit', r));
    writeFileSync(join(dir, '.baton-lock'), `${pid}\n`);
    const started = Date.now();
    await p.appendChannel('system', 'after a crash');
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
    assert.equal((await p.readChannel()).length, 1);
  });
  it('waits for a live holder', async () => {
    const dir = freshDir();
    const p = await FileContextProvider.open({ dir, agents: [] });
    writeFileSync(join(dir, '.baton-lock'), `${process.pid}\n`);
    setTimeout(() => rmSync(join(dir, '.baton-lock')), 300);
    const started = Date.now();
    await p.appendChannel('system', 'after the holder');
    assert.ok(Date.now() - started >= 250, 'it waited for the lock');
  });
});
