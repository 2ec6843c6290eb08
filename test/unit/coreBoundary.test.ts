// Rule: src/core is pure — it bundles for a neutral platform with no externals, so an import of
// 'vscode', '@modelcontextprotocol/*', 'sql.js' or any 'node:' module in the core fails this test.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { build } from 'esbuild';

const root = join(__dirname, '..', '..');
const coreDir = join(root, 'src', 'core');

function coreFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? coreFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

async function bundleNeutral(contents: string): Promise<string[]> {
  try {
    await build({
      stdin: { contents, resolveDir: root, loader: 'ts' },
      bundle: true, platform: 'neutral', mainFields: ['module', 'main'], write: false, logLevel: 'silent',
    });
    return [];
  } catch (ex) {
    return ((ex as { errors?: Array<{ text: string }> }).errors ?? [{ text: String(ex) }]).map((e) => e.text);
  }
}

describe('core boundary', () => {
  it('bundles every core module for a neutral platform with no externals', async () => {
    const files = coreFiles(coreDir);
    assert.ok(files.length > 10, 'found the core modules');
    const entry = files.map((f) => `export * as m${files.indexOf(f)} from './${relative(root, f).replace(/\\/g, '/')}';`).join('\n');
    const errors = await bundleNeutral(entry);
    assert.deepEqual(errors, []);
  });

  it('fails for a core module that imports node:fs (the check can fail)', async () => {
    const errors = await bundleNeutral(`import { readFileSync } from 'node:fs'; export const x = readFileSync;`);
    assert.ok(errors.length > 0);
  });
});
