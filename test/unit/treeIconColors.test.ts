// Rule: the tree's icons take their colours from one table (ICON_COLORS), and each colour of Baton's own in it is
// contributed in package.json with a default for light, dark, high contrast and high contrast light themes (an
// uncontributed id resolves to nothing, and the icon silently loses its colour). Contrast is checked in the real
// editor by test/e2e/treeContrast.test.ts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { ICON_COLORS, severityIcon, statusIcon } from '../../src/vscode/views/treeModel.js';
import { agentStateIcon } from '../../src/vscode/views/teamTreeModel.js';

const manifest = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
  contributes: { colors?: { id: string; description?: string; defaults?: Record<string, string> }[] };
};

it("contributes each of Baton's own icon colours with a default for every kind of theme", () => {
  const contributed = new Map((manifest.contributes.colors ?? []).map((c) => [c.id, c]));
  const own = Object.values(ICON_COLORS).filter((id) => id.startsWith('baton.'));
  assert.deepEqual(own.sort(), [...contributed.keys()].sort(), 'the contributed colours are the table\'s own ones');
  for (const id of own) {
    const c = contributed.get(id)!;
    assert.ok(c.description, `${id} has a description`);
    assert.deepEqual(Object.keys(c.defaults ?? {}).sort(), ['dark', 'highContrast', 'highContrastLight', 'light'], `${id}'s defaults`);
  }
});

it('colours every status, agent and severity icon from the table', () => {
  const table = new Set<string>(Object.values(ICON_COLORS));
  const statuses = ['pending', 'ready', 'running', 'awaiting_approval', 'completed', 'failed', 'skipped', 'paused', 'timeout', 'escalated'] as const;
  const icons = [
    ...statuses.map((s) => statusIcon(s)), statusIcon('failed', true),
    ...['running', 'idle', 'failed', 'stopped'].map(agentStateIcon), ...['critical', 'high', 'medium', 'low'].map(severityIcon),
  ];
  for (const icon of icons) if (icon.color) assert.ok(table.has(icon.color), `${icon.id}: ${icon.color} is in ICON_COLORS`);
  assert.equal(statusIcon('completed').color, 'baton.iconPassed');
  assert.equal(statusIcon('skipped').color, 'baton.iconMuted');
});
