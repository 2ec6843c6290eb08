// ISO 8601 times as Date.prototype.toISOString writes them, for the hot path: a call writes three or four (its
// clock, its token's issue and expiry, its call-log row), and each toISOString took about 2 µs where it ran. Within
// a minute only the seconds and milliseconds change, so the rest is formatted once per minute.

/** The largest time a Date holds, in ms either side of 1970 (ECMAScript's TimeClip). */
const MAX_TIME = 8.64e15;

/** The minutes formatted last (a call's own, and its token's expiry some minutes on), each with its text up to the minute. */
const minutes = [Number.NaN, Number.NaN, Number.NaN, Number.NaN];
const prefixes = ['', '', '', ''];
let next = 0;

/** `new Date(ms).toISOString()`, and the same RangeError for a time a Date cannot hold. */
export function isoTime(ms: number): string {
  const t = Math.trunc(ms) + 0; // TimeClip: toward zero, and -0 is 0
  const start = Math.floor(t / 60_000) * 60_000;
  const slot = minutes.indexOf(start);
  if (slot < 0 || !(Math.abs(t) <= MAX_TIME)) {
    const iso = new Date(t).toISOString();
    minutes[next] = start;
    prefixes[next] = iso.slice(0, -7); // up to the minute: `YYYY-MM-DDTHH:MM:` (or an extended year's form)
    next = (next + 1) % minutes.length;
    return iso;
  }
  const prefix = prefixes[slot]!;
  const within = t - start;
  const seconds = Math.floor(within / 1000);
  const millis = within - seconds * 1000;
  return `${prefix}${seconds < 10 ? '0' : ''}${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}
