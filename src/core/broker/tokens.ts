// Step tokens: HMAC-SHA256 signed, expiring, so the server (not the prompt) decides who may act on a step.
import { BatonError } from '../errors.js';
import { BASE64URL, decodeBase64Url, decodeBase64UrlBytes, encodeBase64Url, encodeBase64UrlBytes, strictUtf8 } from '../base64.js';
import { HEX_BYTES } from '../hex.js';
import type { Crypto } from '../ports.js';
import { isWellFormed } from '../utf8.js';

/** What a step token carries. Times are Unix milliseconds. */
export interface TokenPayload {
  execution_id: string;
  step_name: string;
  issued_at: number;
  expires_at: number;
  nonce: string;
  /** Set on a token handed out for waiting on a person's decision (signed, so it cannot be claimed falsely). */
  wait?: true;
}

const MALFORMED_HELP =
  "Use the exact new_step_token from the last workflow_next_step result, or read current-step://{execution} to see the current step.";

function recoveryHelp(executionId: string | undefined): string {
  return MALFORMED_HELP.replace('{execution}', executionId ?? '<execution_id>');
}

function malformed(why: string, details: Record<string, unknown> = {}): BatonError {
  return new BatonError('token_malformed', `The step_token is malformed (${why}). ${recoveryHelp(undefined)}`, details);
}

/** Only the correctly typed fields of a decoded payload object. */
function pickFields(raw: unknown): Partial<TokenPayload> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  const r = raw as Record<string, unknown>;
  const out: Partial<TokenPayload> = {};
  if (typeof r.execution_id === 'string' && r.execution_id !== '') out.execution_id = r.execution_id;
  if (typeof r.step_name === 'string' && r.step_name !== '') out.step_name = r.step_name;
  if (typeof r.issued_at === 'number' && Number.isFinite(r.issued_at)) out.issued_at = r.issued_at;
  if (typeof r.expires_at === 'number' && Number.isFinite(r.expires_at)) out.expires_at = r.expires_at;
  if (typeof r.nonce === 'string' && r.nonce !== '') out.nonce = r.nonce;
  if (r.wait === true) out.wait = true;
  return out;
}

function splitToken(token: unknown): [string, string] | null {
  if (typeof token !== 'string') return null;
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [body, sig] = parts as [string, string];
  if (!BASE64URL.test(body) || !BASE64URL.test(sig)) return null;
  return [body, sig];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Starts the body of a compact token. A JSON token's body starts with `eyJ` (the base64url of `{"`), so the two never
 * meet; the prefix also lets the call log's redaction tell a step token from other text.
 */
export const COMPACT_PREFIX = 'btk1';
/** Where each field starts in the compact payload, after its flags byte: two UUIDs (16 bytes), two times (6 bytes). */
const AT_EXECUTION = 1;
const AT_NONCE = AT_EXECUTION + 16;
const AT_ISSUED = AT_NONCE + 16;
const AT_EXPIRES = AT_ISSUED + 6;
/** The compact payload's bytes before the step's name: the flags, the two UUIDs and the two times. */
const COMPACT_FIXED = AT_EXPIRES + 6;
const FLAG_WAIT = 1;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME_LIMIT = 2 ** 48;
const UTF8 = new TextEncoder();

/**
 * Signs `payload`: body + '.' + base64url(HMAC-SHA256(secret, body)). The body is compact where the payload allows it
 * (`compactBody`: both ids UUIDs in lowercase, the times whole milliseconds; every payload Baton issues), else
 * base64url(JSON). The same payload always gives the same token, which an answer given again relies on.
 */
export function signToken(crypto: Crypto, secret: string, payload: TokenPayload): string {
  const body = compactBody(payload) ?? jsonBody(payload);
  return `${body}.${crypto.hmacSha256(secret, body)}`;
}

function jsonBody(payload: TokenPayload): string {
  return encodeBase64Url(
    JSON.stringify({
      execution_id: payload.execution_id,
      step_name: payload.step_name,
      issued_at: payload.issued_at,
      expires_at: payload.expires_at,
      nonce: payload.nonce,
      ...(payload.wait ? { wait: true } : {}),
    }),
  );
}

/**
 * `btk1` and the base64url of the payload's bytes: a flags byte (1: a wait token), the execution's and the nonce's
 * UUIDs (16 bytes each), the issue and expiry times (48-bit unsigned milliseconds, big-endian), then the step's name in
 * UTF-8. Under half the length of the JSON form (126 characters for a bug-fix step, against 268): an agent copies the
 * token into every call it makes, and reads it in every answer twice. Null when the payload has no such form.
 */
function compactBody(p: TokenPayload): string | null {
  if (!UUID.test(p.execution_id) || !UUID.test(p.nonce) || !isTime(p.issued_at) || !isTime(p.expires_at)) return null;
  // A lone surrogate has no UTF-8 form to come back from.
  if (p.step_name === '' || !isWellFormed(p.step_name)) return null;
  const name = UTF8.encode(p.step_name);
  const bytes = new Uint8Array(COMPACT_FIXED + name.length);
  bytes[0] = p.wait ? FLAG_WAIT : 0;
  putUuid(bytes, AT_EXECUTION, p.execution_id);
  putUuid(bytes, AT_NONCE, p.nonce);
  putTime(bytes, AT_ISSUED, p.issued_at);
  putTime(bytes, AT_EXPIRES, p.expires_at);
  bytes.set(name, COMPACT_FIXED);
  return COMPACT_PREFIX + encodeBase64UrlBytes(bytes);
}

/** The payload of a compact body (`compactBody`), or null when it is not one. */
function decodeCompact(body: string): TokenPayload | null {
  const bytes = decodeBase64UrlBytes(body.slice(COMPACT_PREFIX.length));
  if (bytes === null || bytes.length <= COMPACT_FIXED || bytes[0]! > FLAG_WAIT) return null;
  const step_name = strictUtf8(bytes.subarray(COMPACT_FIXED));
  if (step_name === null) return null;
  return {
    execution_id: getUuid(bytes, AT_EXECUTION),
    step_name,
    issued_at: getTime(bytes, AT_ISSUED),
    expires_at: getTime(bytes, AT_EXPIRES),
    nonce: getUuid(bytes, AT_NONCE),
    ...(bytes[0] === FLAG_WAIT ? { wait: true as const } : {}),
  };
}

function isTime(ms: number): boolean {
  return Number.isInteger(ms) && ms >= 0 && ms < TIME_LIMIT;
}

/** Writes a UUID that `UUID` accepted (lowercase hex) as its 16 bytes. */
function putUuid(bytes: Uint8Array, at: number, uuid: string): void {
  for (let i = 0; i < uuid.length; i += 2) {
    if (uuid.charCodeAt(i) === 0x2d) i++; // '-'
    bytes[at++] = (nibble(uuid.charCodeAt(i)) << 4) | nibble(uuid.charCodeAt(i + 1));
  }
}

/** The value of a lowercase hex digit's character code. */
function nibble(code: number): number {
  return code <= 0x39 ? code - 0x30 : code - 0x57;
}

function getUuid(bytes: Uint8Array, at: number): string {
  let out = '';
  for (let i = 0; i < 16; i++) out += (i === 4 || i === 6 || i === 8 || i === 10 ? '-' : '') + HEX_BYTES[bytes[at + i]!];
  return out;
}

function putTime(bytes: Uint8Array, at: number, ms: number): void {
  const hi = Math.floor(ms / 2 ** 32);
  const lo = ms >>> 0;
  bytes[at] = hi >>> 8;
  bytes[at + 1] = hi & 0xff;
  bytes[at + 2] = lo >>> 24;
  bytes[at + 3] = (lo >>> 16) & 0xff;
  bytes[at + 4] = (lo >>> 8) & 0xff;
  bytes[at + 5] = lo & 0xff;
}

function getTime(bytes: Uint8Array, at: number): number {
  const hi = (bytes[at]! << 8) | bytes[at + 1]!;
  const lo = ((bytes[at + 2]! << 24) | (bytes[at + 3]! << 16) | (bytes[at + 4]! << 8) | bytes[at + 5]!) >>> 0;
  return hi * 2 ** 32 + lo;
}

/** The payload object of a token's body, unchecked (undefined when the body decodes to nothing). */
function rawPayload(body: string): unknown {
  if (body.startsWith(COMPACT_PREFIX)) return decodeCompact(body) ?? undefined;
  const json = decodeBase64Url(body);
  return json === null ? undefined : parseJson(json);
}

/** Checks shape, signature and expiry of `token`; throws `token_malformed`, `token_forged` or `token_expired`. */
export function verifyToken(
  crypto: Crypto,
  secret: string,
  token: string,
  now: number,
  options: { allowExpired?: boolean } = {},
): TokenPayload {
  const parts = splitToken(token);
  if (!parts) throw malformed('expected two base64url parts joined by a dot');
  const [body, sig] = parts;
  const raw = rawPayload(body);
  if (raw === undefined) throw malformed('the payload is neither a compact one nor base64url-encoded JSON');
  const fields = pickFields(raw);
  const { execution_id, step_name, issued_at, expires_at, nonce } = fields;
  const known = { ...(execution_id ? { execution_id } : {}), ...(step_name ? { step_name } : {}) };
  if (execution_id === undefined || step_name === undefined || issued_at === undefined
    || expires_at === undefined || nonce === undefined) {
    throw malformed('the payload is missing fields or has fields of the wrong type', known);
  }
  if (!crypto.timingSafeEqual(sig, crypto.hmacSha256(secret, body))) {
    throw new BatonError(
      'token_forged',
      `The step_token's signature does not match: it was altered or was not issued by this server. ${recoveryHelp(execution_id)}`,
      known,
    );
  }
  const payload: TokenPayload = { execution_id, step_name, issued_at, expires_at, nonce, ...(fields.wait ? { wait: true as const } : {}) };
  checkExpiry(payload, now, options);
  return payload;
}

/** Throws `token_expired` for a payload past its expiry (unless expired tokens are allowed, as for a refresh). */
export function checkExpiry(payload: TokenPayload, now: number, options: { allowExpired?: boolean } = {}): void {
  const { execution_id, step_name, expires_at } = payload;
  if (now >= expires_at && !options.allowExpired) {
    throw new BatonError(
      'token_expired',
      `The step_token for step '${step_name}' expired at ${new Date(expires_at).toISOString()}. `
        + 'Call workflow_next_step with {"request": "refresh_token", "step_token": <this token>} to get a fresh token for the same step '
        + "(for a token that was already used, whose answer was lost: that call's answer again, with a fresh token).",
      { execution_id, step_name, expires_at },
    );
  }
}

/** The typed fields of a token's payload without checking its signature; for rate-limit keys and messages only. */
export function decodeTokenUnverified(token: string): Partial<TokenPayload> | null {
  const parts = splitToken(token);
  if (!parts) return null;
  const raw = rawPayload(parts[0]);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  return pickFields(raw);
}
