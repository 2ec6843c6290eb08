// TOML values for codex's `-c key=value` overrides: strings, numbers, booleans, arrays and inline tables.

/** `value` as a TOML value (inline tables for objects). Throws for what TOML cannot hold (null, non-finite numbers). */
export function tomlValue(value: unknown): string {
  if (typeof value === 'string') return tomlString(value);
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`TOML cannot hold the number ${value}`);
    return String(value);
  }
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${tomlKey(k)} = ${tomlValue(v)}`).join(', ')}}`;
  }
  throw new Error(`TOML cannot hold ${value === null ? 'null' : typeof value}`);
}

/** A bare key when it can be one, else a quoted key. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/** A TOML basic string: JSON's escapes, plus DEL, which TOML requires escaped. */
function tomlString(s: string): string {
  return JSON.stringify(s).replace(/\u007f/g, '\\u007F');
}
