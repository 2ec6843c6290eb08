// Evaluates a step condition against the run's variables.
import { BatonError } from '../../errors.js';
import type { WorkflowStepCondition } from '../types.js';
import { asText, lookup, type Variables } from './interpolate.js';

/** Whether `c` holds for `vars`. A bad regular expression or a non-number in a numeric test is an `invalid_input` error. */
export function evaluate(c: WorkflowStepCondition, vars: Variables): boolean {
  if ('all' in c) return c.all.every((x) => evaluate(x, vars));
  if ('any' in c) return c.any.some((x) => evaluate(x, vars));
  if ('not' in c) return !evaluate(c.not, vars);
  const raw = lookup(vars, c.field);
  const exists = raw !== undefined && raw !== null && raw !== '';
  if (c.operator === 'exists') return exists;
  if (c.operator === 'not_exists') return !exists;
  const sensitive = c.caseSensitive === true;
  const norm = (s: string) => (sensitive ? s : s.toLowerCase());
  const text = asText(raw);
  const want = c.value === undefined ? '' : String(c.value);
  switch (c.operator) {
    case 'contains':
      return norm(text).includes(norm(want));
    case 'not_contains':
      return !norm(text).includes(norm(want));
    case 'equals':
      return norm(text.trim()) === norm(want.trim());
    case 'not_equals':
      return norm(text.trim()) !== norm(want.trim());
    case 'matches':
    case 'not_matches': {
      let re: RegExp;
      try {
        re = new RegExp(want, sensitive ? '' : 'i');
      } catch (ex) {
        throw new BatonError('invalid_input', `condition on '${c.field}': ${JSON.stringify(want)} is not a valid regular expression (${(ex as Error).message}).`);
      }
      return re.test(text) === (c.operator === 'matches');
    }
    default: {
      const a = toNumber(raw);
      const b = toNumber(c.value);
      if (a === undefined) {
        throw new BatonError('invalid_input', `condition '${c.field} ${c.operator} ${want}': '${c.field}' is ${raw === undefined ? 'not set' : JSON.stringify(text.slice(0, 60))}, not a number.`);
      }
      if (b === undefined) throw new BatonError('invalid_input', `condition on '${c.field}': value ${JSON.stringify(c.value)} is not a number.`);
      if (c.operator === 'gt') return a > b;
      if (c.operator === 'gte') return a >= b;
      if (c.operator === 'lt') return a < b;
      return a <= b;
    }
  }
}

/** A number from a number or from text that is one (the first number in an agent's answer such as "Score: 8/10"). */
function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v !== 'string') return undefined;
  const m = /-?\d+(?:\.\d+)?/.exec(v);
  return m ? Number(m[0]) : undefined;
}

/** A condition as a person reads it, for events and errors. */
export function describeCondition(c: WorkflowStepCondition): string {
  if ('all' in c) return `(${c.all.map(describeCondition).join(' and ')})`;
  if ('any' in c) return `(${c.any.map(describeCondition).join(' or ')})`;
  if ('not' in c) return `not ${describeCondition(c.not)}`;
  return c.value === undefined ? `${c.field} ${c.operator}` : `${c.field} ${c.operator} ${JSON.stringify(c.value)}`;
}
