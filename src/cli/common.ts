// What the subcommands share: option definitions, usage errors, the database path, finding or becoming the owner.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import packageJson from '../../package.json';
import { BatonError } from '../core/errors.js';
import type { Log } from '../core/ports.js';
import { readDiscovery, type DiscoveryInfo } from '../host/discovery.js';
import { stderrLog } from '../host/nodePorts.js';
import { resolveDbPath } from '../store/dbPath.js';

/** Baton's version (package.json). */
export const VERSION: string = packageJson.version;

// dist/cli.js and dist/engine.js each hold a copy of this module: `instanceof` recognises both copies' errors.
const CLI_ERROR = Symbol.for('baton.CliError');

/** A failure that ends the command with an exit code and a message on stderr. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2,
  ) {
    super(message);
    Object.defineProperty(this, CLI_ERROR, { value: true });
  }

  /** Whether `value` is a CliError made by any copy of this class. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[CLI_ERROR] === true;
  }
}

/** Options every database command takes. */
export const DB_OPTIONS = {
  db: { type: 'string' },
  content: { type: 'string' },
  workspace: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** parseArgs with strict checking; a bad flag becomes a usage error (exit 2). */
export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, usage: string) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (ex) {
    throw new CliError(`${(ex as Error).message}\n\n${usage}`, 2);
  }
}

/** The database path the flags and environment name (absolute). */
export function dbPathOf(values: { db?: string; workspace?: string }): string {
  return resolveDbPath({ db: values.db, workspace: values.workspace });
}

/** Stderr log; BATON_LOG_LEVEL picks the level. */
export function cliLog(defaultLevel: 'debug' | 'info' | 'warn' | 'error' = 'info'): Log {
  const level = process.env.BATON_LOG_LEVEL;
  return stderrLog(level === 'debug' || level === 'info' || level === 'warn' || level === 'error' ? level : defaultLevel);
}

/** What `openOrFindOwner` found. */
export type Ownership<T> = { opened: T } | { owner: DiscoveryInfo } | { lockedBy: number };

/**
 * Opens the database, or finds the live owner's endpoint. For up to `ms` it retries: an owner that is starting has
 * not published its endpoint yet, and one that is exiting has removed it but not yet released the lock.
 */
export async function openOrFindOwner<T>(dbPath: string, open: () => Promise<T>, ms = 5000): Promise<Ownership<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return { opened: await open() };
    } catch (ex) {
      const ownerPid = lockedBy(ex);
      if (ownerPid === null) throw ex;
      const owner = readDiscovery(dbPath);
      if (owner) return { owner };
      if (Date.now() >= deadline) return { lockedBy: ownerPid };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The message when another process owns the database but cannot be reached. */
export function unreachableOwner(dbPath: string, ownerPid: unknown, url: string | null): CliError {
  const where = url ? `its endpoint ${url} does not answer` : 'it publishes no endpoint (no server.json beside the database)';
  return new CliError(`database ${dbPath} is owned by Baton process ${String(ownerPid)} but ${where}; stop that process or use --db elsewhere`, 1);
}

/** The owner pid a store_locked error names. */
export function lockedBy(ex: unknown): number | null {
  return BatonError.is(ex, 'store_locked') ? Number(ex.details.ownerPid) : null;
}
