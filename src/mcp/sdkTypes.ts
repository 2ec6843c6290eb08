// The SDK's message schemas and constants (its types module), loaded on first use. Building its zod schemas takes
// about 16 MiB and 95 ms at a process's start, and a forwarding `baton mcp` needs them only for a message outside the
// plain shapes Baton checks by hand (src/mcp/jsonRpc.ts), which may never come. The owner's server loads them anyway.
type SdkTypes = typeof import('@modelcontextprotocol/sdk/types.js');

let loaded: SdkTypes | undefined;

/** The SDK's types module, loaded by the first call (a require of its own, which the bundles keep at this call). */
export function sdkTypes(): SdkTypes {
  return (loaded ??= require('@modelcontextprotocol/sdk/types.js') as SdkTypes);
}
