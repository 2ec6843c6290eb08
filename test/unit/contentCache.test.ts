// Rule: the build's cache of the bundled content's parses changes nothing that loading gives — the same items and
// problems, with or without it — and only saves parsing: an entry serves a file of its kind, name and text only (a
// byte changed, or the same text under another file name, is parsed anew), a file with any problem is never cached
// (its problems are reported at every load), and what a load hands out is a copy the cache does not share.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { cacheableParses, loadContent, parseKey, type CachedParse } from '../../src/core/content/index.js';
import { buildContentCache, readContentCache } from '../../src/host/contentCache.js';
import { nodeCrypto, nodeFileSystem } from '../../src/host/nodePorts.js';
import { memoryFs } from '../fixtures/content/memoryFs.js';

const BUNDLED = join(__dirname, '..', '..', 'content');
const W = '/ws/.baton';

test('the bundled content loads the same with the cache as without it, and every bundled item is cacheable', async () => {
  const parses = await cacheableParses(nodeFileSystem, BUNDLED, nodeCrypto);
  const plain = await loadContent(nodeFileSystem, [BUNDLED], nodeCrypto);
  assert.equal(parses.length, plain.agents.length + plain.rules.length + plain.workflows.length, 'every bundled item is cacheable');
  const cached = await loadContent(nodeFileSystem, [BUNDLED], nodeCrypto, new Map(parses));
  assert.deepEqual(cached, plain);
});

test('an entry serves only its kind, file name and text; a copy is handed out, never the cached item', async () => {
  const text = 'description: From the file\nsteps:\n  - name: a\n    agent: debugger\n    description: d\n';
  const hash = nodeCrypto.sha256(text);
  const planted: CachedParse = {
    item: { name: 'fix', description: 'From the cache', type: 'sequential', tags: [], estimated_duration_minutes: null, steps: [] },
  };
  const cache = new Map([[parseKey('workflows', 'workflows/fix.yaml', hash), planted]]);
  const files = new Map([[`${W}/workflows/fix.yaml`, text], [`${W}/workflows/other.yaml`, text], [`${W}/workflows/changed.yaml`, `${text} `]]);
  const first = await loadContent(memoryFs(files), [W], nodeCrypto, cache);
  const byName = new Map(first.workflows.map((w) => [w.name, w.description]));
  assert.equal(byName.get('fix'), 'From the cache', 'the file of the entry is served from it');
  assert.equal(byName.get('other'), 'From the file', 'the same text under another name is parsed (a file without `name` is named by it)');
  assert.equal(byName.get('changed'), 'From the file', 'a changed text is parsed');
  // Changed deep inside by whoever loaded it: the cache's item, and the next load, keep what the build parsed.
  first.workflows.find((w) => w.name === 'fix')!.tags.push('changed by its user');
  const again = await loadContent(memoryFs(files), [W], nodeCrypto, cache);
  assert.deepEqual(again.workflows.find((w) => w.name === 'fix')!.tags, []);
  assert.deepEqual((planted.item as { tags: string[] }).tags, []);
});

test('a file with a problem is never cached, so its problem is reported at every load', async () => {
  const files = new Map([
    [`${W}/agents/quiet.md`, '# Quiet Agent\n\nNo role line and no description.\n'],
    [`${W}/agents/fine.md`, '---\ndescription: Fine\n---\n# Fine Agent\n'],
  ]);
  const parses = await cacheableParses(memoryFs(files), W, nodeCrypto);
  assert.deepEqual(parses.map(([key]) => key.split('\n').slice(0, 2).join(' ')), ['agents fine']);
  const loaded = await loadContent(memoryFs(files), [W], nodeCrypto, new Map(parses));
  assert.equal(loaded.problems.filter((p) => p.path === `${W}/agents/quiet.md`).length, 1);
});

test('the cache file: what the build writes reads back; a missing or foreign file is no cache', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-content-cache-'));
  try {
    const path = join(dir, 'content-cache.json');
    writeFileSync(path, await buildContentCache(BUNDLED));
    const cache = readContentCache(path);
    assert.deepEqual([...cache!.keys()], (await cacheableParses(nodeFileSystem, BUNDLED, nodeCrypto)).map(([key]) => key));
    assert.equal(readContentCache(join(dir, 'none.json')), undefined);
    writeFileSync(join(dir, 'foreign.json'), JSON.stringify({ parses: [['key', 'not a parse']] }));
    assert.equal(readContentCache(join(dir, 'foreign.json')), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
