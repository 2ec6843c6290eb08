// Rule: `npm run package` refuses a manifest the Marketplace would refuse or that carries the tests (an SVG or
// mis-sized icon, an unknown category, no keywords, no gallery banner, a placeholder repository, a test command, a
// generated onCommand: event) and a README whose images the package lacks; the repository's own manifest passes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CATEGORIES, checkManifest, checkReadme, pngSize } from '../../scripts/vsixChecks.mjs';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const icon = readFileSync(join(root, 'media', 'icon.png'));
const entries = ['package.json', 'readme.md', 'media/icon.png', 'media/icon.svg', 'media/screenshots/tree.png'];

/** A PNG header of the given size (all the check reads). */
function png(width: number, height: number): Buffer {
  const buf = Buffer.alloc(24);
  buf.writeUInt32BE(0x89504e47, 0);
  buf.writeUInt32BE(0x0d0a1a0a, 4);
  buf.writeUInt32BE(13, 8);
  buf.write('IHDR', 12, 'ascii');
  buf.writeUInt32BE(width, 16);
  buf.writeUInt32BE(height, 20);
  return buf;
}

const check = (over: Record<string, unknown>, iconBytes: Buffer = icon) =>
  checkManifest({ ...pkg, ...over }, entries, (path) => (path.endsWith('.png') ? iconBytes : Buffer.from('<svg/>')));

describe('vsix checks', () => {
  it('pass the repository manifest: a 128×128 PNG icon, Marketplace categories, keywords, a banner, no test hooks', () => {
    assert.deepEqual(check({}), []);
    assert.deepEqual(pngSize(icon), { width: 128, height: 128 });
    assert.ok(pkg.categories.every((c: string) => CATEGORIES.includes(c)));
    assert.equal(pkg.repository, undefined, 'no public repository yet');
  });

  it('refuse an SVG icon, a missing icon and an icon of the wrong size', () => {
    assert.match(check({ icon: 'media/icon.svg' }).join('\n'), /icon must be a PNG/);
    assert.match(check({ icon: 'media/nope.png' }).join('\n'), /not in the vsix/);
    assert.match(check({}, png(256, 256)).join('\n'), /256×256; it must be 128×128/);
    assert.match(check({ icon: undefined }).join('\n'), /icon must be a PNG/);
  });

  it('refuse unknown or missing categories, no keywords or too many, and a bad gallery banner', () => {
    assert.match(check({ categories: ['AI', 'Agents'] }).join('\n'), /"Agents" is not a Marketplace category/);
    assert.match(check({ categories: [] }).join('\n'), /no categories/);
    assert.match(check({ keywords: [] }).join('\n'), /0 keywords/);
    assert.match(check({ keywords: Array.from({ length: 31 }, (_, i) => `k${i}`) }).join('\n'), /31 keywords/);
    assert.match(check({ keywords: ['mcp', 'mcp'] }).join('\n'), /listed twice/);
    assert.match(check({ galleryBanner: undefined }).join('\n'), /galleryBanner/);
    assert.match(check({ galleryBanner: { color: 'indigo', theme: 'dark' } }).join('\n'), /galleryBanner/);
  });

  it('refuse placeholder links and accept a real public one', () => {
    assert.match(check({ repository: { type: 'git', url: 'https://github.com/your-org/baton' } }).join('\n'), /repository must be a real public https address/);
    assert.match(check({ bugs: { url: 'https://example.com/issues' } }).join('\n'), /bugs must be/);
    assert.match(check({ homepage: 'http://baton.dev' }).join('\n'), /homepage must be/);
    assert.deepEqual(check({ homepage: 'https://baton.dev' }), []);
  });

  it('refuse a manifest that names a test command or lists onCommand: events', () => {
    const commands = [...pkg.contributes.commands, { command: 'baton.test.state', title: 'Test State', category: 'Baton' }];
    assert.match(check({ contributes: { ...pkg.contributes, commands } }).join('\n'), /test command/);
    assert.match(check({ activationEvents: [...pkg.activationEvents, 'onCommand:baton.refresh'] }).join('\n'), /onCommand:baton\.refresh/);
  });

  it('want README images that the package holds (or https), never SVG', () => {
    assert.deepEqual(checkReadme('![tree](media/screenshots/tree.png)', entries), []);
    assert.deepEqual(checkReadme('![x](https://img.example.org/a.png)', entries), []);
    assert.match(checkReadme('![panel](media/screenshots/panel.png)', entries).join('\n'), /not in the vsix/);
    assert.match(checkReadme('![icon](media/icon.svg)', entries).join('\n'), /SVG/);
    assert.match(checkReadme('![x](http://a.png)', entries).join('\n'), /neither https nor a file/);
    assert.match(checkReadme('no pictures', entries).join('\n'), /no screenshots/);
    assert.deepEqual(checkReadme(readFileSync(join(root, 'README.md'), 'utf8'), [...entries, 'media/screenshots/panel.png', 'media/screenshots/agent.png']), []);
  });
});
