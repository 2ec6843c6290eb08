// What reading a process's state costs (src/host/silentOwner.ts): Linux's /proc/PID/stat against `ps -o stat= -p PID`,
// the way of macOS and the BSDs (run here as darwin's way: this machine's procps ps takes the same flags). A ps blocks
// the caller for its whole run (execFileSync), so the editor asks it only when it has a reason. The children's CPU
// (ps itself) is read from /proc/self/stat where there is one. Prints one JSON object.
// Run: node --import tsx bench/ownerState.bench.ts
import { existsSync, readFileSync } from 'node:fs';
import { ownerState, runPs } from '../src/host/silentOwner.js';
import { stats } from './benchKit.js';

const CALLS = 200;

/** The CPU seconds of this process's ended children (cutime + cstime), or null without /proc. */
function childrenCpuS(): number | null {
  if (!existsSync('/proc/self/stat')) return null;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the state (field 3), cutime and cstime are fields 16 and 17, in clock ticks (100 a second on Linux).
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function measure(read: () => unknown) {
  const samples: number[] = [];
  const cpu = process.cpuUsage();
  const children = childrenCpuS();
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    if (read() === 'unknown') throw new Error('the state of this process could not be read');
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const used = process.cpuUsage(cpu);
  const childrenAfter = childrenCpuS();
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return {
    ...stats(samples),
    this_process_cpu_ms_per_call: r((used.user + used.system) / 1000 / CALLS),
    ps_cpu_ms_per_call: children === null || childrenAfter === null ? null : r(((childrenAfter - children) * 1000) / CALLS),
  };
}

const proc = process.platform === 'linux' ? measure(() => ownerState(process.pid)) : null;
const ps = measure(() => ownerState(process.pid, undefined, 'darwin', runPs));
process.stdout.write(`${JSON.stringify({ bench: 'ownerState', platform: process.platform, calls: CALLS, proc_stat: proc, ps })}\n`);
