// `npm start`: builds Baton and serves MCP on stdio on the workspace's default database.
// (The editor issue replaces this with: build, install the editor host if absent, open code-server with Baton.)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(new URL('.', import.meta.url).pathname, '..');
const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync(process.execPath, [join(root, 'dist', 'cli.js'), 'mcp'], { stdio: 'inherit' });
process.exit(run.status ?? 1);
