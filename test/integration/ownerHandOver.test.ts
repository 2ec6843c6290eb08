// Rule: `baton start` and `baton new` hand their team or agent to the live owner; an owner that refuses it because it
// is stopping (503: it took nothing) and then exits is no owner, and the command becomes the owner itself and runs
// the work here (it failed with the stopping owner's refusal before).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { CLI, ensureBuilt, killAll, ROOT, tempSetup } from '../fixtures/mcp/cliHarness.js';
import { startNode } from '../helpers/processes.js';
import { until } from '../helpers/until.js';

const STOPPING_OWNER = join(ROOT, 'test', 'fixtures', 'owner', 'stoppingOwner.mjs');
const AGENT = join(ROOT, 'test', 'fixtures', 'teams', 'teamAgent.mjs');
const pids: number[] = [];

before(() => ensureBuilt());
after(() => killAll(pids));

/** Starts the stopping owner on `db` and waits until it publishes its endpoint. */
async function stoppingOwner(db: string): Promise<number> {
  const owner = spawn(process.execPath, [STOPPING_OWNER, db], { stdio: ['ignore', 'pipe', 'inherit'] });
  pids.push(owner.pid!);
  let out = '';
  owner.stdout.on('data', (d: Buffer) => (out += d.toString()));
  await until('the stopping owner', () => out.includes('ready'), 10_000);
  return owner.pid!;
}

for (const [command, args] of [
  ['start', (w: string) => ['start', join(w, 'team.yaml'), '--instance', 'solo']],
  ['new', () => ['new', 'helper', '--backend', 'command']],
] as const) {
  test(`${command}: an owner that refuses the hand-over while stopping, then exits, leaves the work to this command`, async () => {
    const t = tempSetup(`baton-handover-${command}-`);
    writeFileSync(join(t.workspace, 'team.yaml'), `agents:\n  a: { backend: command, command: [node, ${JSON.stringify(AGENT)}], system_prompt: x }\n`);
    const stopping = await stoppingOwner(t.db);
    // The agent's program goes last, after `--`: everything there is its own.
    const program = command === 'new' ? ['--', 'node', AGENT] : [];
    const { child, out, err, exited } = startNode([CLI, ...args(t.workspace), '--db', t.db, '--workspace', t.workspace, ...program], { BATON_LOG_LEVEL: 'error' });
    pids.push(child.pid!);
    try {
      const said = await Promise.race([
        until('the work started', () => /runs? in Baton process \d+|started @\S+ in Baton process \d+/.exec(out())?.[0], 20_000),
        exited.then((code) => {
          throw new Error(`baton ${command} exited ${code}: ${err()}`);
        }),
      ]);
      assert.match(said, new RegExp(`Baton process ${child.pid}\\b`), 'this command owns the database and runs the work');
      assert.doesNotMatch(said, new RegExp(`Baton process ${stopping}\\b`));
      child.kill('SIGTERM');
      assert.equal(await exited, 0, err());
    } finally {
      child.kill('SIGKILL');
      rmSync(t.dir, { recursive: true, force: true });
    }
  });
}
