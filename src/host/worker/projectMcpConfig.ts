// The project-level MCP configuration of the spec ("CLI Backend MCP Configuration") for codex (`.codex/config.toml`)
// and cursor-agent (`.cursor/mcp.json`): written into the agents' project folder while a team's agents of that kind
// run, and restored afterwards — byte for byte, or deleted (with the folder Baton made) when there was none. Before a
// file is touched, what was there is recorded in a restore journal under Baton's data folder; a process that died
// (SIGKILL included) leaves its journal entry behind, and the next team start restores from it. The entry names
// Baton's endpoint only: the bearer token stays in the agent's environment (codex `bearer_token_env_var`, cursor
// `${env:…}`), never in the user's files. claude needs none of this: its runner passes `--mcp-config` at run time.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Log } from '../../core/ports.js';
import { tomlKey, tomlValue } from '../runners/toml.js';
import { isPidAlive } from '../../store/lock.js';

/** The variable that carries an agent's bearer token to the project configuration. */
export const TEAM_TOKEN_VARIABLE = 'BATON_MCP_TOKEN';

/** The backends configured through a project file, and the file. */
export const PROJECT_CONFIG_FILES: Readonly<Record<string, string>> = { codex: '.codex/config.toml', 'cursor-agent': '.cursor/mcp.json' };

/** One journal entry: what was at `path` before Baton wrote `written` there. */
interface JournalEntry {
  path: string;
  pid: number;
  /** The original bytes (base64), or null when there was no file. */
  original: string | null;
  /** The original's permission bits. */
  mode: number | null;
  /** The folder Baton created for the file (removed again when empty), or null. */
  createdDir: string | null;
  /** What Baton wrote (base64): restored only while the file still holds it. */
  written: string;
}

/** The file's content with Baton's server entry added to what was there. */
export function projectConfigContent(kind: string, original: Buffer | null, server: { name: string; url: string }): string {
  if (kind === 'codex') {
    const block = `# Added by Baton while a team's agents run; removed when they stop.\n[mcp_servers.${tomlKey(server.name)}]\n` +
      `url = ${tomlValue(server.url)}\nbearer_token_env_var = ${tomlValue(TEAM_TOKEN_VARIABLE)}\ndefault_tools_approval_mode = "approve"\nrequired = true\n`;
    const before = original?.toString('utf8') ?? '';
    return before ? `${before}${before.endsWith('\n') ? '' : '\n'}\n${block}` : block;
  }
  let json: Record<string, unknown> = {};
  try {
    const parsed: unknown = original ? JSON.parse(original.toString('utf8')) : {};
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) json = parsed as Record<string, unknown>;
  } catch {
    // an unreadable file is replaced while the team runs, and put back afterwards
  }
  const servers = { ...(json.mcpServers as Record<string, unknown> | undefined) };
  servers[server.name] = { url: server.url, headers: { Authorization: `Bearer \${env:${TEAM_TOKEN_VARIABLE}}` } };
  return `${JSON.stringify({ ...json, mcpServers: servers }, null, 2)}\n`;
}

/** Writes and restores project configuration files, journalled under `journalDir`. */
export class ProjectMcpConfig {
  private readonly held = new Map<string, { count: number; entry: JournalEntry }>();

  constructor(private readonly journalDir: string, private readonly log: Log) {}

  /** Restores what dead processes left behind (their journal entries); returns the paths put back. */
  recover(): string[] {
    if (!existsSync(this.journalDir)) return [];
    const restored: string[] = [];
    for (const name of readdirSync(this.journalDir).filter((n) => n.endsWith('.json'))) {
      const file = join(this.journalDir, name);
      let entry: JournalEntry;
      try {
        entry = JSON.parse(readFileSync(file, 'utf8')) as JournalEntry;
      } catch {
        this.log.warn(`unreadable MCP restore journal entry ${file}; removing it`);
        unlinkSync(file);
        continue;
      }
      if (isPidAlive(entry.pid)) continue;
      if (this.held.has(entry.path)) continue;
      if (this.putBack(entry)) restored.push(entry.path);
      unlinkSync(file);
    }
    return restored;
  }

  /** Makes `kind`'s project file in `cwd` name Baton's server; the returned function undoes it (once all users are done). */
  acquire(kind: string, cwd: string, server: { name: string; url: string }): () => void {
    const rel = PROJECT_CONFIG_FILES[kind];
    if (!rel) return () => undefined;
    const path = resolve(cwd, rel);
    const held = this.held.get(path);
    if (held) {
      held.count++;
      return once(() => this.release(path));
    }
    const original = existsSync(path) ? readFileSync(path) : null;
    const dir = dirname(path);
    const createdDir = existsSync(dir) ? null : dir;
    const content = projectConfigContent(kind, original, server);
    const mode = original ? statSync(path).mode & 0o777 : null;
    const entry: JournalEntry = { path, pid: process.pid, original: original?.toString('base64') ?? null, mode, createdDir, written: Buffer.from(content).toString('base64') };
    mkdirSync(this.journalDir, { recursive: true, mode: 0o700 });
    atomicWrite(this.journalFile(path), JSON.stringify(entry));
    mkdirSync(dir, { recursive: true });
    atomicWrite(path, content, mode ?? 0o644);
    this.held.set(path, { count: 1, entry });
    return once(() => this.release(path));
  }

  /** Restores every file this process still holds (on shutdown). */
  releaseAll(): void {
    for (const path of [...this.held.keys()]) {
      this.held.get(path)!.count = 1;
      this.release(path);
    }
  }

  private release(path: string): void {
    const held = this.held.get(path);
    if (!held || --held.count > 0) return;
    this.held.delete(path);
    this.putBack(held.entry);
    const journal = this.journalFile(path);
    if (existsSync(journal)) unlinkSync(journal);
  }

  /** Puts the original back if the file still holds what Baton wrote; true when it did. */
  private putBack(entry: JournalEntry): boolean {
    const now = existsSync(entry.path) ? readFileSync(entry.path) : null;
    if (now && !now.equals(Buffer.from(entry.written, 'base64'))) {
      this.log.warn(`${entry.path} was changed while a team ran; left as it is (Baton's server entry may still be in it)`);
      return false;
    }
    if (entry.original !== null) {
      atomicWrite(entry.path, Buffer.from(entry.original, 'base64'), entry.mode ?? 0o644);
    } else if (now) {
      unlinkSync(entry.path);
      if (entry.createdDir && existsSync(entry.createdDir) && readdirSync(entry.createdDir).length === 0) rmdirSync(entry.createdDir);
    }
    return true;
  }

  private journalFile(path: string): string {
    return join(this.journalDir, `${createHash('sha256').update(path).digest('hex').slice(0, 32)}.json`);
  }
}

function atomicWrite(path: string, content: string | Buffer, mode = 0o600): void {
  const tmp = `${path}.baton-${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode });
  renameSync(tmp, path);
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    fn();
  };
}
