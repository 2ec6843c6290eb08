// The transform step: interpolates its template, then applies one operation (no agent, no tokens).
import { BatonError } from '../../errors.js';
import type { SystemWorkflowStep } from '../types.js';
import { interpolate, type Variables } from './interpolate.js';

/** The value a transform step produces from the run's variables. */
export function transform(s: SystemWorkflowStep, vars: Variables): unknown {
  const text = interpolate(s.inputTemplate ?? '', vars);
  switch (s.operation ?? 'none') {
    case 'none':
      return text;
    case 'trim':
      return text.trim();
    case 'upper':
      return text.toUpperCase();
    case 'lower':
      return text.toLowerCase();
    case 'lines':
      return text.split('\n').map((l) => l.trim()).filter(Boolean);
    case 'json': {
      const body = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text)?.[1] ?? text;
      try {
        return JSON.parse(body) as unknown;
      } catch (ex) {
        throw new BatonError('invalid_input', `transform ${s.id}: the text is not JSON (${(ex as Error).message}); it starts ${JSON.stringify(text.slice(0, 80))}.`);
      }
    }
    case 'extract': {
      const m = new RegExp(s.pattern ?? '', 's').exec(text);
      if (!m) throw new BatonError('invalid_input', `transform ${s.id}: pattern ${JSON.stringify(s.pattern)} does not match the text, which starts ${JSON.stringify(text.slice(0, 80))}.`);
      return m[s.group ?? (m.length > 1 ? 1 : 0)] ?? '';
    }
  }
}
