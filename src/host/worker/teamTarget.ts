// The targets of the unified agent namespace (`agent@instance`, `@instance`).
import { BatonError } from '../../core/errors.js';

/** `agent@instance` or `@instance`. */
export function parseTarget(target: string): { agent: string | null; instance: string } {
  const at = target.indexOf('@');
  if (at < 0 || target.indexOf('@', at + 1) >= 0 || at === target.length - 1) {
    throw new BatonError('invalid_input', `"${target}" is not a target: write agent@instance (e.g. coder@pr-123) or @instance`);
  }
  return { agent: at === 0 ? null : target.slice(0, at), instance: target.slice(at + 1) };
}
