// Validates step and workflow outputs (and log contracts) against JSON Schema files with Ajv; a missing schema
// skips validation with a logged notice (the spec's graceful degradation). A schema is checked by the draft its
// `$schema` names (draft-07 when it names none): the seed's own contracts are draft 2020-12.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { BatonError } from '../errors.js';
import type { FileSystem, Log } from '../ports.js';
import type { ContractCheck } from '../lifecycleTypes.js';

/** The drafts a contract may name in `$schema`, each by the URI it is known by (with or without `#`, http or https). */
type Draft = 'draft-06' | 'draft-07' | '2019-09' | '2020-12';
const DRAFTS: ReadonlyArray<[Draft, RegExp]> = [
  ['draft-06', /^https?:\/\/json-schema\.org\/draft-06\/schema#?$/],
  ['draft-07', /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/],
  ['2019-09', /^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/],
  ['2020-12', /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/],
];

/** The draft a schema's `$schema` names (draft-07 without one), or a sentence saying why it cannot be checked. */
function draftOf(schema: Record<string, unknown>): { draft: Draft } | { problem: string } {
  const uri = schema.$schema;
  if (uri === undefined) return { draft: 'draft-07' };
  if (typeof uri !== 'string') return { problem: `its $schema is ${JSON.stringify(uri)}, not a URI` };
  const known = DRAFTS.find(([, pattern]) => pattern.test(uri.trim()));
  if (known) return { draft: known[0] };
  return {
    problem: `its $schema ${JSON.stringify(uri)} names a draft Baton does not check (it checks draft-06, draft-07, 2019-09 ` +
      'and 2020-12: set $schema to one of them, such as "http://json-schema.org/draft-07/schema#", or leave it out for draft-07)',
  };
}

/** The class a dynamically imported Ajv module exports: its default, as the bundle and Node's ESM loader give it. */
function ajvClass(module: { default: unknown }): new (options: object) => Ajv {
  type AjvClass = new (options: object) => Ajv;
  const exported = module.default as AjvClass | { default: AjvClass };
  return 'default' in exported ? exported.default : exported;
}

/** An Ajv instance for `draft`, with the formats; the other drafts' classes load only when a contract names them. */
async function ajvFor(draft: Draft): Promise<Ajv> {
  const options = { allErrors: true, strict: false };
  let ajv: Ajv;
  if (draft === '2020-12') ajv = new (ajvClass(await import('ajv/dist/2020.js')))(options);
  else if (draft === '2019-09') ajv = new (ajvClass(await import('ajv/dist/2019.js')))(options);
  else ajv = new Ajv(options);
  if (draft === 'draft-06') ajv.addMetaSchema((await import('ajv/dist/refs/json-schema-draft-06.json')).default);
  addFormats(ajv);
  return ajv;
}

/** Validators compiled per schema text: a schema edited on disk is picked up on the next call. */
export class ContractValidator {
  private readonly ajvs = new Map<Draft, Promise<Ajv>>();
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly noticed = new Set<string>();

  /** `dirs`: contract folders in increasing precedence (bundled first, the workspace's `.baton/contracts` last). */
  constructor(private readonly fs: FileSystem, private readonly dirs: () => readonly string[], private readonly log: Log) {}

  /** Ajv for a draft, made at its first schema: making one (meta-schemas, formats) costs a start-up's worth. */
  private ajv(draft: Draft): Promise<Ajv> {
    let ajv = this.ajvs.get(draft);
    if (!ajv) this.ajvs.set(draft, (ajv = ajvFor(draft)));
    return ajv;
  }

  /** The schema file for `name` that wins (the last folder holding `<name>.schema.json`) and its folder's index. */
  private async find(name: string): Promise<{ path: string; index: number } | undefined> {
    const dirs = this.dirs();
    for (let i = dirs.length - 1; i >= 0; i--) {
      const path = `${dirs[i]}/${name}.schema.json`;
      if (await this.fs.exists(path)) return { path, index: i };
    }
    return undefined;
  }

  /**
   * A contract folder as an answer to an agent names it: the first (Baton's own, where it is installed: an internal
   * path, with the user's home in it) by what it is, the others (the workspace's) by their path.
   */
  private shownDir(index: number): string {
    return index === 0 ? "Baton's bundled contracts" : (this.dirs()[index] ?? '');
  }

  /**
   * Validates `value` against the `name` contract. Throws an `invalid_input` BatonError listing each failing field
   * (JSON pointer + message); returns `validated: false` with a notice when no schema file exists.
   */
  async check(name: string, value: unknown, what: string): Promise<ContractCheck> {
    const found = await this.find(name);
    if (!found) {
      const unchecked = `${what} was stored without contract validation.`;
      const notice = `No ${name}.schema.json in ${this.dirs().map((_, i) => this.shownDir(i)).join(' or ')}; ${unchecked}`;
      // One notice per schema name is enough for the log (which names every folder by its path); every result still
      // carries it.
      if (!this.noticed.has(name)) {
        this.noticed.add(name);
        this.log.info(`contracts: No ${name}.schema.json in ${this.dirs().join(' or ')}; ${unchecked}`);
      }
      return { schema: name, validated: false, notice };
    }
    const validate = await this.compile(found.path);
    if (validate(value)) return { schema: name, validated: true };
    const problems = (validate.errors ?? []).map(describeError);
    const shown = found.index === 0 ? `${name}.schema.json, ${this.shownDir(0)}` : found.path;
    throw new BatonError(
      'invalid_input',
      `${what} does not match the ${name} contract (${shown}): ${[...new Set(problems)].join('; ')}. Fix these fields and call again.`,
      { schema: name, path: shown, errors: validate.errors ?? [] },
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
    const isObject = typeof schema === 'object' && schema !== null && !Array.isArray(schema);
    if (!isObject && typeof schema !== 'boolean') {
      throw new BatonError('content_invalid', `${path} is not a JSON Schema (it holds ${Array.isArray(schema) ? 'a list' : JSON.stringify(schema)}, not an object); fix the schema file.`);
    }
    const named = isObject ? draftOf(schema as Record<string, unknown>) : { draft: 'draft-07' as const };
    if ('problem' in named) throw new BatonError('content_invalid', `${path} cannot be checked: ${named.problem}.`);
    const ajv = await this.ajv(named.draft);
    try {
      // $id must not clash between an old and a new text of the same file.
      const s = isObject ? { ...(schema as Record<string, unknown>) } : (schema as boolean);
      if (typeof s === 'object') delete s.$id;
      validate = ajv.compile(s);
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
