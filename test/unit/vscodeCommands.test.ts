// Rule: package.json declares exactly the commands the extension registers (same ids, exact titles, category Baton),
// every menu entry names a declared command, the manifest carries nothing of the tests (no test command, no activation
// on one) and no `onCommand:` events the editor generates itself, and the view, container and MCP provider ids are the
// ones the code and the end-to-end tests use; the retention settings and the prune command are where a person looks.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { COMMAND_TITLES, TEST_STATE_COMMAND, testHooksRequested } from '../../src/vscode/commandIds.js';

const root = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const declared: Array<{ command: string; title: string; category: string }> = pkg.contributes.commands;
const declaredIds = new Set(declared.map((c) => c.command));

/** The keys of the COMMANDS table in commands.ts (the table the extension registers). */
function tableIds(): string[] {
  const src = readFileSync(join(root, 'src', 'vscode', 'commands.ts'), 'utf8');
  const table = src.slice(src.indexOf('export const COMMANDS'), src.indexOf('};', src.indexOf('export const COMMANDS')));
  return [...table.matchAll(/^\s*'(baton\.[\w.]+)':/gm)].map((m) => m[1]!);
}

describe('commands: package.json ⇄ the command table', () => {
  it('declares every registered command and registers every declared one', () => {
    const ids = tableIds();
    assert.ok(ids.length >= 13, `found ${ids.length} table entries`);
    assert.deepEqual([...ids].sort(), Object.keys(COMMAND_TITLES).sort(), 'commands.ts table = commandIds.ts');
    assert.deepEqual([...declaredIds].sort(), [...ids].sort(), 'package.json = commands.ts table');
    assert.equal(declared.length, declaredIds.size, 'no command declared twice');
  });

  it('uses the exact titles under category "Baton"', () => {
    for (const c of declared) {
      assert.equal(c.category, 'Baton', c.command);
      assert.equal(c.title, COMMAND_TITLES[c.command as keyof typeof COMMAND_TITLES], c.command);
    }
    const required: Record<string, string> = {
      'baton.startWorkflow': 'Start Workflow…', 'baton.advanceStep': 'Advance Step…', 'baton.approveStep': 'Approve Step',
      'baton.rejectStep': 'Reject Step…', 'baton.showExecution': 'Show Execution', 'baton.openArtifact': 'Open Artifact',
      'baton.cancelExecution': 'Cancel Execution', 'baton.copyMcpConfigClaude': 'Copy MCP Config for Claude Code',
      'baton.copyMcpConfigCursor': 'Copy MCP Config for Cursor', 'baton.copyMcpConfigCodex': 'Copy MCP Config for Codex',
      'baton.copyMcpConfigGemini': 'Copy MCP Config for Gemini CLI', 'baton.copyMcpConfigOpenCode': 'Copy MCP Config for OpenCode',
      'baton.showLog': 'Show Log', 'baton.refresh': 'Refresh', 'baton.pruneRuns': 'Prune Finished Runs…',
    };
    for (const [id, title] of Object.entries(required)) assert.equal(declared.find((c) => c.command === id)?.title, title, id);
  });

  it('names only declared commands in menus', () => {
    const menus: Record<string, Array<{ command: string; when?: string }>> = pkg.contributes.menus;
    let entries = 0;
    for (const [menu, items] of Object.entries(menus)) {
      for (const item of items) {
        entries++;
        assert.ok(declaredIds.has(item.command), `${menu} names undeclared ${item.command}`);
      }
    }
    assert.ok(entries > 10);
  });

  it('carries nothing of the tests: no test command declared, in a menu, in an activation event or in the table', () => {
    const text = readFileSync(join(root, 'package.json'), 'utf8');
    assert.ok(!text.includes(TEST_STATE_COMMAND), `package.json names ${TEST_STATE_COMMAND}`);
    assert.doesNotMatch(text, /baton\.test\b/);
    assert.ok(!tableIds().some((id) => id.startsWith('baton.test')), 'commands.ts registers a test command for everyone');
    assert.ok(!Object.keys(COMMAND_TITLES).some((id) => id.startsWith('baton.test')));
  });

  it('registers the test hooks only when the harness sets BATON_TEST_HOOKS=1', () => {
    assert.equal(testHooksRequested({ BATON_TEST_HOOKS: '1' }), true);
    for (const value of [undefined, '', '0', 'true', 'yes']) assert.equal(testHooksRequested({ BATON_TEST_HOOKS: value }), false, String(value));
    assert.equal(testHooksRequested({}), false);
    const extension = readFileSync(join(root, 'src', 'vscode', 'extension.ts'), 'utf8');
    assert.match(extension, /registerTestHooks\(services\)/, 'extension.ts asks testHooks.ts, which checks the variable');
    const hooks = readFileSync(join(root, 'src', 'vscode', 'testHooks.ts'), 'utf8');
    assert.match(hooks, /if \(!testHooksRequested\(env\)\) return undefined;\n\s*s\.log\.warn[^\n]*\n\s*return vscode\.commands\.registerCommand\(TEST_STATE_COMMAND/);
  });

  it('puts approve/reject only on awaiting steps and cancel only on unfinished executions', () => {
    const items: Array<{ command: string; when: string }> = pkg.contributes.menus['view/item/context'];
    for (const i of items.filter((x) => x.command === 'baton.approveStep' || x.command === 'baton.rejectStep')) {
      assert.match(i.when, /viewItem == step:awaiting_approval/);
    }
    const cancel = items.find((x) => x.command === 'baton.cancelExecution')!;
    const re = new RegExp(/viewItem =~ \/(.+)\//.exec(cancel.when)![1]!);
    assert.ok(re.test('execution:running') && re.test('execution:awaiting_approval'));
    assert.ok(!re.test('execution:completed') && !re.test('execution:failed'));
  });

  it('offers Prune Finished Runs… in the palette once Baton is ready and in the Workflows view\'s … menu', () => {
    const palette: Array<{ command: string; when?: string }> = pkg.contributes.menus.commandPalette;
    assert.deepEqual(palette.find((x) => x.command === 'baton.pruneRuns'), { command: 'baton.pruneRuns', when: 'baton.state == ready' });
    const title: Array<{ command: string; when: string; group: string }> = pkg.contributes.menus['view/title'];
    const prune = title.find((x) => x.command === 'baton.pruneRuns');
    assert.equal(prune?.when, 'view == baton.workflows');
    assert.ok(prune && !prune.group.startsWith('navigation'), 'in the overflow menu, not a title button');
  });

  it('activates on the view, the MCP provider and startup, and leaves onCommand: events to the editor (since 1.74)', () => {
    const events: string[] = pkg.activationEvents;
    assert.deepEqual(events.filter((e) => e.startsWith('onCommand:')), [], 'generated from contributes.commands by VS Code ≥ 1.74');
    assert.match(pkg.engines.vscode, /^\^1\.(7[4-9]|[89]\d|1\d\d)\./, 'the editor generates them only from 1.74 on');
    for (const e of ['onView:baton.workflows', 'onStartupFinished', 'onMcpServerDefinitionProvider:baton']) assert.ok(events.includes(e), e);
  });

  it('keeps the ids the code and the e2e tests rely on', () => {
    assert.equal(pkg.main, './dist/extension.js');
    assert.deepEqual(pkg.contributes.viewsContainers.activitybar.map((c: { id: string }) => c.id), ['baton']);
    assert.equal(pkg.contributes.viewsContainers.activitybar[0].title, 'Baton');
    assert.ok(existsSync(join(root, pkg.contributes.viewsContainers.activitybar[0].icon)));
    assert.deepEqual(pkg.contributes.views.baton.map((v: { id: string }) => v.id), ['baton.workflows']);
    assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders, [{ id: 'baton', label: 'Baton' }]);
    assert.ok(pkg.contributes.viewsWelcome.some((w: { contents: string }) => w.contents.includes('(command:baton.startWorkflow)')));
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  it('declares the baton.* settings with their defaults, and a walkthrough whose media exist', () => {
    const props = pkg.contributes.configuration.properties;
    assert.equal(props['baton.database.path'].type, 'string');
    assert.deepEqual(props['baton.mcp.toolGroups'].default, ['broker']);
    assert.equal(props['baton.tokens.lifetimeMinutes'].default, 10);
    assert.equal(props['baton.rateLimits.enabled'].default, true);
    assert.equal(props['baton.stall.thresholdMinutes'].default, 30);
    for (const [key, fallback, flag] of [['baton.retention.days', 30, '--retention-days'], ['baton.retention.maxRuns', 1000, '--retention-runs']] as const) {
      assert.equal(props[key].type, 'integer', key);
      assert.equal(props[key].default, fallback, key);
      assert.equal(props[key].minimum, 0, key);
      assert.match(props[key].markdownDescription, /`0`: no \w+ limit/, `${key} says what 0 does`);
      assert.match(props[key].markdownDescription, /when this editor owns the database; a terminal owner/, key);
      assert.ok(props[key].markdownDescription.includes(flag), `${key} names the terminal owner's ${flag}`);
    }
    const [walk] = pkg.contributes.walkthroughs;
    assert.ok(walk.steps.length >= 3 && walk.steps.length <= 4);
    for (const step of walk.steps) assert.ok(existsSync(join(root, step.media.markdown)), step.media.markdown);
  });
});
