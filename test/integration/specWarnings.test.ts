// Rule: a tasks.md that runs but says something twice (a task id on two task lines) is started as parsed, and the
// person and the agent are told where: `baton spec start` and `baton spec status` (the real CLI), the start_workflow
// tool's answer (the official MCP client over stdio) and Phase 0 as workflow_next_step hands it out name both lines.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { renderResultText } from '../../src/core/broker/stepText.js';
import type { NextStepResponse } from '../../src/core/types.js';
import { ensureBuilt, runCli, startMcp, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { makeBaton } from '../helpers/coreHarness.js';

// spec-kit's template as one version shipped it, its story phases twice (ids T005–T023 twice): see SOURCES.md.
const fixture = join(__dirname, '..', 'fixtures', 'specs', 'others', 'speckit-template-duplicated.tasks.md');
const T005 = 'line 150: task id T005 is written on lines 63 and 150: each is used, as a task of its own in file order';

before(() => ensureBuilt());

describe('a task id written twice', () => {
  it('`baton spec start` and `baton spec status` warn with both lines, and the workflow runs every task', async () => {
    const setup = tempSetup('baton-spec-warn-');
    try {
      mkdirSync(join(setup.workspace, 'specs', '001-x'), { recursive: true });
      copyFileSync(fixture, join(setup.workspace, 'specs', '001-x', 'tasks.md'));
      const started = await runCli(['spec', 'start', 'specs/001-x/tasks.md', '--db', setup.db], {}, setup.workspace);
      assert.equal(started.code, 0, started.stderr);
      const warned = (out: string) => out.split('\n').filter((l) => l.startsWith('⚠ specs/001-x/tasks.md line '));
      assert.equal(warned(started.stdout).length, 19, started.stdout); // T005 to T023
      assert.ok(warned(started.stdout).some((l) => l.startsWith(`⚠ specs/001-x/tasks.md ${T005}`)), started.stdout);
      const st = await runCli(['spec', 'status', '--db', setup.db], {}, setup.workspace);
      assert.equal(st.code, 0, st.stderr);
      assert.deepEqual(warned(st.stdout), warned(started.stdout));
      assert.equal(st.stdout.split('\n').filter((l) => /^ {4}· T005 /.test(l)).length, 2, 'both T005 tasks are in the workflow');
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('start_workflow answers with the warnings, in its structured result and its text', async () => {
    const setup = tempSetup('baton-spec-warn-mcp-');
    mkdirSync(join(setup.workspace, 'specs'), { recursive: true });
    copyFileSync(fixture, join(setup.workspace, 'specs', 'tasks.md'));
    const session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--tools', 'specs']);
    try {
      const res = (await session.client.callTool({ name: 'start_workflow', arguments: { workflow_type: 'spec_execution_v1', target_file: 'specs/tasks.md' } })) as CallToolResult;
      assert.notEqual(res.isError, true, JSON.stringify(res.content));
      const warnings = (res.structuredContent as { warnings?: Array<{ line: number; message: string }> }).warnings ?? [];
      assert.equal(warnings.length, 19);
      assert.equal(warnings[0]!.line, 150);
      const text = res.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      assert.ok(text.includes(`Warning: specs/tasks.md ${T005}`), text);
    } finally {
      await session.client.close();
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });

  it('Phase 0, as workflow_next_step hands it out, lists the first warnings and says where the rest are', async () => {
    const { baton, workspace } = await makeBaton();
    mkdirSync(join(workspace, 'specs'), { recursive: true });
    copyFileSync(fixture, join(workspace, 'specs', 'tasks.md'));
    const r = await baton.nextStep({ template_name: 'spec_execution_v1', source: 'specs/tasks.md' }) as NextStepResponse;
    const warnings = r.context!.spec!.warnings!;
    assert.deepEqual(warnings, [
      'specs/tasks.md line 150: task id T005 is written on lines 63 and 150', 'specs/tasks.md line 151: task id T006 is written on lines 64 and 151',
      'specs/tasks.md line 155: task id T007 is written on lines 65 and 155', '... 16 more (baton spec status lists them)',
    ]);
    assert.ok(renderResultText(r).includes(`## Warnings about specs/tasks.md\n${warnings.join('\n')}`), 'and in the text form');
  });
});
