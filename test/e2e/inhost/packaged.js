// Runs inside the real extension host beside a packaged Baton installed from the .vsix (see test/e2e/package.test.ts),
// started without BATON_TEST_HOOKS: the shipped code must register none of its test hooks. Plain CommonJS; each check
// is recorded by name in the file named by BATON_INHOST_RESULTS, and run() throws if any failed.
const vscode = require('vscode');
const { writeFileSync } = require('node:fs');

const EXTENSION_ID = 'baton-dev.baton';

const checks = [
  ['the packaged Baton is installed and activates', async (ctx) => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    if (!ext) throw new Error(`${EXTENSION_ID} is not installed`);
    await ext.activate();
    if (!ext.isActive) throw new Error('not active after activate()');
    ctx.ext = ext;
    return { extensionPath: ext.extensionPath, testHooksEnv: process.env.BATON_TEST_HOOKS ?? null };
  }],
  ['its commands are registered and no test hook is', async (ctx) => {
    const declared = (ctx.ext.packageJSON.contributes?.commands ?? []).map((c) => c.command);
    const registered = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith('baton.'));
    const missing = declared.filter((c) => !registered.includes(c));
    if (declared.length === 0 || missing.length) throw new Error(`declared ${declared.length}; not registered: [${missing}]`);
    const hooks = registered.filter((c) => c.startsWith('baton.test'));
    return { declared: declared.length, registered: registered.length, hooks };
  }],
  ['executing baton.test.state fails: the command does not exist', async () => {
    try {
      const state = await vscode.commands.executeCommand('baton.test.state');
      return { answered: true, keys: state && typeof state === 'object' ? Object.keys(state) : typeof state };
    } catch (err) {
      return { answered: false, error: String(err && err.message ? err.message : err) };
    }
  }],
  ['the installed manifest has no test command and no onCommand: events', async (ctx) => {
    const m = ctx.ext.packageJSON;
    return {
      onCommand: (m.activationEvents ?? []).filter((e) => e.startsWith('onCommand:')),
      mentionsTestCommand: JSON.stringify(m).includes('baton.test'),
      icon: m.icon ?? null,
      categories: m.categories ?? [],
    };
  }],
];

async function run() {
  const ctx = {};
  const results = [];
  for (const [name, fn] of checks) {
    try {
      results.push({ name, ok: true, detail: await fn(ctx) });
    } catch (err) {
      results.push({ name, ok: false, error: String(err && err.stack ? err.stack : err) });
    }
  }
  if (process.env.BATON_INHOST_RESULTS) writeFileSync(process.env.BATON_INHOST_RESULTS, JSON.stringify(results, null, 2));
  const failed = results.filter((r) => !r.ok);
  if (failed.length) throw new Error(`${failed.length} in-host check(s) failed: ${failed.map((f) => f.name).join('; ')}`);
}

module.exports = { run };
