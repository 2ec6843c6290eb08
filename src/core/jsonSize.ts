// JSON sizes known where a value was built: the call log measures every answer it records, and a step result's size
// falls out of fitting it to its budget, so measuring it again would serialize 3-4 KB more on every call.

const known = new WeakMap<object, number>();

/** Records that `JSON.stringify(value)` takes `bytes` bytes of UTF-8 (valid while `value` is not changed). */
export function rememberJsonSize(value: object, bytes: number): void {
  known.set(value, bytes);
}

/** The UTF-8 size of `JSON.stringify(value)` if it was recorded, else undefined. */
export function knownJsonSize(value: unknown): number | undefined {
  return value !== null && typeof value === 'object' ? known.get(value) : undefined;
}
