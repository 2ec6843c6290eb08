// `{{variable}}` interpolation: names are dotted paths into the run's variables (`{{system.input}}`,
// `{{review.score}}`, `{{items.0}}`); a name that resolves to nothing is left as written, so a typo shows.

/** The variables of a run: `system.input`, `--var` values and every step's outputVariable. */
export type Variables = Record<string, unknown>;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*\}\}/g;

/** The value at a dotted path, or undefined; a string holding JSON is looked into when the path goes deeper. */
export function lookup(vars: Variables, path: string): unknown {
  let value: unknown = vars;
  for (const part of path.split('.')) {
    if (typeof value === 'string') value = parseJsonObject(value);
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A value as text in a prompt: strings as they are, nothing (null) as empty, everything else as JSON. */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  return JSON.stringify(value, null, 2);
}

/**
 * `template` with each `{{path}}` replaced by its value; unknown paths stay as written, or become what `missing` says
 * (a preview of a prompt before the run has the values).
 */
export function interpolate(template: string, vars: Variables, missing?: (path: string) => string): string {
  return template.replace(PLACEHOLDER, (whole, path: string) => {
    const value = lookup(vars, path);
    return value !== undefined ? asText(value) : missing ? missing(path) : whole;
  });
}

/** The paths a template refers to (for validation). */
export function placeholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

function parseJsonObject(text: string): unknown {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('[')) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}
