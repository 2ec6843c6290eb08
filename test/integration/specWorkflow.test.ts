// Rule: spec workflows are gated by the server through a real SDK client over both transports and both ways in
// (workflow_next_step over stdio, the specs tools over HTTP): later phases are locked, evidence is checked item by
// item, a signed-off phase waits for `baton approve`, boxes are ticked on disk byte for byte, a restart mid-workflow
// loses nothing, `baton spec start|status` work through the owner and on their own; the default tool list stays small.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readDiscovery } from '../../src/host/discovery.js';
import { CLI, ensureBuilt, runCli, startMcp, tempSetup, waitFor, type CliSession } from '../fixtures/mcp/cliHarness.js';

const fixtures = join(__dirname, '..', 'fixtures', 'specs');
type S = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const output = { summary: 'done', artifacts: [{ type: 'markdown', title: 'notes', content: '# notes' }], references: ['src/a.ts'], confidence: 0.9 };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ res: CallToolResult; s: S }> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { res, s: (res.structuredContent ?? {}) as S };
}
const gateEvidence = (gate: string[]) => Object.fromEntries(gate.map((_, i) => [String(i + 1), `evidence ${i + 1}`]));

// One build for the whole file.
before(() => ensureBuilt());

describe('spec workflow over stdio: workflow_next_step (way 1), then a restart mid-workflow', () => {
  const setup = tempSetup('baton-spec-stdio-');
  let session: CliSession;
  const source = join(setup.workspace, 'specs', 'auth', 'tasks.md');
  let original = '';

  before(async () => {
    mkdirSync(dirname(source), { recursive: true });
    original = readFileSync(join(fixtures, 'payments-crlf.tasks.md'), 'utf8');
    writeFileSync(source, original);
    session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off', '--tools', 'broker,specs']);
  });
  after(async () => {
    await session?.client.close().catch(() => undefined);
    rmSync(setup.dir, { recursive: true, force: true });
  });

  let executionId = '';
  let token = '';

  it('starts with template_name + source; a later phase is locked; missing evidence is refused by item text', async () => {
    const { s } = await call(session.client, 'workflow_next_step', { template_name: 'spec_execution_v1', source: 'specs/auth/tasks.md' });
    assert.equal(s.status, 'ok', JSON.stringify(s.error));
    assert.equal(s.next_step_contract.step_name, 'phase-0');
    assert.deepEqual(s.context.spec.outline, ['Phase 1: Provider integration (2 tasks)', 'Phase 2: Refunds (2 tasks)']);
    executionId = s.execution_id;
    token = s.new_step_token;
    const locked = await call(session.client, 'get_task', { session_id: executionId, phase: 1, task_number: 1 });
    assert.equal(locked.res.isError, true);
    assert.match((locked.res.content[0] as { text: string }).text, /Phase 1 is locked: Phase 0 is the current phase/);
    assert.equal((locked.res._meta as S).errorCode, 'phase_locked');
    const refused = await call(session.client, 'workflow_next_step', { step_token: token, model_output_so_far: output, evidence: { 1: 'spec.md, tasks.md' } });
    assert.equal(refused.res.isError, true);
    assert.equal(refused.s.error.code, 'evidence_incomplete');
    assert.match(refused.s.error.message, /"Risks named, each with how you will handle it"/);
  });

  it('submits Phase 0 and Phase 1 (signed off by `baton approve` from another process); boxes are ticked on disk', async () => {
    let { s } = await call(session.client, 'workflow_next_step', { step_token: token, model_output_so_far: output, evidence: gateEvidence(['a', 'b', 'c', 'd']) });
    assert.equal(s.next_step_contract.step_name, 'phase-1');
    assert.equal(s.next_step_contract.human_gate_required, true);
    assert.deepEqual(s.context.spec.tasks.map((t: S) => t.task_id), ['1.1', '1.2']);
    const t = await call(session.client, 'workflow_next_step', { request: 'get_task', step_token: s.new_step_token, task_number: 2 });
    assert.match(t.s.spec_task.task_content, /# Task 1\.2: Webhook receiver/);
    ({ s } = await call(session.client, 'workflow_next_step', { step_token: s.new_step_token, model_output_so_far: output, evidence: gateEvidence(s.context.spec.validation_gate) }));
    assert.equal(s.status, 'awaiting_approval');
    const approve = await runCli(['approve', executionId, '--db', setup.db]);
    assert.equal(approve.code, 0, approve.stderr);
    ({ s } = await call(session.client, 'workflow_next_step', { step_token: s.new_step_token }));
    assert.equal(s.next_step_contract.step_name, 'phase-2');
    token = s.new_step_token;
    const now = readFileSync(source, 'utf8');
    const changed = [...Buffer.from(original)].map((b, i) => (b !== Buffer.from(now)[i] ? i : -1)).filter((i) => i >= 0);
    assert.equal(Buffer.byteLength(now), Buffer.byteLength(original));
    assert.equal(changed.length, 3, 'Task 1.2 and the two gate items: one byte each');
    assert.ok(now.startsWith('\uFEFF') && now.includes('- [x] **Task 1.2:** Webhook receiver\r\n'));
  });

  it('survives a restart mid-workflow: same phase and token, snapshot kept though the file drifted', async () => {
    await session.client.close();
    await waitFor(() => !existsSync(join(dirname(setup.db), 'server.json')), 10_000, 'the first server to let go');
    writeFileSync(source, readFileSync(source, 'utf8').replace('Refund endpoint', 'Refund API (renamed)'));
    session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off', '--tools', 'broker,specs']);
    const cur = await call(session.client, 'get_current_phase', { session_id: executionId });
    assert.equal(cur.s.current_phase, 2);
    assert.equal(cur.s.phase_content.tasks[0].name, 'Refund endpoint', 'the snapshot, not the edited file');
    const status = await runCli(['spec', 'status', executionId, '--db', setup.db, '--json']);
    assert.equal(status.code, 0, status.stderr);
    const st = JSON.parse(status.stdout) as S;
    assert.equal(st.drift.state, 'drifted');
    assert.equal(st.write_backs[0].ticked, 3);
    assert.deepEqual(st.phases.map((p: S) => p.status), ['completed', 'completed', 'running']);
    const { s } = await call(session.client, 'workflow_next_step', { step_token: token, model_output_so_far: output, evidence: ['refund tests pass'] });
    assert.equal(s.status, 'task_closed');
    const text = readFileSync(source, 'utf8');
    assert.ok(text.includes('- [ ] **Task 2.1:** Refund API (renamed)'), 'a line edited since the start is not guessed at');
    assert.ok(text.includes('- [x] **Task 2.2:** Admin screen button'));
    const last = JSON.parse((await runCli(['spec', 'status', executionId, '--db', setup.db, '--json'])).stdout) as S;
    assert.equal(last.write_backs[1].ticked, 2);
    assert.equal(last.write_backs[1].refused[0].line, 26);
    assert.match(last.write_backs[1].refused[0].reason, /no longer in the file/);
    // The words count the boxes: "3 boxes", "2 boxes", never "box(es)".
    const words = (await runCli(['spec', 'status', executionId, '--db', setup.db])).stdout;
    assert.match(words, /^Wrote back Phase 1: 3 boxes ticked\nWrote back Phase 2: 2 boxes ticked, 1 left unticked$/m);
    // The box left unticked is named by its line and why, so the person can tick it by hand.
    assert.match(words, /\n {4}left unticked, line 26: the line "- \[ \] \*\*Task 2\.1:\*\* Refund endpoint" is no longer in the file$/m);
  });
});

describe('spec workflow over HTTP: the specs tools (way 2) against `baton serve`', () => {
  const setup = tempSetup('baton-spec-http-');
  let child: ReturnType<typeof spawn>;
  let client: Client;

  before(async () => {
    mkdirSync(join(setup.workspace, 'specs'), { recursive: true });
    writeFileSync(join(setup.workspace, 'specs', 'tasks.md'), readFileSync(join(fixtures, 'auth-service.tasks.md'), 'utf8'));
    writeFileSync(join(setup.workspace, 'specs', 'empty.md'), readFileSync(join(fixtures, 'empty-phase.tasks.md'), 'utf8'));
    child = spawn(process.execPath, [CLI, 'serve', '--db', setup.db, '--workspace', setup.workspace, '--tools', 'specs'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const info = await waitFor(() => readDiscovery(setup.db), 15_000, 'discovery file');
    client = new Client({ name: 'spec-http', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(info.url), { requestInit: { headers: { authorization: `Bearer ${info.token}` } } }));
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    child?.kill('SIGKILL');
    rmSync(setup.dir, { recursive: true, force: true });
  });

  it('lists the four spec tools with the spec names', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['complete_phase', 'get_current_phase', 'get_task', 'start_workflow']);
  });

  it('refuses bad sources with the data to recover', async () => {
    const missing = await call(client, 'start_workflow', { workflow_type: 'spec_execution_v1', target_file: 'specs/nope.md' });
    assert.equal((missing.res._meta as S).errorCode, 'source_not_found');
    assert.equal((missing.res._meta as S).errorDetails.path, 'specs/nope.md');
    const out = await call(client, 'start_workflow', { workflow_type: 'spec_execution_v1', target_file: '../../etc/passwd' });
    assert.equal((out.res._meta as S).errorCode, 'source_outside_workspace');
    const parse = await call(client, 'start_workflow', { workflow_type: 'spec_execution_v1', target_file: 'specs/empty.md' });
    assert.equal((parse.res._meta as S).errorCode, 'source_parse_failed');
    assert.deepEqual([(parse.res._meta as S).errorDetails.file, (parse.res._meta as S).errorDetails.line], ['specs/empty.md', 8]);
    const tpl = await call(client, 'start_workflow', { workflow_type: 'spec_execution_v9', target_file: 'specs/tasks.md' });
    assert.equal((tpl.res._meta as S).errorCode, 'template_not_found');
    assert.ok(((tpl.res._meta as S).errorDetails.templates as string[]).includes('spec_execution_v1'));
  });

  it('runs the phases with evidence, locks later ones, waits for a sign-off, and ends with every box ticked', async () => {
    let { s } = await call(client, 'start_workflow', { workflow_type: 'spec_execution_v1', target_file: 'specs/tasks.md', metadata: { ticket: 'AUTH-1' } });
    const id = s.session_id as string;
    assert.equal(s.current_phase, 0);
    const locked = await call(client, 'complete_phase', { session_id: id, phase: 1, evidence: { 1: 'x' } });
    assert.equal((locked.res._meta as S).errorCode, 'phase_locked');
    ({ s } = await call(client, 'complete_phase', { session_id: id, phase: 0, evidence: gateEvidence(s.phase_content.validation_gate) }));
    assert.equal(s.current_phase, 1);
    const range = await call(client, 'get_task', { session_id: id, phase: 1, task_number: 9 });
    assert.equal((range.res._meta as S).errorCode, 'task_out_of_range');
    assert.equal((range.res._meta as S).errorDetails.task_count, 3);
    const phaseRange = await call(client, 'get_task', { session_id: id, phase: 4, task_number: 1 });
    assert.equal((phaseRange.res._meta as S).errorCode, 'phase_out_of_range');
    const task = await call(client, 'get_task', { session_id: id, phase: 1, task_number: 3 });
    assert.match((task.res.content[0] as { text: string }).text, /# Task 1\.3: Repository layer[\s\S]*Unit tests cover create, find, update and delete/);
    const partial = await call(client, 'complete_phase', { session_id: id, phase: 1, evidence: { 1: 'migrations ok', 2: '' } });
    assert.equal((partial.res._meta as S).errorCode, 'evidence_incomplete');
    assert.deepEqual((partial.res._meta as S).errorDetails.missing, ['Repository unit tests pass (npm test -- repo)', 'No plaintext password anywhere in the schema']);
    ({ s } = await call(client, 'complete_phase', { session_id: id, phase: 1, evidence: ['up/down ok', 'npm test -- repo: 12 passing', 'schema reviewed'] }));
    assert.equal(s.current_phase, 2);
    ({ s } = await call(client, 'complete_phase', { session_id: id, phase: 2, evidence: ['login tests pass', 'pending'] }));
    assert.equal(s.status, 'awaiting_approval');
    const still = await call(client, 'get_task', { session_id: id, phase: 3, task_number: 1 });
    assert.match((still.res.content[0] as { text: string }).text, /Phase 2 still needs a person's approval/);
    const approve = await runCli(['approve', id, '--db', setup.db]);
    assert.equal(approve.code, 0, approve.stderr);
    ({ s } = await call(client, 'get_current_phase', { session_id: id }));
    assert.equal(s.current_phase, 3);
    ({ s } = await call(client, 'complete_phase', { session_id: id, phase: 3, evidence: { 1: 'e2e reset passes' } }));
    assert.equal(s.status, 'completed');
    const text = readFileSync(join(setup.workspace, 'specs', 'tasks.md'), 'utf8');
    assert.equal((text.match(/^- \[ \] \*\*Task/gm) ?? []).length, 0, 'every task box ticked');
    assert.equal((text.match(/^ {4}- \[ \]/gm) ?? []).length, 10, 'acceptance criteria left to the person');
  });

  it('`baton spec start` and `baton spec status` go through the live owner', async () => {
    const started = await runCli(['spec', 'start', 'specs/tasks.md', '--db', setup.db], {}, setup.workspace);
    assert.equal(started.code, 0, started.stderr);
    const id = /Started spec workflow (\S+) on specs\/tasks\.md: 4 phases, Phase 0 \(read the spec\) and 3 from the file\./.exec(started.stdout)?.[1];
    assert.ok(id, started.stdout);
    // get_current_phase is a specs-group tool, off by default: the hint says how to turn it on.
    assert.match(started.stdout, /or with get_current_phase\(\{"session_id": "\S+"\}\) when its Baton has the specs tools \(--tools broker,specs\)\./);
    const status = await runCli(['spec', 'status', id, '--db', setup.db]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /Current phase: 0 of 3/);
    assert.match(status.stdout, /· Phase 2: Login and sessions \(pending, signed off by a person\)/);
    const bad = await runCli(['spec', 'start', 'specs/empty.md', '--db', setup.db], {}, setup.workspace);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^baton: Could not parse specs\/empty\.md, line 8/);
  });
});

describe('baton spec without an owner', () => {
  it('start creates the database and status reads it; usage errors exit 2, missing databases 1', async () => {
    const setup = tempSetup('baton-spec-cli-');
    try {
      writeFileSync(join(setup.workspace, 'tasks.md'), readFileSync(join(fixtures, 'kiro.tasks.md'), 'utf8'));
      const help = await runCli(['spec', '--help']);
      assert.equal(help.code, 0);
      assert.match(help.stdout, /Usage: baton spec start FILE/);
      assert.match((await runCli(['help', 'spec'])).stdout, /baton spec status \[ID\]/);
      const none = await runCli(['spec', 'status', '--db', setup.db]);
      assert.equal(none.code, 1);
      assert.match(none.stderr, /^baton: no Baton database at/);
      const started = await runCli(['spec', 'start', 'tasks.md', '--db', setup.db, '--json'], {}, setup.workspace);
      assert.equal(started.code, 0, started.stderr);
      assert.equal(JSON.parse(started.stdout).total_phases, 4);
      const st = await runCli(['spec', 'status', '--db', setup.db], {}, setup.workspace);
      assert.equal(st.code, 0, st.stderr);
      assert.match(st.stdout, /tasks\.md \(checkbox_tasks_parser\)/);
      assert.match(st.stdout, /○ Phase 0: Read the spec and confirm scope \(ready\)/);
      // The fixture's task 2.1 is ticked in the file: the status says so; an unticked one says nothing.
      assert.match(st.stdout, /^ {4}· 2\.1 Create core data model interfaces and types \(ticked in source\)$/m);
      assert.doesNotMatch(st.stdout, /2\.2 [^\n]*ticked in source/);
      for (const args of [['spec'], ['spec', 'start'], ['spec', 'frob'], ['spec', 'status', 'a', 'b'], ['spec', 'status', ''], ['spec', 'status', '--db', '']]) {
        const r = await runCli(args);
        assert.equal(r.code, 2, args.join(' '));
        assert.match(r.stderr, /^baton: /);
      }
      // Without a FILE it names the tasks.md files of the workspace it would look in.
      const noFile = await runCli(['spec', 'start', '--db', setup.db], {}, setup.workspace);
      assert.equal(noFile.code, 2);
      assert.match(noFile.stderr, /^baton: spec start needs exactly one FILE \(a tasks\.md\); in this workspace: tasks\.md\n/);
      const wrong = await runCli(['spec', 'start', 'specs/nope/tasks.md', '--db', setup.db], {}, setup.workspace);
      assert.equal(wrong.code, 1);
      assert.equal(wrong.stderr, `baton: no file ${join(setup.workspace, 'specs', 'nope', 'tasks.md')}; tasks.md files in the workspace: tasks.md\n`);
      const outside = await runCli(['spec', 'start', '/etc/hosts', '--db', setup.db], {}, setup.workspace);
      assert.equal(outside.code, 1);
      assert.match(outside.stderr, /^baton: \/etc\/hosts is outside the workspace \S+: a spec workflow reads a tasks\.md inside its workspace\. Move the file into it, or name the folder that holds it with --workspace DIR\.\n/);
      // Given relative to the current folder, as in a terminal: said with where it leads, never "pass a relative path".
      mkdirSync(join(setup.dir, 'outside'));
      writeFileSync(join(setup.dir, 'outside', 'tasks.md'), '# Tasks\n\n## Phase 1: One\n- [ ] 1.1 Do it\n');
      const up = await runCli(['spec', 'start', '../outside/tasks.md', '--db', setup.db], {}, setup.workspace);
      assert.equal(up.code, 1);
      assert.match(up.stderr, /^baton: \.\.\/outside\/tasks\.md \(\/\S+\/outside\/tasks\.md\) is outside the workspace /);
      assert.doesNotMatch(up.stderr, /absolute|relative/);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });
});

describe('baton spec start on a path that is no task list', () => {
  it('says how to write a tasks.md when the workspace has none, and names the ones it has for a file that is not one', async () => {
    const setup = tempSetup('baton-spec-none-');
    try {
      mkdirSync(join(setup.workspace, 'specs'));
      const write = /Write one, such as specs\/FEATURE\/tasks\.md holding a checkbox list \("- \[ \] 1\. Set up the project", a line per task\)/;
      const missing = await runCli(['spec', 'start', 'nofile.md', '--db', setup.db], {}, setup.workspace);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, new RegExp(`no tasks\\.md was found in the workspace \\S+\\. ${write.source}, then baton spec start specs/FEATURE/tasks\\.md\n$`));
      const none = await runCli(['spec', 'start', '--db', setup.db], {}, setup.workspace);
      assert.equal(none.code, 2);
      assert.match(none.stderr, new RegExp(`^baton: spec start needs exactly one FILE \\(a tasks\\.md\\); there is none in the workspace \\S+\\. ${write.source}`));
      const folder = await runCli(['spec', 'start', 'specs', '--db', setup.db], {}, setup.workspace);
      assert.equal(folder.code, 1);
      assert.match(folder.stderr, new RegExp(`is a folder, not a file: .*No tasks\\.md was found .*\\. ${write.source}, and pass its path\\.\n$`));
      assert.equal(existsSync(setup.db), false, 'nothing was started');
      // One written as the error says starts; a README given in its place is refused naming it.
      mkdirSync(join(setup.workspace, 'specs', 'login'));
      writeFileSync(join(setup.workspace, 'specs', 'login', 'tasks.md'), '- [ ] 1. Set up the project\n');
      writeFileSync(join(setup.workspace, 'README.md'), '# A project\n');
      const readme = await runCli(['spec', 'start', 'README.md', '--db', setup.db], {}, setup.workspace);
      assert.equal(readme.code, 1);
      assert.match(readme.stderr, /^baton: Could not parse README\.md, line 1: [^]*\n\nOr start on the tasks\.md in the workspace: specs\/login\/tasks\.md\.\n$/);
      const started = await runCli(['spec', 'start', 'specs/login/tasks.md', '--db', setup.db], {}, setup.workspace);
      assert.equal(started.code, 0, started.stderr);
    } finally {
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });
});

describe('the default tool list', () => {
  it('stays within 8 tools and 3k tokens of definitions; specs is off unless asked for', async () => {
    const setup = tempSetup('baton-spec-tools-');
    const session = await startMcp(['--db', setup.db, '--workspace', setup.workspace]);
    try {
      const { tools } = await session.client.listTools();
      assert.ok(tools.length <= 8);
      assert.ok(!tools.some((t) => t.name === 'start_workflow'));
      // About four characters a token: 12,000 characters of JSON definitions is 3k tokens.
      const size = JSON.stringify(tools).length;
      assert.ok(size <= 12_000, `${size} characters`);
    } finally {
      await session.client.close();
      rmSync(setup.dir, { recursive: true, force: true });
    }
  });
});
