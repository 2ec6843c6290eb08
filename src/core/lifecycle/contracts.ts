// Validates step and workflow outputs (and log contracts) against JSON Schema files with Ajv; a missing schema
// skips validation with a logged notice (the spec's graceful degradation).
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { BatonError } from '../errors.js';
import type { FileSystem, Log } from '../ports.js';
import type { ContractCheck } from '../lifecycleTypes.js';

/** Validators compiled per schema text: a schema edited on disk is picked up on the next call. */
export class ContractValidator {
  private ajvInstance: Ajv | null = null;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly noticed = new Set<string>();

  /** `dirs`: contract folders in increasing precedence (bundled first, the workspace's `.baton/contracts` last). */
  constructor(private readonly fs: FileSystem, private readonly dirs: () => readonly string[], private readonly log: Log) {}

  /** Ajv, made when the first schema is compiled: making it (meta-schemas, formats) costs more than a start-up's worth. */
  private get ajv(): Ajv {
    if (!this.ajvInstance) {
      this.ajvInstance = new Ajv({ allErrors: true, strict: false });
      addFormats(this.ajvInstance);
    }
    return this.ajvInstance;
  }

  /** The schema file for `name` that wins (the last folder holding `<name>.schema.json`). */
  async locate(name: string): Promise<string | undefined> {
    const dirs = this.dirs();
    for (let i = dirs.length - 1; i >= 0; i--) {
      const path = `${dirs[i]}/${name}.schema.json`;
      if (await this.fs.exists(path)) return path;
    }
    return undefined;
  }

  /**
   * Validates `value` against the `name` contract. Throws an `invalid_input` BatonError listing each failing field
   * (JSON pointer + message); returns `validated: false` with a notice when no schema file exists.
   */
  async check(name: string, value: unknown, what: string): Promise<ContractCheck> {
    const path = await this.locate(name);
    if (!path) {
      const notice = `No ${name}.schema.json in ${this.dirs().join(' or ')}; ${what} was stored without contract validation.`;
      // One notice per schema name is enough for the log; every result still carries it.
      if (!this.noticed.has(name)) {
        this.noticed.add(name);
        this.log.info(`contracts: ${notice}`);
      }
      return { schema: name, validated: false, notice };
    }
    const validate = await this.compile(path);
    if (validate(value)) return { schema: name, validated: true };
    const problems = (validate.errors ?? []).map(describeError);
    throw new BatonError(
      'invalid_input',
      `${what} does not match the ${name} contract (${path}): ${[...new Set(problems)].join('; ')}. Fix these fields and call again.`,
      { schema: name, path, errors: validate.errors ?? [] },
    );
  }

  private async compile(path: string): Promise<ValidateFunction> {
    const text = await this.fs.readText(path);
    const key = `${path}\n${text}`;
    let validate = this.compiled.get(key);
    if (validate) return validate;
    let schema: unknown;
    try {
      schema = JSON.parse(text);
    } catch (ex) {
      throw new BatonError('content_invalid', `${path} is not valid JSON (${ex instanceof Error ? ex.message : String(ex)}); fix the schema file.`);
    }
    try {
      // $id must not clash between an old and a new text of the same file.
      const s = { ...(schema as Record<string, unknown>) };
      delete s.$id;
      validate = this.ajv.compile(s);
    } catch (ex) {
      throw new BatonError('content_invalid', `${path} is not a valid JSON Schema (${ex instanceof Error ? ex.message : String(ex)}); fix the schema file.`);
    }
    this.compiled.set(key, validate);
    return validate;
  }
}

/** One Ajv error as "<field> <message>", the field as a JSON pointer (`/artifacts/0/name`). */
export function describeError(e: ErrorObject): string {
  let at = e.instancePath;
  if (e.keyword === 'required') at = `${at}/${String((e.params as { missingProperty: string }).missingProperty)}`;
  if (e.keyword === 'additionalProperties') at = `${at}/${String((e.params as { additionalProperty: string }).additionalProperty)}`;
  const field = at === '' ? '(the whole value)' : at;
  const msg = e.keyword === 'required' ? 'is required' : e.keyword === 'additionalProperties' ? 'is not allowed' : e.message ?? 'is invalid';
  return `${field} ${msg}`;
}
