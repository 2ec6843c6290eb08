// The engine settings `baton mcp` and `baton serve` share: tool groups, rate limits, token lifetime, stall threshold,
// retention.
import type { ParseArgsConfig } from 'node:util';
import { DEFAULT_RATE_LIMITS, type BucketConfig, type RateLimitConfig } from '../core/broker/rateLimiter.js';
import type { RetentionPolicy } from '../core/retention.js';
import { parseToolGroups, type ToolGroup } from '../mcp/toolGroups.js';
import { CliError } from './common.js';
import { numberFlag, type NumberFlag } from './numberFlag.js';

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
export const ENGINE_USAGE = `  --tools GROUPS          comma-separated tool groups: broker, specs, lifecycle, content, memory, context, or all
                          (default broker)
  --rate-limits SPEC      on (default: per task 0.5/s burst 3, per agent 2/s burst 10), off, or rates like
                          task=1/5,agent=4/20
  --token-ttl MINUTES     lifetime of a step token, 1 to 525600 (a year), 1.5 for 90 s (default 10); refresh with
                          request "refresh_token"
  --stall-minutes N       report a running workflow idle this long as stalled, 1 to 525600 (default 30)
  --retention-days N      prune finished runs older than N days, about hourly (default 30; 0 keeps them by age)
  --retention-runs N      keep at most the newest N finished runs (default 1000; 0 keeps them by count)
  --retention-idle-days N
                          cancel unfinished runs with no activity for N days, about hourly; they are then pruned as
                          finished runs (default 30; 0 never cancels one)`;

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

/** The longest step-token lifetime and stall threshold, in minutes: a year (far longer ones overflow a date). */
const MAX_MINUTES = 525_600;

/**
 * The engine's number flags. Minutes take a fraction (1.5); at least 1, as the editor's settings: a token that
 * expires within seconds, or a run called stalled as soon as its agent thinks, is no setting anyone wants.
 */
const MINUTES = { unit: 'minutes', fraction: true, min: 1, max: MAX_MINUTES, maxWhy: 'a year' } as const;
const TOKEN_TTL: NumberFlag = { flag: '--token-ttl', ...MINUTES, examples: ['10', '1.5'] };
const STALL_MINUTES: NumberFlag = { flag: '--stall-minutes', ...MINUTES, examples: ['30'] };
const RETENTION: Record<keyof RetentionFlags, NumberFlag> = {
  'retention-days': { flag: '--retention-days', unit: 'days', min: 0, examples: ['30', '0'] },
  'retention-runs': { flag: '--retention-runs', unit: 'runs', min: 0, examples: ['1000', '0'] },
  'retention-idle-days': { flag: '--retention-idle-days', unit: 'days', min: 0, examples: ['30', '0'] },
};

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
    // Number() reads 400 digits as Infinity and a 20-digit burst inexactly: neither is a rate a person meant.
    if (!m || !(Number.isFinite(rps) && rps > 0) || !(Number.isSafeInteger(burst) && burst >= 1)) {
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
  const ttl = numberFlag(values['token-ttl'], TOKEN_TTL, usage);
  return {
    toolGroups,
    rateLimits: parseRateLimits(values['rate-limits'], usage),
    tokenTtlMs: ttl === undefined ? undefined : Math.round(ttl * 60_000),
    stallMinutes: numberFlag(values['stall-minutes'], STALL_MINUTES, usage),
    retention: retentionFlags(values, usage),
  };
}

type RetentionFlags = { 'retention-days'?: string; 'retention-runs'?: string; 'retention-idle-days'?: string };

/** The retention flags given, or undefined when none is. */
function retentionFlags(values: RetentionFlags, usage: string): Partial<RetentionPolicy> | undefined {
  const policy: Partial<RetentionPolicy> = {};
  for (const [flag, key] of [['retention-days', 'days'], ['retention-runs', 'maxRuns'], ['retention-idle-days', 'idleDays']] as const) {
    const v = numberFlag(values[flag], RETENTION[flag], usage);
    if (v !== undefined) policy[key] = v;
  }
  return Object.keys(policy).length ? policy : undefined;
}
