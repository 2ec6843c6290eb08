// What createMcpServer needs to know about a registered tool to pre-validate calls and accept aliases.
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';

/** What the SDK hands a tool with each call: the client's cancel signal, its progressToken, a way to notify it. */
export type ToolCallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A registered tool's validation data. */
export interface ToolSpec {
  /** The listed name. */
  name: string;
  /** Other names `tools/call` accepts (e.g. the spec's dotted spelling). */
  aliases: string[];
  inputSchema: z.ZodObject;
  /** Path → what the field must be, for error messages. */
  hints: Record<string, string>;
  /**
   * Fields of the raw arguments that the schema drops as unknown but that misspell a known one (a nested object's
   * keys, which a strict schema would refuse in full), each as "model_output_so_far.findigs (did you mean …?)".
   */
  misspelt?: (args: Record<string, unknown>) => string[];
  /**
   * A quicker check of the inputs agents usually send: what `inputSchema.safeParse` would give, or undefined where it
   * does not vouch for the input (the schema then checks it and words any error).
   */
  fastParse?: (args: unknown) => Record<string, unknown> | undefined;
  /** The structured form of a refusal of the call's arguments (`message`), for a tool whose results carry errors so. */
  structuredError?: (message: string) => Record<string, unknown>;
  /** The tool's implementation, called with input already validated against `inputSchema`. */
  call: (args: Record<string, unknown>, extra: ToolCallExtra) => Promise<CallToolResult>;
}
