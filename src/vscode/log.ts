// The "Baton" LogOutputChannel, and the core's Log port written to it.
import * as vscode from 'vscode';
import type { Log } from '../core/ports.js';

/** The channel and the Log port over it. */
export interface BatonLog extends Log {
  readonly channel: vscode.LogOutputChannel;
}

/** Formats extra log arguments (errors with their stack) as text. */
function detail(args: unknown[]): string {
  return args
    .map((a) => (a instanceof Error ? a.stack ?? a.message : typeof a === 'string' ? a : JSON.stringify(a)))
    .map((s) => ` ${s}`)
    .join('');
}

/** Creates the "Baton" log channel (disposed with the extension). */
export function createBatonLog(context: vscode.ExtensionContext): BatonLog {
  const channel = vscode.window.createOutputChannel('Baton', { log: true });
  context.subscriptions.push(channel);
  return {
    channel,
    debug: (m, ...a) => channel.debug(m + detail(a)),
    info: (m, ...a) => channel.info(m + detail(a)),
    warn: (m, ...a) => channel.warn(m + detail(a)),
    error: (m, ...a) => channel.error(m + detail(a)),
  };
}
