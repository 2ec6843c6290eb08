// Types for scripts/failedTests.mjs, so the TypeScript tests can import it.
export function reason(error: unknown): string;
export default function failedTests(source: AsyncIterable<{ type: string; data: Record<string, unknown> }>): AsyncGenerator<string>;
