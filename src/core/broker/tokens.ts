// Step tokens: HMAC-SHA256 signed, expiring, so the server (not the prompt) decides who may act on a step.
import { BatonError } from '../errors.js';
import { BASE64URL, decodeBase64Url, encodeBase64Url } from '../base64.js';
import type { Crypto } from '../ports.js';

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

/** Signs `payload`: base64url(JSON) + '.' + base64url(HMAC-SHA256(secret, first part)). */
export function signToken(crypto: Crypto, secret: string, payload: TokenPayload): string {
  const body = encodeBase64Url(
    JSON.stringify({
      execution_id: payload.execution_id,
      step_name: payload.step_name,
      issued_at: payload.issued_at,
      expires_at: payload.expires_at,
      nonce: payload.nonce,
      ...(payload.wait ? { wait: true } : {}),
    }),
  );
  return `${body}.${crypto.hmacSha256(secret, body)}`;
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
  const json = decodeBase64Url(body);
  const raw = json === null ? undefined : parseJson(json);
  if (raw === undefined) throw malformed('the payload is not base64url-encoded JSON');
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
  const json = decodeBase64Url(parts[0]);
  const raw = json === null ? undefined : parseJson(json);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  return pickFields(raw);
}
