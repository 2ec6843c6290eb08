// "Did you mean …?": the known name closest to a misspelt one, for the messages about unknown fields.

/** Edit distance (insert, delete, replace, or swap two neighbours), stopping early once it passes `max`. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev2: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, prev2[j - 2]! + 1);
      row.push(d);
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
    prev2 = prev;
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * The one name of `known` that `name` most likely misspells: the same but for case, `-` and `_`, or within an edit
 * distance of 1 (names of up to 4 letters) or 2. Undefined when none is that close, or two are equally close.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const plain = (s: string) => s.toLowerCase().replace(/[-_]/g, '');
  const same = known.filter((k) => plain(k) === plain(name));
  if (same.length === 1) return same[0];
  const max = name.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = max + 1;
  let tie = false;
  for (const k of known) {
    const d = distance(name.toLowerCase(), k.toLowerCase(), max);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
      tie = false;
    } else if (d === bestDistance) {
      tie = true;
    }
  }
  return best !== undefined && bestDistance <= max && !tie ? best : undefined;
}

/** " (did you mean 'x'?)" for a name that misspells one of `known`, else ""; `quote` writes the name. */
export function didYouMean(name: string, known: readonly string[], quote = (s: string) => `'${s}'`): string {
  const close = closestName(name, known);
  return close === undefined ? '' : ` (did you mean ${quote(close)}?)`;
}
