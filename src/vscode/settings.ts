// The `baton.*` settings turned into owner options. No 'vscode' import: it reads through a getter (unit-tested).
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_RATE_LIMITS, type RateLimitConfig } from '../core/broker/rateLimiter.js';
import { DEFAULT_RETENTION, type RetentionPolicy } from '../core/retention.js';
import { assertToolGroups, DEFAULT_TOOL_GROUPS, TOOL_GROUPS, type ToolGroup } from '../mcp/toolGroups.js';

/** Reads one setting under `baton.` (like `WorkspaceConfiguration.get`). */
export type SettingReader = <T>(key: string) => T | undefined;

/** What the owner is opened with. */
export interface BatonSettings {
  dbPath: string;
  /** Whether `baton.database.path` chose `dbPath` (a failure to open it then names the setting). */
  customDb: boolean;
  toolGroups: ToolGroup[];
  tokenTtlMs: number;
  rateLimits: RateLimitConfig;
  stallMinutes: number;
  /** Finished runs kept when this editor owns the database (a terminal owner uses its own flags). */
  retention: RetentionPolicy;
  /** Problems with the settings, reported in the log; defaults were used instead. */
  problems: string[];
}

/** A positive number setting, or its default with a problem noted. */
function positive(get: SettingReader, key: string, fallback: number, problems: string[]): number {
  const v = get<number>(key);
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'number' && Number.isFinite(v) && v > 0) return v;
  problems.push(`baton.${key} must be a positive number (got ${JSON.stringify(v)}); using ${fallback}`);
  return fallback;
}

/** A whole number ≥ 0 setting (0 turns a limit off), or its default with a problem noted. */
function wholeNumber(get: SettingReader, key: string, fallback: number, problems: string[]): number {
  const v = get<number>(key);
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  problems.push(`baton.${key} must be a whole number ≥ 0, 0 for no limit (got ${JSON.stringify(v)}); using ${fallback}`);
  return fallback;
}

/** A true/false setting, or its default with a problem noted (a string "no" is not false). */
function flag(get: SettingReader, key: string, fallback: boolean, problems: string[]): boolean {
  const v = get<boolean>(key);
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'boolean') return v;
  problems.push(`baton.${key} must be true or false (got ${JSON.stringify(v)}); using ${fallback}`);
  return fallback;
}

/** The database path: the setting (absolute, or relative to the folder), else `<folder>/.baton/baton.db`. */
export function databasePath(setting: string | undefined, folder: string): string {
  const s = setting?.trim();
  if (!s) return join(folder, '.baton', 'baton.db');
  return isAbsolute(s) ? s : resolve(folder, s);
}

/**
 * What a person reads when the database cannot be opened (`cause`: the system's words, ENOENT or EACCES): which file,
 * and what to change; `custom` when `baton.database.path` chose the file.
 */
export function databaseFailureText(dbPath: string, custom: boolean, cause: string): string {
  const way = custom
    ? 'The setting baton.database.path names it: point the setting at a file in a folder you can write to, or clear it ' +
      'to use .baton/baton.db in the workspace folder.'
    : `Check that Baton may create and write files in ${dirname(dbPath)}, or set baton.database.path to a file elsewhere.`;
  return `could not open the database ${dbPath} (${cause}). ${way}`;
}

/** The notification for settings that fell back to their defaults; undefined when none did. */
export function settingsProblemsText(problems: string[]): string | undefined {
  if (problems.length === 0) return undefined;
  return problems.length === 1
    ? `Baton: a setting is not valid, so its default is used: ${problems[0]}.`
    : `Baton: ${problems.length} settings are not valid, so their defaults are used: ${problems.join('; ')}.`;
}

/** Reads every `baton.*` setting; a bad value falls back to its default and is reported. */
export function readSettings(get: SettingReader, folder: string): BatonSettings {
  const problems: string[] = [];
  const dbSetting = get<string>('database.path');
  let toolGroups: ToolGroup[] = [...DEFAULT_TOOL_GROUPS];
  const groups = get<string[]>('mcp.toolGroups');
  if (Array.isArray(groups) && groups.length > 0) {
    try {
      // "all" with a misspelt group is a typo too, as `baton mcp --tools all,bogus` says.
      const named = assertToolGroups(groups.filter((g) => g !== 'all'));
      toolGroups = groups.includes('all') ? [...TOOL_GROUPS] : named;
    } catch (ex) {
      problems.push(`baton.mcp.toolGroups: ${(ex as Error).message}; using ${toolGroups.join(', ')}`);
    }
  } else if (groups !== undefined && groups !== null && !Array.isArray(groups)) {
    problems.push(`baton.mcp.toolGroups must be a list such as ["broker", "lifecycle"] (got ${JSON.stringify(groups)}); using ${toolGroups.join(', ')}`);
  }
  return {
    dbPath: databasePath(dbSetting, folder),
    customDb: !!dbSetting?.trim(),
    toolGroups,
    tokenTtlMs: Math.round(positive(get, 'tokens.lifetimeMinutes', 10, problems) * 60_000),
    rateLimits: { ...DEFAULT_RATE_LIMITS, enabled: flag(get, 'rateLimits.enabled', true, problems) },
    stallMinutes: positive(get, 'stall.thresholdMinutes', 30, problems),
    retention: {
      days: wholeNumber(get, 'retention.days', DEFAULT_RETENTION.days, problems),
      maxRuns: wholeNumber(get, 'retention.maxRuns', DEFAULT_RETENTION.maxRuns, problems),
      idleDays: wholeNumber(get, 'retention.idleDays', DEFAULT_RETENTION.idleDays, problems),
    },
    problems,
  };
}
