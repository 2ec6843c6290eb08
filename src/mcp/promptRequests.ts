// Checks prompts/get and prompt completions before the SDK does: it looks prompts up in a plain object, so a name
// such as "__proto__" or "constructor" came back "Prompt __proto__ disabled", and it answers arguments of the wrong
// kind in the validator's words and drops unknown ones without a word.
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { didYouMean } from '../core/suggest.js';
import { quoted } from './inputErrors.js';
import { rpcError } from './jsonRpc.js';
import type { WorkflowPrompts } from './prompts.js';

/** A request handler as the SDK stores it (it parses the request with zod, then calls the registered handler). */
type RawHandler = (request: unknown, extra: unknown) => Promise<unknown>;

/** A prompt name in a message: as it came, or cut short with its length when it is long. */
function shownName(name: string): string {
  return name.length > 80 ? `${quoted(name)} (${name.length} characters)` : name;
}

/** The refusal of a prompt that does not exist, naming those that do. */
export function promptNotFound(name: string, prompts: WorkflowPrompts): Error {
  const names = prompts.names();
  return rpcError(
    ErrorCode.InvalidParams,
    `Prompt ${shownName(name)} not found${didYouMean(name, names, quoted)}; the prompts (one per workflow template, as prompts/list names them): ${names.join(', ')}`,
  );
}

/** Renders a value of the wrong kind briefly for "(got ...)". */
function got(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return typeof value === 'string' ? quoted(value, 40) : String(value);
}

/**
 * What is wrong with a prompts/get's `arguments` for a prompt taking `known`; a null value reads as left out (models
 * send it for an argument they do not use), as it does in a tool call, and is removed from `args`.
 */
function argumentProblems(args: Record<string, unknown>, known: readonly string[]): string[] {
  const problems: string[] = [];
  const takes = known.length ? `this prompt takes ${known.join(', ')}` : 'this prompt takes no arguments';
  for (const [key, value] of Object.entries(args)) {
    if (value === null) {
      delete args[key];
    } else if (!known.includes(key)) {
      problems.push(`unknown argument ${quoted(key)}${didYouMean(key, known, quoted)}; ${takes}`);
    } else if (typeof value !== 'string') {
      problems.push(`arguments.${key} must be a string: prompt arguments are text (got ${got(value)})`);
    }
  }
  return problems;
}

/**
 * Wraps the SDK's prompts/get and completion/complete handlers in `handlers`: an unknown prompt (whatever its name)
 * is refused with the list of prompts, and the arguments of a prompts/get with a message naming the argument to fix.
 */
export function checkPromptRequests(handlers: Map<string, RawHandler>, prompts: WorkflowPrompts): void {
  const get = handlers.get('prompts/get');
  if (get) {
    handlers.set('prompts/get', (request, extra) => {
      const params = (request as { params?: { name?: unknown; arguments?: unknown } }).params;
      // A request of the wrong shape is the SDK's to refuse (with Baton's Invalid params wording).
      if (!params || typeof params.name !== 'string') return get(request, extra);
      const known = prompts.argumentsOf(params.name);
      if (!known) return Promise.reject(promptNotFound(params.name, prompts));
      const args = params.arguments;
      if (args === null) {
        delete params.arguments;
      } else if (args !== undefined) {
        const problem = typeof args !== 'object' || Array.isArray(args)
          ? [`arguments must be an object of text values such as {${JSON.stringify(known[0] ?? 'name')}: "..."} (got ${got(args)})`]
          : argumentProblems(args as Record<string, unknown>, known);
        if (problem.length) {
          const shown = problem.slice(0, 5).join('; ');
          return Promise.reject(rpcError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${shownName(params.name)}: ${shown}. Fix the arguments and get the prompt again.`));
        }
      }
      return get(request, extra);
    });
  }
  const complete = handlers.get('completion/complete');
  if (complete) {
    handlers.set('completion/complete', (request, extra) => {
      const ref = (request as { params?: { ref?: { type?: unknown; name?: unknown } } }).params?.ref;
      if (ref?.type === 'ref/prompt' && typeof ref.name === 'string' && !prompts.argumentsOf(ref.name)) {
        return Promise.reject(promptNotFound(ref.name, prompts));
      }
      return complete(request, extra);
    });
  }
}
