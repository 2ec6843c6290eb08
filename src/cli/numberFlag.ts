// Number flags read strictly: decimal digits (and a point where a fraction makes sense) within bounds. Number() reads
// '' as 0, '0x10' as 16, '1e3' as 1000, ' 12 ' as 12 and 'Infinity' as a number: none is what a person typed.
import { CliError } from './common.js';

/** What a number flag takes, and a good value to show when it gets something else. */
export interface NumberFlag {
  /** The flag, as typed: `--port`. */
  flag: string;
  /** What the number counts, for the message (`minutes`); none for a plain number. */
  unit?: string;
  /** Whether it takes a fraction (`1.5`); else only whole numbers. */
  fraction?: boolean;
  /** The least value it takes. */
  min: number;
  /** The largest value it takes; none: any whole number JavaScript holds exactly (or any finite fraction). */
  max?: number;
  /** Why `max`, said after it (`a year`). */
  maxWhy?: string;
  /** Good values, the first the usual one: `['10', '1.5']`. */
  examples: string[];
}

const WHOLE = /^\d+$/;
const DECIMAL = /^(\d+(\.\d*)?|\.\d+)$/;

/**
 * The value of a number flag, or undefined when it was not given. Anything but decimal digits (with one point for a
 * fraction) within the bounds is a usage error (exit 2) naming the flag, what it got, and a good value.
 */
export function numberFlag(raw: string | undefined, spec: NumberFlag, usage: string): number | undefined {
  if (raw === undefined) return undefined;
  const n = (spec.fraction ? DECIMAL : WHOLE).test(raw) ? Number(raw) : NaN;
  const held = spec.fraction ? Number.isFinite(n) : Number.isSafeInteger(n);
  if (held && n >= spec.min && (spec.max === undefined || n <= spec.max)) return n;
  throw new CliError(`${numberRule(spec)} (got "${raw}")\n\n${usage}`, 2);
}

/** `--token-ttl must be a number of minutes from 1 to 525600 (a year), e.g. --token-ttl 10 or --token-ttl 1.5`. */
function numberRule(spec: NumberFlag): string {
  const kind = `${spec.fraction ? 'a number' : 'a whole number'}${spec.unit ? ` of ${spec.unit}` : ''}`;
  const range = spec.max === undefined ? `, ${spec.min} or more` : ` from ${spec.min} to ${spec.max}${spec.maxWhy ? ` (${spec.maxWhy})` : ''}`;
  const examples = spec.examples.map((e) => `${spec.flag} ${e}`).join(' or ');
  return `${spec.flag} must be ${kind}${range}, e.g. ${examples}`;
}
