// Baton's engine alone: K bug-fix workflows in flight calling workflow_next_step's core (Baton.nextStep) in this
// process, on a durable database (journal fdatasync, checkpoints), with no MCP and no transport. Run bundled like
// dist/ (peers.bench.ts bundles it with the patched sql.js). Prints one JSON line: calls/s and CPU per call (all
// threads: the event loop and the thread pool's syncs and snapshot writes), the ceiling of any transport around it.
// Usage: node bundle.js DIR CONTENT_DIR SECONDS [K]
import { join } from 'node:path';
import { Baton } from '../src/core/baton.js';
import { DEFAULT_RATE_LIMITS } from '../src/core/broker/rateLimiter.js';
import { silentLog } from '../src/core/ports.js';
import type { NextStepRequest } from '../src/core/types.js';
import { nodeCrypto, nodeFileSystem, randomIds, systemClock } from '../src/host/nodePorts.js';
import { openStore } from '../src/store/sqlJsStore.js';
import { stepOutput } from './benchKit.js';

const [dir, content, seconds = '8', inflight = '16'] = process.argv.slice(2);

async function main(): Promise<void> {
  if (!dir || !content) throw new Error('usage: engineLoop DIR CONTENT_DIR SECONDS [K]');
  const store = await openStore({ path: join(dir, 'baton.db') });
  const baton = await Baton.create(
    { store, clock: systemClock, ids: randomIds, crypto: nodeCrypto, log: silentLog, fs: nodeFileSystem },
    { workspacePath: dir, contentDirs: [content], rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: false } },
  );
  const end = Date.now() + Number(seconds) * 1000;
  let calls = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Number(inflight) }, async () => {
      let token: string | null = null;
      let step = '';
      let i = 0;
      while (Date.now() < end) {
        const args = (token ? { step_token: token, model_output_so_far: stepOutput(step, i++) } : { template_name: 'bug-fix' }) as NextStepRequest;
        const res = (await baton.nextStep(args, { client_name: 'engine-loop' })) as { status: string; new_step_token?: string; next_step_contract?: { step_name: string } };
        calls++;
        if (res.status === 'ok') {
          token = res.new_step_token!;
          step = res.next_step_contract!.step_name;
        } else if (res.status === 'awaiting_approval' || res.status === 'task_closed') {
          token = null;
        } else {
          throw new Error(`engine answered ${JSON.stringify(res).slice(0, 300)}`);
        }
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  await store.close();
  process.stdout.write(`${JSON.stringify({ inflight: Number(inflight), calls, seconds: Math.round(secs * 10) / 10, calls_per_s: Math.round(calls / secs), cpu_ms_per_call: Math.round(((cpu.user + cpu.system) / 1000 / calls) * 1000) / 1000 })}\n`);
}

main().catch((ex: unknown) => {
  process.stderr.write(`${ex instanceof Error ? ex.stack : String(ex)}\n`);
  process.exit(1);
});
