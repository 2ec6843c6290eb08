// Rule: every text Baton ships (messages, contracts, errors, content, descriptions) names the broker tool as clients
// list it, `workflow_next_step`; the spec's dotted spelling appears only where the alias is documented.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';

const ROOT = join(__dirname, '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

test('no text in src/ or content/ says workflow.next_step, except where it documents the alias', () => {
  const offenders: string[] = [];
  let scanned = 0;
  for (const file of [...files(join(ROOT, 'src')), ...files(join(ROOT, 'content'))]) {
    if (!/\.(ts|md|ya?ml|json|sql)$/.test(file)) continue;
    scanned++;
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (!line.includes('workflow.next_step')) return;
      // The alias itself and the doc line right above it may name the dotted spelling.
      if (/alias/i.test(line) || /alias/i.test(lines[i - 1] ?? '')) return;
      offenders.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.ok(scanned > 50, `scanned ${scanned} files`);
  assert.deepEqual(offenders, []);
});
