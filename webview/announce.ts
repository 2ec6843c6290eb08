// What the panel's one live region says when a run changes: only what a person acts on or waits for (a step starts
// waiting for their decision, the run ends or pauses, a spec's tasks.md drifts; the editor's errors are said there
// too), and a team's channel messages addressed to people (main.ts says those at most once every few seconds, several
// as one count). Agents' progress, timeline events, output and their messages to each other say nothing: a run with
// agents at work would otherwise talk over everything else the screen reader reads.
import { plural, statusText } from '../src/shared/labels.js';
import type { PanelState, PanelTeamMessage } from '../src/shared/protocol.js';

type Announced = Pick<PanelState, 'executionId' | 'status' | 'cancelled' | 'awaiting' | 'endReason'> & {
  pipeline?: { pausedForBudget: string | null } | null;
  spec?: { source: string; drift: { state: string } } | null;
};

function ended(s: Announced): string | null {
  if (s.status === 'failed') {
    const how = statusText(s.status, s.cancelled);
    return s.endReason ? `Run ${how}: ${s.endReason}.` : `Run ${how}.`;
  }
  if (s.status === 'paused') return s.pipeline?.pausedForBudget ? 'Run paused: budget exceeded.' : 'Run paused.';
  return s.status === 'completed' ? 'Run completed.' : null;
}

/**
 * The sentence for the change from `before` to `after`, or null for none. A first render (or another execution) says
 * nothing: the page itself is read then.
 */
export function announcement(before: Announced | null, after: Announced): string | null {
  if (!before || before.executionId !== after.executionId) return null;
  const parts: string[] = [];
  const newlyWaiting = after.awaiting.filter((a) => !before.awaiting.includes(a));
  if (newlyWaiting.length === 1) parts.push(`${newlyWaiting[0]} waits for your decision.`);
  else if (newlyWaiting.length > 1) parts.push(`${plural(newlyWaiting.length, 'step')} wait for your decision: ${newlyWaiting.join(', ')}.`);
  const was = before.status === 'failed' ? statusText(before.status, before.cancelled) : before.status;
  const now = after.status === 'failed' ? statusText(after.status, after.cancelled) : after.status;
  if (now !== was) {
    const end = ended(after);
    if (end) parts.push(end);
  }
  const drift = after.spec?.drift.state;
  if (drift && drift !== 'in_sync' && drift !== before.spec?.drift.state) {
    parts.push(drift === 'missing' ? `${after.spec!.source} is gone.` : `${after.spec!.source} has changed since this workflow started.`);
  }
  return parts.length ? parts.join(' ') : null;
}

type WithChannel = Pick<PanelState, 'executionId'> & { team?: { channel: PanelTeamMessage[] } | null };

const key = (m: PanelTeamMessage): string => `${m.timestamp}\u0000${m.from}\u0000${m.message}`;

/** An @user or @all, not part of an address (user@host): it is addressed to people, whatever agents it also names. */
const TO_PEOPLE = /(^|[^\w.@-])@(user|all)\b/;

/**
 * A message a person would want read out: not their own ('user', as the panel and `baton send` post), and addressed
 * to people, that is to no agent in particular (no @mention of one) or to @user or @all. An agent @mentioning another
 * is the team at work.
 */
export function forPeople(m: PanelTeamMessage): boolean {
  return m.from !== 'user' && (m.mentions.length === 0 || TO_PEOPLE.test(m.message));
}

/**
 * The channel messages for people that `after` has and `before` had not (none on a first render, for another
 * execution or when the channel first shows: the page is read then). The channel is the newest entries, so one older
 * than `before`'s oldest is not new.
 */
export function newTeamMessages(before: WithChannel | null, after: WithChannel): PanelTeamMessage[] {
  if (!before?.team || before.executionId !== after.executionId || !after.team) return [];
  const seen = new Set(before.team.channel.map(key));
  const oldest = before.team.channel[0]?.timestamp ?? '';
  return after.team.channel.filter((m) => !seen.has(key(m)) && m.timestamp >= oldest && forPeople(m));
}

/** What is said for `messages` that came in together: one is read out (clipped), several are counted with their authors. */
export function teamAnnouncement(messages: readonly PanelTeamMessage[]): string | null {
  if (!messages.length) return null;
  if (messages.length === 1) {
    const m = messages[0]!;
    const text = m.message.replace(/\s+/g, ' ').trim();
    return `Team message from ${m.from}: ${text.length > 160 ? `${text.slice(0, 159)}...` : text}`;
  }
  const from = [...new Set(messages.map((m) => m.from))];
  return `${plural(messages.length, 'new team message')} from ${from.length > 1 ? `${from.slice(0, -1).join(', ')} and ${from.at(-1)}` : from[0]}.`;
}
