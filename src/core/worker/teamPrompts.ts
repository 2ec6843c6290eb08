// What a team agent is told on each invocation: the spec's system-prompt guidance ("Agent Work Loop", guidance.ts)
// after the agent's own system prompt, and a prompt that holds its unread messages (high priority first, then in order).
import { workflowGuidance } from './guidance.js';
import type { InboxMessage } from './types.js';

/** The agent's own system prompt, then the spec's workflow guidance (guidance.ts) naming it and its teammates. */
export function teamSystemPrompt(own: string, agent: string, agents: readonly string[]): string {
  const mine = own.trim();
  const guidance = workflowGuidance(agent, agents);
  return mine ? `${mine}\n\n${guidance}` : guidance;
}

/** Unread messages: high priority first, each group in channel order. */
export function orderInbox(unread: readonly InboxMessage[]): InboxMessage[] {
  const byTime = [...unread].sort((a, b) => (a.entry.timestamp < b.entry.timestamp ? -1 : a.entry.timestamp > b.entry.timestamp ? 1 : 0));
  return [...byTime.filter((m) => m.priority === 'high'), ...byTime.filter((m) => m.priority !== 'high')];
}

/** The prompt of one invocation: who the agent is, and its unread messages. */
export function teamPrompt(agent: string, workflow: string, instance: string, unread: readonly InboxMessage[]): string {
  const messages = orderInbox(unread).map((m) => `### ${m.entry.timestamp} [${m.entry.from}]${m.priority === 'high' ? ' (high priority)' : ''}\n${m.entry.message}`);
  return [
    `You are @${agent} in the team "${workflow}" (instance ${instance}).`,
    `You have ${unread.length} unread message${unread.length === 1 ? '' : 's'} in the channel:`,
    '',
    ...messages,
    '',
    'Handle them with the context tools: read the channel and the document for context, do the work, record findings in the document, ' +
      'and report on the channel with channel_send (@mention whoever should act next; mention nobody when the work is done). ' +
      'Then call inbox_ack and end your turn.',
  ].join('\n');
}
