// Rule: README's editor sections ("In the editor" up to "Set-up") and package.json's `contributes` tell the same story:
// every command README names is a declared title, every command a person sees in the palette is in README's table,
// README's settings table lists every setting with package.json's default, and every setting's description says
// what its default does.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** README from "## In the editor" to the next level-2 heading: the editor sections. */
function editorSections(): string {
  const start = readme.indexOf('\n## In the editor\n');
  const end = readme.indexOf('\n## ', start + 1);
  assert.ok(start >= 0 && end > start, 'README has an "In the editor" section followed by another');
  return readme.slice(start, end);
}

const declared: Array<{ command: string; title: string }> = pkg.contributes.commands;
const titles = new Set(declared.map((c) => c.title));

/** "Approve Step / Reject Step…" and "Copy MCP Config for A / B" as the titles they stand for. */
function expand(name: string): string[] {
  const parts = name.split(' / ').map((p) => p.trim());
  const head = /^(Copy MCP Config for) /.exec(parts[0]!)?.[1];
  return head ? [parts[0]!, ...parts.slice(1).map((p) => `${head} ${p}`)] : parts;
}

/** The first column of the table under the line `heading` (README's "Commands …:" or "Settings:"). */
function tableRows(text: string, heading: string): string[][] {
  const at = text.indexOf(`\n${heading}\n`);
  assert.ok(at >= 0, `README's editor sections have a "${heading}" table`);
  const rows: string[][] = [];
  const lines = text.slice(at + heading.length + 2).split('\n');
  // The header row and its --- row come first.
  for (const line of lines.slice(lines.findIndex((l) => l.startsWith('|')) + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split(' | ').map((c) => c.replace(/^\|\s*|\s*\|$/g, '').trim()));
  }
  return rows;
}

describe('README editor sections ⇄ package.json contributes', () => {
  const text = editorSections();

  it('names only declared command titles, in its table and in bold', () => {
    const named = [
      ...tableRows(text, 'Commands (palette category "Baton"):').map((r) => r[0]!.replace(/^Baton: /, '')),
      ...[...text.matchAll(/\*\*Baton: ([^*]+)\*\*/g)].map((m) => m[1]!),
    ].flatMap(expand);
    assert.ok(named.length > 15, `found ${named.length}`);
    for (const title of named) assert.ok(titles.has(title), `README names "Baton: ${title}", which package.json does not declare`);
  });

  it('lists in its table every command the palette shows', () => {
    const hidden = new Set((pkg.contributes.menus.commandPalette as Array<{ command: string; when?: string }>)
      .filter((m) => m.when === 'false').map((m) => m.command));
    const listed = new Set(tableRows(text, 'Commands (palette category "Baton"):').flatMap((r) => expand(r[0]!.replace(/^Baton: /, ''))));
    const missing = declared.filter((c) => !hidden.has(c.command) && !listed.has(c.title)).map((c) => c.title);
    assert.deepEqual(missing, [], 'palette commands missing from README\'s table');
  });

  it('lists every setting with the default package.json declares, and no other', () => {
    const props: Record<string, { default: unknown }> = pkg.contributes.configuration.properties;
    const rows = tableRows(text, 'Settings:');
    const readmeDefaults = Object.fromEntries(rows.map((r) => [r[0]!.replace(/`/g, ''), JSON.parse(r[1]!.replace(/`/g, ''))]));
    assert.deepEqual(Object.keys(readmeDefaults).sort(), Object.keys(props).sort());
    for (const [key, p] of Object.entries(props)) assert.deepEqual(readmeDefaults[key], p.default, key);
  });

  it('has every setting\'s description say what its default does', () => {
    const props: Record<string, { type: string; default: unknown; markdownDescription?: string; description?: string }> =
      pkg.contributes.configuration.properties;
    for (const [key, p] of Object.entries(props)) {
      const d = p.markdownDescription ?? p.description ?? '';
      if (p.type === 'number' || p.type === 'integer') assert.match(d, new RegExp(`\\bDefault ${p.default}\\b`), key);
      else if (p.type === 'array') for (const item of p.default as string[]) assert.match(d, new RegExp(`Default[^.]*\`${item}\``), key);
      else if (p.type === 'string') assert.match(d, p.default === '' ? /Empty \(the default\)/ : new RegExp(`Default \`${p.default}\``), key);
      else if (p.type === 'boolean') assert.match(d, p.default ? /\bOn by default\b/ : /\bOff by default\b/, key);
      else assert.fail(`${key}: a setting of type ${p.type} this test does not know`);
    }
  });
});
