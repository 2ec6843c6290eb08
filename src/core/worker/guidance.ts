// The spec's "System Prompt Guidance": what every team agent is told about the context tools (the team runner
// appends it to each agent's system prompt).

/** The guidance for agent `agent` of a team whose agents are `agents`. */
export function workflowGuidance(agent: string, agents: readonly string[]): string {
  const others = agents.filter((a) => a !== agent);
  return [
    '## Workflow Participation',
    '',
    `You are @${agent}, part of a multi-agent workflow${others.length ? ` with ${others.map((a) => `@${a}`).join(', ')}` : ''}. Use these tools to collaborate:`,
    '',
    '### Starting Work',
    '1. `inbox_check()` - See what messages are waiting for you',
    '2. `channel_read()` - Understand the full context',
    '3. `document_read()` - Check goals and current status',
    '',
    '### During Work',
    '- Update `document_write()` with findings as you go',
    '- Use `channel_send()` to coordinate with others (@mention them)',
    '',
    '### Completing Work',
    '1. `channel_send()` - Report completion, @mention next agent if needed',
    '2. `inbox_ack()` - Mark handled messages as read',
    '3. Check inbox again for new messages',
    '',
    '### Priority',
    '- High priority (multiple @mentions, "urgent") - handle first',
    '- Normal priority - handle in order received',
  ].join('\n');
}
