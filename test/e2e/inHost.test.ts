// Rule: inside the real extension host (VS Code 1.139 server, Node 24), Baton activates, registers every command it
// declares, owns the workspace endpoint, is reachable by the editor's own MCP client, and its endpoint refuses
// callers without the token or from a foreign Host or Origin; Start Workflow hands spec_execution_v1 (which needs a
// tasks.md) to the spec command; a workflow file that does not parse is an error in the Problems panel until it is
// fixed, and so is an opened team file that is not valid; the test hook exists when the harness asks for it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { runInHost, type InHostRun } from './harness/inHost.js';

describe('Baton inside the extension host', { timeout: 10 * 60_000 }, () => {
  let run: InHostRun;

  before(async () => {
    run = await runInHost({ suite: join(__dirname, 'inhost', 'index.js'), testHooks: true });
    process.stderr.write(`in-host suite: exit ${run.exitCode} in ${run.ms} ms\n`);
  });

  const check = (name: string) => {
    const found = run.checks.find((c) => c.name === name);
    assert.ok(found, `check "${name}" did not run (exit ${run.exitCode}); console tail:\n${run.consoleLog.slice(-30).join('\n')}`);
    assert.ok(found.ok, `${name}: ${found.error}`);
    return found.detail as Record<string, unknown>;
  };

  it('the suite ran to its end and passed', () => {
    assert.equal(run.checks.length, 9, `checks recorded: ${run.checks.map((c) => c.name).join('; ')}\n${run.consoleLog.slice(-30).join('\n')}`);
    assert.equal(run.exitCode, 0, run.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.error}`).join('\n'));
  });
  it('activates', () => {
    const detail = check('activates');
    assert.equal(detail.vscodeVersion, '1.139.1');
  });
  it('every contributed command is registered and every baton.* command declared', () => {
    check('every contributed command is registered, every baton.* command is declared');
  });
  it('baton.test.state reports an owner endpoint', () => {
    const detail = check('baton.test.state reports an owner endpoint');
    assert.equal(detail.mode, 'owner');
    process.stderr.write(`activation ${detail.activationMs} ms (Baton's own measure)\n`);
  });
  it("the editor's own MCP client lists Baton's tools", () => {
    const detail = check("the editor's own MCP client starts Baton's registered server and lists its tools");
    assert.ok((detail.tools as string[]).includes('mcp_baton_workflow_next_step'), String(detail.tools));
  });
  it('the endpoint answers the token holder and refuses the rest', () => {
    check('the endpoint answers the token holder');
    const statuses = check('the endpoint refuses no token, a wrong token, a foreign Host, a foreign Origin');
    assert.deepEqual(statuses, { noToken: 401, wrongToken: 401, foreignHost: 403, foreignOrigin: 403 });
  });
  it('Start Workflow on spec_execution_v1 starts it on the open tasks.md', () => {
    const detail = check('Start Workflow on spec_execution_v1 starts it on the open tasks.md instead of asking for a task');
    assert.equal(detail.source, 'inhost-spec/tasks.md');
  });
  it('a workflow file that does not parse shows in the Problems panel, and goes once fixed', () => {
    const detail = check('a workflow file that does not parse is an error in the Problems panel at its line, gone once it is fixed');
    assert.ok(Number(detail.line) >= 5 && Number(detail.line) <= 7, JSON.stringify(detail));
    assert.match(String(detail.message), /Baton leaves this file out until it is fixed/);
  });
  it('a team workflow file that is not valid shows its problem at its line once opened', () => {
    const detail = check('a team workflow file that is not valid shows its problem at its line once opened');
    assert.equal(detail.line, 4, JSON.stringify(detail));
    assert.match(String(detail.message), /backend/);
  });
});
