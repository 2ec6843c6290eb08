// The engine settings `baton mcp` and `baton serve` share: tool groups, rate limits, token lifetime, stall threshold,
// retention.
import type { ParseArgsConfig } from 'node:util';
import { DEFAULT_RATE_LIMITS, type BucketConfig, type RateLimitConfig } from '../core/broker/rateLimiter.js';
import type { RetentionPolicy } from '../core/retention.js';
import { parseToolGroups, type ToolGroup } from '../mcp/toolGroups.js';
import { CliError } from './common.js';

/** Flags of the engine settings. */
export const ENGINE_OPTIONS = {
  tools: { type: 'string' },
  'rate-limits': { type: 'string' },
  'token-ttl': { type: 'string' },
  'stall-minutes': { type: 'string' },
  'retention-days': { type: 'string' },
  'retention-runs': { type: 'string' },
  'retention-idle-days': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** Usage lines of the engine settings. */
export const ENGINE_USAGE = `  --tools GROUPS          comma-separated tool groups: broker, specs, lifecycle, content, memory, context, or all (default broker)
  --rate-limits SPEC      on (default: per task 0.5/s burst 3, per agent 2/s burst 10), off, or rates like task=1/5,agent=4/20
  --token-ttl MINUTES     lifetime of a step token (default 10); refresh with request "refresh_token"
  --stall-minutes N       report a running workflow idle this long as stalled (default 30)
  --retention-days N      prune finished runs older than N days, about hourly (default 30; 0 keeps them by age)
  --retention-runs N      keep at most the newest N finished runs (default 1000; 0 keeps them by count)
  --retention-idle-days N  cancel unfinished runs with no activity for N days, about hourly; they are then
                          pruned as finished runs (default 30; 0 never cancels one)`;

/** Parsed engine settings. */
export interface EngineSettings {
  toolGroups: ToolGroup[];
  rateLimits?: RateLimitConfig;
  tokenTtlMs?: number;
  stallMinutes?: number;
  /** The retention flags given (the rest of the policy is the default). */
  retention?: Partial<RetentionPolicy>;
}

function usageError(message: string, usage: string): CliError {
  return new CliError(`${message}\n\n${usage}`, 2);
}

/** The longest step-token lifetime, in minutes: a year (far longer ones overflow a date). */
const MAX_TOKEN_TTL_MINUTES = 525_600;

/** A positive number flag, or undefined when absent. */
function positive(value: string | undefined, flag: string, usage: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw usageError(`${flag} must be a positive number (got "${value}")`, usage);
  return n;
}

/** A whole-number flag ≥ 0, or undefined when absent. */
export function wholeNumber(value: string | undefined, flag: string, usage: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw usageError(`${flag} must be a whole number ≥ 0 (got "${value}")`, usage);
  return n;
}

/** Parses `on`, `off` or `task=RPS/BURST,agent=RPS/BURST` (either part may be left out). */
export function parseRateLimits(value: string | undefined, usage: string): RateLimitConfig | undefined {
  if (value === undefined) return undefined;
  if (value === 'on') return { ...DEFAULT_RATE_LIMITS, enabled: true };
  if (value === 'off') return { ...DEFAULT_RATE_LIMITS, enabled: false };
  const config: RateLimitConfig = { enabled: true, task: { ...DEFAULT_RATE_LIMITS.task }, agent: { ...DEFAULT_RATE_LIMITS.agent } };
  for (const part of value.split(',')) {
    const m = /^(task|agent)=([0-9.]+)\/([0-9]+)$/.exec(part.trim());
    const rps = Number(m?.[2]);
    const burst = Number(m?.[3]);
    if (!m || !(rps > 0) || !(burst >= 1)) {
      throw usageError(`--rate-limits must be on, off, or rates like task=0.5/3,agent=2/10 (requests per second / burst); "${part}" is not`, usage);
    }
    const bucket: BucketConfig = { steady_rps: rps, burst_tokens: burst };
    config[m[1] as 'task' | 'agent'] = bucket;
  }
  return config;
}

/** Reads the engine settings from parsed flags. */
export function engineSettings(
  values: { tools?: string; 'rate-limits'?: string; 'token-ttl'?: string; 'stall-minutes'?: string } & RetentionFlags,
  usage: string,
): EngineSettings {
  let toolGroups: ToolGroup[];
  try {
    toolGroups = parseToolGroups(values.tools);
  } catch (ex) {
    throw usageError((ex as Error).message, usage);
  }
  const ttl = positive(values['token-ttl'], '--token-ttl', usage);
  if (ttl !== undefined && ttl > MAX_TOKEN_TTL_MINUTES) {
    throw usageError(`--token-ttl must be at most ${MAX_TOKEN_TTL_MINUTES} minutes (a year; got "${values['token-ttl']}")`, usage);
  }
  return {
    toolGroups,
    rateLimits: parseRateLimits(values['rate-limits'], usage),
    tokenTtlMs: ttl === undefined ? undefined : Math.round(ttl * 60_000),
    stallMinutes: positive(values['stall-minutes'], '--stall-minutes', usage),
    retention: retentionFlags(values, usage),
  };
}

type RetentionFlags = { 'retention-days'?: string; 'retention-runs'?: string; 'retention-idle-days'?: string };

/** The retention flags given, or undefined when none is. */
function retentionFlags(values: RetentionFlags, usage: string): Partial<RetentionPolicy> | undefined {
  const policy: Partial<RetentionPolicy> = {};
  for (const [flag, key] of [['retention-days', 'days'], ['retention-runs', 'maxRuns'], ['retention-idle-days', 'idleDays']] as const) {
    const v = wholeNumber(values[flag], `--${flag}`, usage);
    if (v !== undefined) policy[key] = v;
  }
  return Object.keys(policy).length ? policy : undefined;
}
