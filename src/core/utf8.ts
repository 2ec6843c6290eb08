// UTF-8 sizes without encoding: the step context and artifact sizes are measured on every call.

// Most text is ASCII, where bytes = UTF-16 units; one native regex scan settles that case.
const NON_ASCII = /[^\x00-\x7f]/;

/**
 * The host's own count where it has one (Node's Buffer.byteLength, which counts a lone surrogate as U+FFFD too): the
 * regex scan above takes 3 µs for a 3 KB step result, the native count 0.1 µs. The core names no Node API, so it looks
 * for it at run time; below NATIVE_FROM characters the scan is as quick.
 */
const nativeUtf8Length = (globalThis as { Buffer?: { byteLength?: (s: string, encoding: 'utf8') => number } }).Buffer?.byteLength;
const NATIVE_FROM = 40;

/** UTF-8 byte length of `s`, as TextEncoder would encode it (a lone surrogate becomes U+FFFD, 3 bytes). */
export function utf8Length(s: string): number {
  if (nativeUtf8Length && s.length >= NATIVE_FROM) return nativeUtf8Length(s, 'utf8');
  if (!NON_ASCII.test(s)) return s.length;
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: 2 UTF-16 units, 4 bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** `s` cut to at most `bytes` UTF-8 bytes, on a character boundary (never inside a surrogate pair). */
export function truncateUtf8(s: string, bytes: number): string {
  if (s.length <= bytes / 3) return s; // even at 3 bytes per unit it fits
  if (!NON_ASCII.test(s)) return s.length <= bytes ? s : s.slice(0, Math.max(0, bytes));
  let used = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let size = 1;
    let units = 1;
    if (c >= 0x80) {
      if (c < 0x800) size = 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        size = 4;
        units = 2;
      } else size = 3;
    }
    if (used + size > bytes) return s.slice(0, i);
    used += size;
    i += units - 1;
  }
  return s;
}

/** String.prototype.isWellFormed where the host has it (Node 20 does; ES2022's types do not name it). */
const nativeWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/**
 * Whether `s` is well-formed UTF-16: no lone half of a surrogate pair, so that its UTF-8 gives it back as it is
 * (TextEncoder and SQLite make a lone half U+FFFD).
 */
export function isWellFormed(s: string): boolean {
  if (nativeWellFormed) return nativeWellFormed.call(s);
  return !/\p{Cs}/u.test(s); // in `u` mode a pair is one code point: only a lone half matches
}
