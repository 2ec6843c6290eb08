// Tool schemas as strict clients take them. zod writes JSON Schema keywords that say nothing a client needs but that
// some clients refuse: Gemini's function declarations (OpenAPI's subset) stop at "$schema", "propertyNames" and
// "exclusiveMinimum" ("Unknown name … Cannot find field"), and a tool list one of them refuses is lost whole. zod's
// int() also bounds every integer by ±(2^53 - 1), which says nothing and reads oddly beside "1-based" (models see it).
// Gemini also refuses a field's `anyOf` with anything beside it ("When using any_of, it must be the only field set"),
// and converters such as the AI SDK's Google provider keep zod's `description` there (a 400 for the whole list).

type Schema = Record<string, unknown>;

/**
 * `schema` without what no client needs, in a new object: `$schema`, a `propertyNames: {type: "string"}`
 * (every JSON key is a string), an integer's `exclusiveMinimum: n` written as `minimum: n + 1`, and an integer's
 * `minimum` / `maximum` at the safe-integer limits zod writes for any integer. A `description` or `title` beside an
 * `anyOf` or `oneOf` goes into each of its schemas that has none of its own (meaning the same), so the list is alone.
 */
export function portableSchema<T extends object>(schema: T): T {
  const out: Schema = {};
  const given = schema as Schema;
  for (const [key, value] of Object.entries(given)) {
    if (key === '$schema') continue;
    if (key === 'propertyNames' && isStringType(value)) continue;
    if (given.type === 'integer' && isSafeIntegerLimit(key, value)) continue;
    if (key === 'exclusiveMinimum' && given.type === 'integer' && typeof value === 'number' && given.minimum === undefined) {
      out.minimum = Math.floor(value) + 1;
      continue;
    }
    out[key] = NAMED_SCHEMAS.has(key) && isObject(value) ? mapValues(value, portableSchema)
      : SCHEMA_LISTS.has(key) && Array.isArray(value) ? value.map((v) => (isObject(v) ? portableSchema(v) : v))
      : SCHEMAS.has(key) && isObject(value) ? portableSchema(value)
      : value; // enum, const, default, required…: data, not schemas
  }
  return annotationsIntoAlternatives(out) as T;
}

/** Keywords that say what a value is for and nothing of what it may be: the same said of each alternative. */
const ANNOTATIONS = ['title', 'description'] as const;

/** `schema` (new, portable) with the annotations beside its `anyOf` / `oneOf` moved into each alternative. */
function annotationsIntoAlternatives(schema: Schema): Schema {
  const list = Array.isArray(schema.anyOf) ? 'anyOf' : Array.isArray(schema.oneOf) ? 'oneOf' : undefined;
  if (!list || !ANNOTATIONS.some((k) => k in schema)) return schema;
  const moved = Object.fromEntries(ANNOTATIONS.filter((k) => k in schema).map((k) => [k, schema[k]]));
  const alternatives = (schema[list] as unknown[]).map((alt) => (isObject(alt) ? { ...moved, ...alt } : alt));
  const rest = Object.fromEntries(Object.entries(schema).filter(([k]) => !(k in moved)));
  return { ...rest, [list]: alternatives };
}

/** Keywords whose value is a schema, a list of schemas, or schemas by name (a name may be "$schema"). */
const SCHEMAS = new Set(['items', 'additionalProperties', 'not', 'propertyNames', 'contains', 'if', 'then', 'else', 'additionalItems']);
const SCHEMA_LISTS = new Set(['anyOf', 'allOf', 'oneOf', 'prefixItems', 'items']);
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

const isObject = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);
const mapValues = (o: Schema, f: (s: Schema) => Schema): Schema =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, isObject(v) ? f(v) : v]));

function isSafeIntegerLimit(key: string, value: unknown): boolean {
  return (key === 'minimum' && value === -Number.MAX_SAFE_INTEGER) || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER);
}

function isStringType(value: unknown): boolean {
  return isObject(value) && Object.keys(value).length === 1 && value.type === 'string';
}
