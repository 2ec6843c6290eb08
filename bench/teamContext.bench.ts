// The file context of agent teams: channel append (lock + one O_APPEND write), channel read and inbox derivation on
// a channel of many entries (parsed once, then incrementally), and the memory provider for comparison; prints one
// JSON object with p50/p95 per operation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryContextProvider } from '../src/core/worker/memoryContextProvider.js';
import type { ContextProvider } from '../src/core/worker/types.js';
import { FileContextProvider } from '../src/host/worker/fileContextProvider.js';
import { stats } from './benchKit.js';

const ENTRIES = Number(process.env.BENCH_CHANNEL_ENTRIES ?? 5000);
const READS = 50;

async function time(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}

async function measure(p: ContextProvider) {
  const append = await time(ENTRIES, (i) => p.appendChannel(i % 2 ? 'reviewer' : 'coder', `@${i % 2 ? 'coder' : 'reviewer'} message ${i}: a line of about eighty characters of text.`));
  const read = await time(READS, () => p.readChannel(undefined, 50));
  const inbox = await time(READS, () => p.getInbox('coder'));
  const appendThenRead = await time(READS, async (i) => {
    await p.appendChannel('system', `tick ${i}`);
    await p.readChannel(undefined, 50);
  });
  return { append: stats(append), readChannel50: stats(read), getInbox: stats(inbox), appendThenRead: stats(appendThenRead) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-team-'));
  try {
    const agents = ['reviewer', 'coder'];
    const file = await measure(await FileContextProvider.open({ dir, agents }));
    const memory = await measure(new MemoryContextProvider({ agents }));
    console.log(JSON.stringify({ entries: ENTRIES, file, memory }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
void main();
