// What a team agent is told on each invocation: the spec's system-prompt guidance ("Agent Work Loop") after the
// agent's own system prompt, and a prompt that holds its unread messages (high priority first, then in order).
import type { InboxMessage } from './types.js';

/** The spec's "System Prompt Guidance" for agents of a team (tool names as the `context` tool group serves them). */
export const WORKFLOW_GUIDANCE = `## Workflow Participation

You are part of a multi-agent workflow. Use these tools to collaborate:

### Starting Work
1. \`inbox_check()\` - See what messages are waiting for you
2. \`channel_read()\` - Understand the full context
3. \`document_read()\` - Check goals and current status

### During Work
- Update \`document_write()\` with findings as you go
- Use \`channel_send()\` to coordinate with others (@mention them)

### Completing Work
1. \`channel_send()\` - Report completion, @mention next agent if needed
2. \`inbox_ack()\` - Mark handled messages as read
3. Check inbox again for new messages

### Priority
- High priority (multiple @mentions, "urgent") - handle first
- Normal priority - handle in order received`;

/** The agent's own system prompt, then the workflow guidance. */
export function teamSystemPrompt(own: string): string {
  const mine = own.trim();
  return mine ? `${mine}\n\n${WORKFLOW_GUIDANCE}` : WORKFLOW_GUIDANCE;
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
