// Base64 and base64url without platform globals (the core bundles for a neutral platform).

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP = new Map<string, number>([...ALPHABET].map((c, i) => [c, i]));
const VALID = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `text` without whitespace if it is standard, padded base64; undefined otherwise. */
export function normalizeBase64(text: string): string | undefined {
  const s = text.replace(/\s+/g, '');
  return VALID.test(s) ? s : undefined;
}

/** Bytes a (normalized) base64 string decodes to. */
export function base64Size(b64: string): number {
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return (b64.length / 4) * 3 - pad;
}

/** Decodes a (normalized) base64 string. */
export function decodeBase64(b64: string): Uint8Array {
  const out = new Uint8Array(base64Size(b64));
  let o = 0;
  for (let i = 0; i < b64.length; i += 4) {
    const a = LOOKUP.get(b64[i]!)!;
    const b = LOOKUP.get(b64[i + 1]!)!;
    const c = LOOKUP.get(b64[i + 2]!) ?? 0;
    const d = LOOKUP.get(b64[i + 3]!) ?? 0;
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    if (o < out.length) out[o++] = (n >> 16) & 255;
    if (o < out.length) out[o++] = (n >> 8) & 255;
    if (o < out.length) out[o++] = n & 255;
  }
  return out;
}

/** Encodes bytes as standard, padded base64. */
export function encodeBase64(bytes: Uint8Array): string {
  return encodeWith(bytes, STANDARD, true);
}

const STANDARD = new TextEncoder().encode(ALPHABET);
const URL_SAFE = new TextEncoder().encode(ALPHABET.replace('+', '-').replace('/', '_'));
const ASCII = new TextDecoder();
const UTF8 = new TextEncoder();

/**
 * `bytes` in the 64 characters of `alphabet` (its ASCII codes), with `=` padding or none. The characters go into one
 * array decoded at once: a step token is encoded on every call, and a string built a character at a time is a chain of
 * small strings to allocate and then flatten.
 */
function encodeWith(bytes: Uint8Array, alphabet: Uint8Array, pad: boolean): string {
  const whole = Math.floor(bytes.length / 3) * 3;
  const rest = bytes.length - whole;
  const out = new Uint8Array((whole / 3) * 4 + (rest === 0 ? 0 : pad ? 4 : rest + 1));
  let o = 0;
  for (let i = 0; i < whole; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out[o++] = alphabet[n >> 18]!;
    out[o++] = alphabet[(n >> 12) & 63]!;
    out[o++] = alphabet[(n >> 6) & 63]!;
    out[o++] = alphabet[n & 63]!;
  }
  if (rest > 0) {
    const n = (bytes[whole]! << 16) | (rest === 2 ? bytes[whole + 1]! << 8 : 0);
    out[o++] = alphabet[n >> 18]!;
    out[o++] = alphabet[(n >> 12) & 63]!;
    if (rest === 2) out[o++] = alphabet[(n >> 6) & 63]!;
    if (pad) while (o < out.length) out[o++] = 0x3d; // '='
  }
  return ASCII.decode(out);
}

/** Unpadded base64url text. */
export const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** Base64url without padding (RFC 4648 §5) of the UTF-8 bytes of `text`. */
export function encodeBase64Url(text: string): string {
  return encodeWith(UTF8.encode(text), URL_SAFE, false);
}

/** The UTF-8 text of unpadded base64url `part`, or null when it is not valid base64url or valid UTF-8. */
export function decodeBase64Url(part: string): string | null {
  if (!BASE64URL.test(part) || part.length % 4 === 1) return null;
  const b64 = part.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (part.length % 4)) % 4);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(decodeBase64(b64));
  } catch {
    return null;
  }
}
