// Copying an object with fields added, on the hot path.
//
// `{ ...base, key }` where the copy gets a key `base` lacks takes a slow path in V8 11.3 (Node 20, which runs many
// agents' MCP servers): 2.6 µs for a small object, where Object.assign takes 0.2 µs. On Node 24 both take under
// 0.2 µs (`npm run bench -- objectSpread`).

/** `{ ...base, ...fields }`: a new object with `base`'s own enumerable fields, then `fields`'. */
export function withFields<T extends object, U extends object>(base: T, fields: U): Omit<T, keyof U> & U {
  return Object.assign({}, base, fields);
}
