// Rule: a command's whole output reaches a reader on a pipe, however slowly it reads: the process exits once its
// stdout has gone out, not after the pipe's first 64 KiB (`baton status --all --json | jq` on a big database).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, ensureBuilt, startMcp, tempSetup } from '../fixtures/mcp/cliHarness.js';

/** A workflow of 100 steps: each run's status lists them all, about 9 KB of JSON. */
const LONG_YAML = `name: long\ndescription: A long one\ntype: sequential\nsteps:\n${Array.from({ length: 100 }, (_, i) =>
  `  - name: step-${String(i).padStart(3, '0')}-of-the-long-job\n    agent: implementer\n    description: Do part ${i}\n`).join('')}`;

/**
 * Runs `dist/cli.js ARGS | (sleep; cat)` in a shell: its stdout on a real pipe (64 KiB; Node's own child pipes are
 * socket pairs, which take far more) whose reader starts after `pauseSeconds`. Its output and the CLI's exit code.
 */
function runWithSlowReader(args: string[], pauseSeconds: number): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const quoted = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const script = `${quoted} | (sleep ${pauseSeconds}; cat); exit \${PIPESTATUS[0]}`;
    const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(chunks).toString('utf8') }));
  });
}

describe('output on a pipe', () => {
  const setup = tempSetup('baton-piped-');

  before(async () => {
    ensureBuilt();
    mkdirSync(join(setup.workspace, '.baton', 'workflows'), { recursive: true });
    writeFileSync(join(setup.workspace, '.baton', 'workflows', 'long.yaml'), LONG_YAML);
    const session = await startMcp(['--db', setup.db, '--workspace', setup.workspace, '--rate-limits', 'off']);
    for (let i = 0; i < 40; i++) {
      await session.client.callTool({ name: 'workflow_next_step', arguments: { template_name: 'long', task_description: `run ${i}` } });
    }
    await session.client.close();
  });
  after(() => rmSync(setup.dir, { recursive: true, force: true }));

  it('baton status --all --json writes all of its JSON to a reader that starts late', async () => {
    const { code, stdout } = await runWithSlowReader(['status', '--all', '--json', '--db', setup.db], 0.5);
    assert.equal(code, 0);
    assert.ok(stdout.length > 300_000, `${stdout.length} bytes: more than a pipe holds`);
    const listed = (JSON.parse(stdout) as { executions: Array<{ steps: unknown[] }> }).executions;
    assert.equal(listed.length, 40);
    assert.ok(listed.every((e) => e.steps.length === 100));
  });

  it('and its text, to the last run', async () => {
    const { code, stdout } = await runWithSlowReader(['status', '--all', '--db', setup.db], 0.5);
    assert.equal(code, 0);
    assert.ok(stdout.length > 150_000, `${stdout.length} characters`);
    assert.equal(stdout.match(/step-099-of-the-long-job/g)?.length, 40, 'every run to its last step');
  });
});
