// Runs inside the real extension host (loaded by the VS Code server's smoke-test driver; see
// test/e2e/harness/inHost.ts). Plain CommonJS: `vscode` exists only here. Each check is recorded by name in the
// file named by BATON_INHOST_RESULTS; run() throws if any failed, which makes the exit code 1.
const vscode = require('vscode');
const http = require('node:http');
const { runChecks } = require('./runChecks.js');

const EXTENSION_ID = 'baton-dev.baton';

/** The checks, in order; each returns a detail (recorded) or throws. */
const checks = [
  ['activates', async (ctx) => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    if (!ext) throw new Error(`${EXTENSION_ID} is not installed`);
    const started = Date.now();
    await ext.activate();
    if (!ext.isActive) throw new Error('not active after activate()');
    ctx.ext = ext;
    return { activateCallMs: Date.now() - started, vscodeVersion: vscode.version };
  }],
  ['every contributed command is registered, every baton.* command is declared', async (ctx) => {
    const declared = (ctx.ext.packageJSON.contributes?.commands ?? []).map((c) => c.command);
    if (declared.length === 0) throw new Error('package.json contributes no commands');
    const registered = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith('baton.'));
    const missing = declared.filter((c) => !registered.includes(c));
    const undeclared = registered.filter((c) => !declared.includes(c) && !c.startsWith('baton.test.') && !isViewCommand(c));
    if (missing.length || undeclared.length) throw new Error(`not registered: [${missing}]; registered but not declared: [${undeclared}]`);
    return { declared: declared.length };
  }],
  ['baton.test.state reports an owner endpoint', async (ctx) => {
    const state = await vscode.commands.executeCommand('baton.test.state');
    if (!state || state.mode !== 'owner') throw new Error(`state: ${JSON.stringify(state)}`);
    const { url, token } = state.endpoint ?? {};
    if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(url ?? '') || typeof token !== 'string' || token.length < 16) {
      throw new Error(`endpoint: ${JSON.stringify(state.endpoint && { url, tokenLength: token?.length })}`);
    }
    ctx.endpoint = { url, token };
    return { mode: state.mode, url, activationMs: state.activationMs };
  }],
  ["the editor's own MCP client starts Baton's registered server and lists its tools", async () => {
    // startServer('*') starts the servers the editor knows at that moment; the provider's definition arrives
    // asynchronously after activation, so ask again until Baton's tools are live.
    const started = Date.now();
    let names = [];
    let attempts = 0;
    while (Date.now() - started < 30_000) {
      attempts++;
      await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { autoTrustChanges: true, waitForLiveTools: true });
      names = vscode.lm.tools.map((t) => t.name).filter((n) => n.startsWith('mcp_baton_'));
      if (names.some((n) => n.endsWith('next_step'))) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    if (!names.some((n) => n.endsWith('next_step'))) {
      throw new Error(`no Baton tool ending in next_step among the editor's tools: ${vscode.lm.tools.map((t) => t.name).join(', ')}`);
    }
    return { tools: names, attempts, ms: Date.now() - started };
  }],
  ['the endpoint answers the token holder', async (ctx) => {
    const res = await post(ctx.endpoint.url, { authorization: `Bearer ${ctx.endpoint.token}` });
    if (res.status !== 200) throw new Error(`initialize with the token: ${res.status} ${res.body.slice(0, 200)}`);
    return { status: res.status };
  }],
  ['the endpoint refuses no token, a wrong token, a foreign Host, a foreign Origin', async (ctx) => {
    const { url, token } = ctx.endpoint;
    const good = `Bearer ${token}`;
    const port = new URL(url).port;
    const cases = {
      noToken: await post(url, {}),
      wrongToken: await post(url, { authorization: `Bearer ${'x'.repeat(token.length)}` }),
      foreignHost: await post(url, { authorization: good, host: `evil.example:${port}` }),
      foreignOrigin: await post(url, { authorization: good, origin: 'https://evil.example' }),
    };
    const statuses = Object.fromEntries(Object.entries(cases).map(([k, v]) => [k, v.status]));
    const bad = Object.entries(statuses).filter(([, s]) => s !== 401 && s !== 403);
    if (bad.length) throw new Error(`not refused: ${JSON.stringify(statuses)}`);
    return statuses;
  }],
  ['Start Workflow on spec_execution_v1 starts it on the open tasks.md instead of asking for a task', async (ctx) => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!folder) throw new Error('no workspace folder');
    const file = vscode.Uri.joinPath(folder, 'inhost-spec', 'tasks.md');
    const text = '# Tasks\n\n- [ ] 1. Set up\n  - [ ] 1.1 Create the module\n- [ ] 2. Test\n  - [ ] 2.1 Write its test\n';
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder, 'inhost-spec'));
    await vscode.workspace.fs.writeFile(file, Buffer.from(text));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
    // The old command asked for a task description here (an input box nobody answers): give up after 20 s.
    const id = await Promise.race([
      vscode.commands.executeCommand('baton.startWorkflow', 'spec_execution_v1'),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no execution after 20 s (was a task description asked for?)')), 20_000)),
    ]);
    if (typeof id !== 'string') throw new Error(`started: ${JSON.stringify(id)}`);
    const status = await control(ctx.endpoint, { op: 'spec_status', id });
    const spec = status.result;
    if (!spec || spec.source !== 'inhost-spec/tasks.md') throw new Error(`spec status: ${JSON.stringify(status).slice(0, 400)}`);
    return { id, source: spec.source, phases: spec.total_phases ?? spec.phases?.length };
  }],
  ['a workflow file that does not parse is an error in the Problems panel at its line, gone once it is fixed', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!folder) throw new Error('no workspace folder');
    const file = vscode.Uri.joinPath(folder, '.baton', 'workflows', 'inhost-broken.yaml');
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder, '.baton', 'workflows'));
    await vscode.workspace.fs.writeFile(file, Buffer.from('name: inhost-broken\ndescription: Broken\ntype: sequential\nsteps:\n  - name: a\n    agent: debugger\n   description: bad indent\n'));
    const baton = () => vscode.languages.getDiagnostics(file).filter((d) => d.source === 'Baton');
    const shown = await until(() => baton().length > 0 && baton(), 20_000, 'no Baton diagnostic on the broken workflow');
    const first = shown[0];
    if (first.severity !== vscode.DiagnosticSeverity.Error) throw new Error(`severity ${first.severity}: ${first.message}`);
    await vscode.workspace.fs.writeFile(file, Buffer.from('name: inhost-broken\ndescription: Fixed\ntype: sequential\nsteps:\n  - name: a\n    agent: debugger\n    description: good indent\n'));
    await until(() => baton().length === 0, 20_000, `the diagnostics stayed after the fix: ${baton().map((d) => d.message).join('; ')}`);
    await vscode.workspace.fs.delete(file);
    return { line: first.range.start.line + 1, message: first.message };
  }],
  ['a team workflow file that is not valid shows its problem at its line once opened', async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (!folder) throw new Error('no workspace folder');
    const file = vscode.Uri.joinPath(folder, 'inhost-team.yaml');
    await vscode.workspace.fs.writeFile(file, Buffer.from('name: crew\nagents:\n  reviewer:\n    backend: nope\nkickoff: "@reviewer go"\n'));
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(file));
    const baton = () => vscode.languages.getDiagnostics(file).filter((d) => d.source === 'Baton');
    const shown = await until(() => baton().length > 0 && baton(), 20_000, 'no Baton diagnostic on the team file');
    const at = shown.find((d) => /backend/.test(d.message));
    if (!at || at.severity !== vscode.DiagnosticSeverity.Error) throw new Error(`diagnostics: ${shown.map((d) => `${d.range.start.line + 1}: ${d.message}`).join('; ')}`);
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    return { line: at.range.start.line + 1, message: at.message };
  }],
];

/** Polls `test` every 200 ms until it returns something truthy (returned), or throws `message` after `ms`. */
async function until(test, ms, message) {
  const end = Date.now() + ms;
  for (;;) {
    const value = test();
    if (value) return value;
    if (Date.now() > end) throw new Error(message);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A /control call on the owner's endpoint with its token; resolves to the parsed answer. */
function control(endpoint, body) {
  const u = new URL(endpoint.url.replace(/\/mcp$/, '/control'));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname, port: u.port, path: u.pathname, method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${endpoint.token}`, host: u.host },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`control ${res.statusCode}: ${text.slice(0, 300)}`))));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

// Commands the workbench registers for a contributed view (focus, refresh…) also start with the view's id.
function isViewCommand(id) {
  return /^baton\.[\w.-]+\.(focus|resetViewLocation|removeView|toggleVisibility|open)$/.test(id) || id.startsWith('baton.workflows.');
}

function post(url, headers) {
  const body = JSON.stringify({
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'inhost-test', version: '1' } },
  });
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname, port: u.port, path: u.pathname, method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: u.host, ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode, body: text }));
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

async function run() {
  await runChecks(checks);
}

module.exports = { run };
