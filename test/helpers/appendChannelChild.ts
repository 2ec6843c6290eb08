// A child process for the file provider's concurrency test: appends N entries to a context directory.
// Usage: node --import tsx test/helpers/appendChannelChild.ts DIR NAME COUNT
import { FileContextProvider } from '../../src/host/worker/fileContextProvider.js';

async function main(): Promise<void> {
  const [dir, name, count] = process.argv.slice(2) as [string, string, string];
  const provider = await FileContextProvider.open({ dir, agents: ['a', 'b'] });
  for (let i = 0; i < Number(count); i++) {
    await provider.appendChannel(name, `${name} ${i}\n### 10:00:00 [x]\n@${name === 'a' ? 'b' : 'a'} ${'.'.repeat(i * 97 % 3000)}`);
  }
}
void main().catch((ex: unknown) => {
  console.error(ex);
  process.exit(1);
});
