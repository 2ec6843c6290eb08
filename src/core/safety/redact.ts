// Removes secrets (step tokens, API keys, passwords, private keys) from what the call log stores, and secrets
import type { RedactPolicy } from '../types.js';
// and/or personal data (e-mail addresses, phone numbers, IP addresses) from content by a redaction policy.

const REDACTED = '[REDACTED]';
const tag = (kind: string) => `[REDACTED:${kind}]`;

/** Splits `fooBar_baz-qux.x` into lower-case words. */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
    .map((w) => w.toLowerCase());
}

const SECRET_WORDS = new Set(['token', 'password', 'passwd', 'pwd', 'secret', 'apikey', 'authorization', 'cookie', 'credential', 'credentials']);
const KEY_QUALIFIERS = new Set(['api', 'private', 'secret', 'access', 'signing']);

// Object keys repeat from call to call (the call log redacts every request and response), so the verdicts are memoized.
const secretKeyNames = new Map<string, boolean>();

/** Object keys whose string values are secrets: the name ends in token/password/secret/…, or in api_key/private_key. */
export function isSecretKeyName(name: string): boolean {
  let verdict = secretKeyNames.get(name);
  if (verdict === undefined) {
    verdict = secretKeyNameVerdict(name);
    if (secretKeyNames.size >= 4096) secretKeyNames.clear();
    secretKeyNames.set(name, verdict);
  }
  return verdict;
}

function secretKeyNameVerdict(name: string): boolean {
  const words = nameWords(name);
  const last = words.at(-1);
  if (last === undefined) return false;
  if (SECRET_WORDS.has(last)) return true;
  return last === 'key' && KEY_QUALIFIERS.has(words.at(-2) ?? '');
}

/** `.env`-style names: containing the word SECRET/TOKEN/PASSWORD or API_KEY/PRIVATE_KEY (not `MAX_TOKENS`). */
function isSecretEnvName(name: string): boolean {
  const words = nameWords(name);
  return words.some((w, i) => ['secret', 'token', 'password', 'passwd', 'apikey'].includes(w)
    || (w === 'key' && (words[i - 1] === 'api' || words[i - 1] === 'private')));
}

/**
 * Sets `key` on `out` as its own property, `__proto__` included: a client's JSON can carry an own "__proto__" key, and
 * plain assignment would set the copy's prototype instead, so the key vanished from what was logged or kept.
 */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/** Pattern replacements applied to every string, in order (multi-line and structured forms first). */
const TEXT_RULES: Array<[RegExp, string | ((match: string, ...groups: string[]) => string)]> = [
  // PEM private keys, also when truncated before the END line.
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, tag('private_key')],
  // scheme://user:password@host → keep the user.
  [/\b([a-z][a-z0-9+.-]*:\/\/)([^\s:/?#@]+):([^\s/?#@]+)@/gi, (_m, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`],
  [/\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, tag('jwt')],
  // Baton step tokens: base64url JSON object, or `btk1` and the compact payload, + '.' + 43-char HMAC-SHA256.
  [/\beyJ[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, tag('step_token')],
  [/\bbtk1[A-Za-z0-9_-]{62,}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, tag('step_token')],
  [/\bsk-ant-[A-Za-z0-9_-]{20,}/g, tag('anthropic_key')],
  [/\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g, tag('openai_key')],
  [/\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/g, tag('github_token')],
  [/\bgithub_pat_[A-Za-z0-9_]{22,}/g, tag('github_token')],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, tag('slack_token')],
  [/\bAIza[0-9A-Za-z_-]{35}/g, tag('google_api_key')],
  [/\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}/g, tag('stripe_key')],
  [/\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, tag('aws_access_key_id')],
  [/\b(aws_secret_access_key["']?\s*[=:]\s*["']?)[A-Za-z0-9/+=]{16,}/gi, (_m, prefix: string) => `${prefix}${tag('aws_secret')}`],
  [/\b(Bearer\s+)[A-Za-z0-9\-._~+/]{16,}=*/gi, (_m, prefix: string) => `${prefix}${tag('bearer')}`],
  // HTTP header lines.
  [/^(\s*(?:proxy-)?(?:authorization|cookie|set-cookie|x-api-key)\s*:\s*)(?!\[REDACTED)\S[^\r\n]*/gim, (_m, prefix: string) => `${prefix}${REDACTED}`],
  // "name": "value" inside JSON text.
  [/("([A-Za-z_][A-Za-z0-9_.-]*)"\s*:\s*)"((?:[^"\\\r\n]|\\.)*)"/g,
    (m, prefix: string, name: string, value: string) => (isSecretKeyName(name) && value !== '' && !value.startsWith('[REDACTED') ? `${prefix}"${REDACTED}"` : m)],
  // NAME=value (.env files, shell, query strings).
  [/(^|[^A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)(\s*=\s*)("[^"\r\n]*"|'[^'\r\n]*'|[^\s&"'`,;=][^\s&"'`,;]*)/gm,
    (m, lead: string, name: string, eq: string, value: string) => {
      const bare = value.replace(/^["']|["']$/g, '');
      return isSecretEnvName(name) && bare !== '' && !bare.startsWith('[REDACTED') ? `${lead}${name}${eq}${REDACTED}` : m;
    }],
];

/**
 * Text in which no rule of TEXT_RULES can match, because it has none of the substrings every rule needs
 * ("-----BEGIN", "://user:", "eyJ", "btk1", a key prefix, "bearer", a header name, a JSON `"name":` or an `=`), is
 * returned after this one scan instead of every rule's. It must stay a superset of the rules: a rule added
 * above needs its required substring here (redact.test.ts checks every rule's samples against it).
 */
export const SECRET_HINT = /-----BEGIN|:\/\/[^\s:/?#@]+:|eyJ|btk1|sk-|[sr]k_(?:live|test)_|gh[pousr]_|github_pat_|xox[abposr]-|AIza|AKIA|ASIA|aws_secret|bearer|authorization|cookie|x-api-key|"\s*:|=/i;

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';

/** Personal data: e-mail addresses, phone numbers, IPv4 and IPv6 addresses. */
const PII_RULES: Array<[RegExp, string]> = [
  [/(?<![\w.%+\-:/])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g, tag('email')],
  [new RegExp(`(?<![\\w.:])(?:${OCTET}\\.){3}${OCTET}(?![\\w]|\\.\\d)`, 'g'), tag('ip')],
  [/(?<![\w:])(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}(?![\w:])/g, tag('ip')],
  [/(?<![\w:])(?=[0-9A-Fa-f:]*\d)(?:[0-9A-Fa-f]{1,4}:){1,6}:(?:[0-9A-Fa-f]{1,4}(?::[0-9A-Fa-f]{1,4}){0,5})?(?![\w:])/g, tag('ip')],
  // +1 (555) 123-4567, 555-123-4567, +44 20 7946 0958, 555.123.4567: at least three groups with separators.
  [/(?<![\w.+\-/])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)[\s.-]?|\d{2,4}[\s.-])\d{3,4}[\s.-]\d{3,4}(?![\w\-/]|\.\d)/g, tag('phone')],
];

/** Redaction policies of the content tools. */
export const REDACT_POLICIES = ['none', 'pii', 'secrets', 'pii+secrets'] as const satisfies readonly RedactPolicy[];
/** What to redact: nothing, personal data, secrets, or both. */
export type { RedactPolicy };

function applyRules(text: string, rules: ReadonlyArray<[RegExp, string | ((match: string, ...groups: string[]) => string)]>): string {
  let out = text;
  for (const [pattern, replacement] of rules) {
    out = typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement as (m: string, ...g: string[]) => string);
  }
  return out;
}

/** Whether a UTF-16 code unit is one of [A-Za-z0-9_\-+/=.]: what tokens, keys and base64 are made of. */
function isWordUnit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 43 || c === 47 || c === 61 || c === 46;
}

/**
 * `text` without the word it ends in (up to 256 characters of [A-Za-z0-9_\-+/=.]): a text cut to a length may end in
 * half a secret, which redaction no longer recognises. A backward scan; the regex /[...]{1,256}$/ did the same work
 * from every position of the text.
 */
export function dropCutWord(text: string): string {
  let end = text.length;
  const stop = Math.max(0, end - 256);
  while (end > stop && isWordUnit(text.charCodeAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

/** `text` with what `policy` covers (default: secrets) replaced by `[REDACTED]` or `[REDACTED:kind]`. */
export function redactText(text: string, policy: RedactPolicy = 'secrets'): string {
  if (policy === 'none') return text;
  const secrets = policy === 'pii' || !SECRET_HINT.test(text) ? text : applyRules(text, TEXT_RULES);
  return policy === 'secrets' ? secrets : applyRules(secrets, PII_RULES);
}

/** A deep copy of `value` redacted by `policy` (with secrets, secret-named keys are redacted wholesale). */
export function redactWithPolicy(value: unknown, policy: RedactPolicy): unknown {
  return policy === 'none' ? value : redactValue(value, new Set(), policy);
}

function redactValue(value: unknown, ancestors: Set<object>, policy: RedactPolicy = 'secrets'): unknown {
  if (typeof value === 'string') return redactText(value, policy);
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.has(value)) return '[Circular]';
  if (value instanceof Date) return new Date(value.getTime());
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value;
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => redactValue(item, ancestors, policy));
    if (value instanceof Error) return { name: value.name, message: redactText(value.message, policy) };
    if (value instanceof Map) return redactValue(Object.fromEntries(value), ancestors, policy);
    if (value instanceof Set) return redactValue([...value], ancestors, policy);
    const out: Record<string, unknown> = {};
    const byName = policy !== 'pii';
    for (const [key, item] of Object.entries(value)) {
      setOwn(out, key, byName && typeof item === 'string' && isSecretKeyName(key) ? REDACTED : redactValue(item, ancestors, policy));
    }
    return out;
  } finally {
    ancestors.delete(value);
  }
}

/** A deep copy of `value` with secrets redacted (secret-named keys wholesale, patterns in every string); cycles become '[Circular]'. */
export function redactSecrets(value: unknown): unknown {
  return redactValue(value, new Set());
}
