// The MCP configuration a terminal agent needs to join this workspace's Baton, and the launcher it names. No 'vscode'
// import (unit-tested).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The clients "Copy MCP Config for …" serves. */
export type McpClient = 'claude' | 'cursor' | 'codex' | 'gemini' | 'opencode';

/** Where Baton's CLI is and which workspace (and database, when not the default) it serves. */
export interface McpConfigTarget {
  /** Absolute path of `dist/cli.js` inside the extension. */
  cliPath: string;
  workspace: string;
  /** Set when `baton.database.path` moves the database; else the CLI's default for the workspace. */
  dbPath?: string;
}

/** `node <cli> mcp --workspace <folder> [--db <path>]`. */
export function mcpArgs(t: McpConfigTarget): string[] {
  return [t.cliPath, 'mcp', '--workspace', t.workspace, ...(t.dbPath ? ['--db', t.dbPath] : [])];
}

/**
 * The config text: JSON `mcpServers` for Claude Code, Cursor and Gemini CLI, TOML `[mcp_servers.baton]` for Codex,
 * and OpenCode's `opencode.json` with its `mcp` entry (a local server whose command is one array).
 */
export function mcpConfigText(client: McpClient, t: McpConfigTarget): string {
  const args = mcpArgs(t);
  if (client === 'codex') {
    // A JSON string is a valid TOML basic string (same escapes). required: `codex exec` does not wait for a server
    // still starting before its first model request (the model then has no Baton tools); with it, codex waits.
    return `[mcp_servers.baton]\ncommand = "node"\nargs = [${args.map((a) => JSON.stringify(a)).join(', ')}]\nrequired = true\n`;
  }
  if (client === 'opencode') {
    const config = { $schema: 'https://opencode.ai/config.json', mcp: { baton: { type: 'local', command: ['node', ...args], enabled: true } } };
    return JSON.stringify(config, null, 2) + '\n';
  }
  // Gemini CLI leaves a server's tools out of a headless run (`gemini -p`) unless it is trusted, without a word.
  const server = client === 'claude' ? { type: 'stdio', command: 'node', args } : client === 'gemini' ? { command: 'node', args, trust: true } : { command: 'node', args };
  return JSON.stringify({ mcpServers: { baton: server } }, null, 2) + '\n';
}

/** Where the pasted config goes, for the confirmation message. */
export function mcpConfigHint(client: McpClient): string {
  switch (client) {
    case 'claude': return "Paste it into the project's .mcp.json (or run `claude mcp add-json baton '<the baton object>'`).";
    case 'cursor': return 'Paste it into .cursor/mcp.json in the project.';
    // It names this workspace (--workspace): in ~/.codex/config.toml it would serve this workspace's Baton to Codex in
    // every project. Codex reads a project's .codex/config.toml once the project is trusted (checked with Codex 0.171).
    case 'codex': return "Paste it into the project's .codex/config.toml (Codex reads it once you trust the project).";
    // Project settings are read in a folder Gemini CLI trusts; trust: true lets it call Baton's tools without asking.
    case 'gemini': return "Paste it into the project's .gemini/settings.json (Gemini CLI reads it once you trust the folder).";
    case 'opencode': return "Paste it into the project's opencode.json (into its mcp entry, if the file has one).";
  }
}

/** The launcher's file name, in the extension's global storage. */
export const LAUNCHER_NAME = 'baton-cli.js';

/** The launcher's text: it runs the CLI of the extension installed now. */
export function launcherText(cliPath: string): string {
  return `// Written by the Baton extension each time it starts: it runs the CLI of the Baton installed now, so an MCP config\n// that names this file keeps working after Baton updates (the extension's own folder changes with its version).\nrequire(${JSON.stringify(cliPath)});\n`;
}

/**
 * Writes (or refreshes) the launcher in `storageDir` for `cliPath`; returns its path. With `onlyIfPresent`, a launcher
 * that was never written (no config copied yet) is left unwritten.
 */
export function writeLauncher(storageDir: string, cliPath: string, onlyIfPresent = false): string {
  const path = join(storageDir, LAUNCHER_NAME);
  const text = launcherText(cliPath);
  let current: string | null = null;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    // none yet
  }
  if (current === text || (onlyIfPresent && current === null)) return path;
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
  return path;
}
