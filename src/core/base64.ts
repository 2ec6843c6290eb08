// Base64 and base64url without platform globals (the core bundles for a neutral platform).

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_ALPHABET = ALPHABET.replace('+', '-').replace('/', '_');
/** Each base64 and base64url character's value by its code (both alphabets: they differ in two characters); else 0. */
const LOOKUP = new Uint8Array(128);
for (let i = 0; i < 64; i++) {
  LOOKUP[ALPHABET.charCodeAt(i)] = i;
  LOOKUP[URL_ALPHABET.charCodeAt(i)] = i;
}
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
  return decodeChars(b64, base64Size(b64));
}

/**
 * The `size` bytes that base64 or base64url `text` (already checked) encodes, padding or none. Characters are looked up
 * by code: a string of one character and a Map lookup per character had made a step token's check 5.5 µs.
 */
function decodeChars(text: string, size: number): Uint8Array {
  const out = new Uint8Array(size);
  // Whole groups of four characters while three bytes fit, then what is left (never a look-up past the text's end).
  const whole = Math.floor(size / 3);
  let o = 0;
  for (let g = 0, i = 0; g < whole; g++, i += 4) {
    const n = (LOOKUP[text.charCodeAt(i)]! << 18) | (LOOKUP[text.charCodeAt(i + 1)]! << 12)
      | (LOOKUP[text.charCodeAt(i + 2)]! << 6) | LOOKUP[text.charCodeAt(i + 3)]!;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 255;
    out[o++] = n & 255;
  }
  const rest = size - o;
  if (rest > 0) {
    const i = whole * 4;
    const n = (LOOKUP[text.charCodeAt(i)]! << 18) | (LOOKUP[text.charCodeAt(i + 1)]! << 12) | (rest === 2 ? LOOKUP[text.charCodeAt(i + 2)]! << 6 : 0);
    out[o++] = n >> 16;
    if (rest === 2) out[o++] = (n >> 8) & 255;
  }
  return out;
}

/** Encodes bytes as standard, padded base64. */
export function encodeBase64(bytes: Uint8Array): string {
  return encodeWith(bytes, STANDARD, true);
}

const STANDARD = new TextEncoder().encode(ALPHABET);
const URL_SAFE = new TextEncoder().encode(URL_ALPHABET);
const ASCII = new TextDecoder();
const UTF8 = new TextEncoder();
/** Refuses bytes that are not UTF-8; made once (a decoder per token check took microseconds to make). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });
/** Where encodeBase64Url puts a text's UTF-8 (TextEncoder.encode allocated a buffer per token: 0.7 µs on Node 20). */
let scratch = new Uint8Array(1024);
const SCRATCH_MAX = 64 * 1024;

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
  // A token's payload fits the buffer; a text too long for it is encoded on its own rather than kept in memory.
  if (text.length * 3 > SCRATCH_MAX) return encodeWith(UTF8.encode(text), URL_SAFE, false);
  if (scratch.length < text.length * 3) scratch = new Uint8Array(text.length * 3);
  const { written } = UTF8.encodeInto(text, scratch);
  return encodeWith(scratch.subarray(0, written), URL_SAFE, false);
}

/** Base64url without padding (RFC 4648 §5) of `bytes`. */
export function encodeBase64UrlBytes(bytes: Uint8Array): string {
  return encodeWith(bytes, URL_SAFE, false);
}

/** The bytes of unpadded base64url `part`, or null when it is not valid base64url. */
export function decodeBase64UrlBytes(part: string): Uint8Array | null {
  if (!BASE64URL.test(part) || part.length % 4 === 1) return null;
  return decodeChars(part, Math.floor((part.length * 3) / 4));
}

/** The UTF-8 text of unpadded base64url `part`, or null when it is not valid base64url or valid UTF-8. */
export function decodeBase64Url(part: string): string | null {
  const bytes = decodeBase64UrlBytes(part);
  return bytes === null ? null : strictUtf8(bytes);
}

/** The text of UTF-8 `bytes`, or null when they are not valid UTF-8. */
export function strictUtf8(bytes: Uint8Array): string | null {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}
