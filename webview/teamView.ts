// An agent team run in the panel: the channel as a timeline (who, when, what, @mentions highlighted) with a box where
// a person posts to it (as 'user', like `baton send`); the agents with their state (who is working now) and unread
// @mentions; the shared documents, each opened in an editor tab on click. While the team runs, Stop stops the whole
// instance and a working agent has its own stop (the editor asks for confirmation first, as for `baton stop`).
import { plural } from '../src/shared/labels.js';
import { mentionSegments } from '../src/shared/mentionText.js';
import { MAX_TEAM_MESSAGE_CHARS, type PanelTeam, type PanelTeamMessage } from '../src/shared/protocol.js';
import { teamStopTargets } from '../src/shared/teamStop.js';
import { h, onActivate } from './dom.js';

/** What the team section needs from the page. */
export interface TeamHandlers {
  /** The message being written survives re-renders. */
  draft: string;
  /** A message was sent and no update has arrived since. */
  pending: boolean;
  send(message: string): void;
  openDocument(name: string): void;
  /** Asks the editor to stop the team (agent null) or one agent; the editor confirms first. */
  stop(agent: string | null): void;
}

function time(ts: string): string {
  return ts.length >= 19 ? ts.slice(11, 19) : ts;
}

function renderMessage(m: PanelTeamMessage): HTMLElement {
  const body = h('div', { class: 'tmsg-body', 'data-testid': 'tmsg-body' },
    ...mentionSegments(m.message, m.mentions).map((seg) => (seg.mention ? h('mark', { class: 'mention', 'data-testid': 'mention' }, seg.text) : seg.text)));
  return h('li', { class: `tmsg tmsg-from-${m.from === 'user' ? 'user' : m.from === 'system' ? 'system' : 'agent'}`, 'data-testid': 'tmsg', 'data-from': m.from },
    h('div', { class: 'tmsg-head' }, h('strong', { 'data-testid': 'tmsg-from' }, m.from), h('time', { class: 'dim', datetime: m.timestamp, title: m.timestamp }, ` ${time(m.timestamp)}`)),
    body);
}

function renderComposer(team: PanelTeam, handlers: TeamHandlers): HTMLElement {
  const box = h('textarea', {
    'data-testid': 'team-message', id: 'team-message', rows: 3, maxlength: MAX_TEAM_MESSAGE_CHARS,
    placeholder: `Post to @${team.instance}'s channel; @mention an agent to wake it (${team.agents.map((a) => `@${a.name}`).join(', ')})`,
  });
  box.value = handlers.draft;
  const send = h('vscode-button', { 'data-testid': 'team-send', icon: 'send' }, 'Post');
  const sync = (): void => {
    const off = handlers.pending || box.value.trim() === '';
    if (off) send.setAttribute('disabled', '');
    else send.removeAttribute('disabled');
  };
  const submit = (): void => {
    const text = box.value.trim();
    if (handlers.pending || !text) return;
    handlers.send(text);
  };
  box.addEventListener('input', () => {
    handlers.draft = box.value;
    sync();
  });
  box.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      submit();
    }
  });
  send.addEventListener('click', submit);
  sync();
  return h('div', { class: 'team-composer' },
    h('label', { for: 'team-message' }, 'Post as user'),
    box,
    h('div', { class: 'buttons' }, send, h('span', { class: 'dim' }, ' Ctrl+Enter posts')));
}

/** The channel timeline and the composer. */
export function renderTeamChannel(team: PanelTeam, handlers: TeamHandlers): HTMLElement {
  const list = team.channel.length
    ? h('ol', { class: 'tchannel', 'data-testid': 'team-channel' }, ...team.channel.map(renderMessage))
    : h('p', { class: 'dim', 'data-testid': 'team-channel' }, 'Nothing said yet.');
  let stop: HTMLElement | null = null;
  if (teamStopTargets(team).team) {
    stop = h('vscode-button', { 'data-testid': 'team-stop', secondary: true, icon: 'debug-stop', title: `Stop @${team.instance}: working agents are killed` }, 'Stop');
    stop.addEventListener('click', () => handlers.stop(null));
  }
  return h('section', { class: 'team', 'data-testid': 'team', 'aria-labelledby': 'team-heading' },
    h('h2', { id: 'team-heading' }, h('span', { class: 'codicon codicon-organization', 'aria-hidden': 'true' }), ` ${team.workflow}@${team.instance} — channel `, stop),
    list,
    team.canSend ? renderComposer(team, handlers) : h('p', { class: 'dim', 'data-testid': 'team-ended' }, `The team is ${team.status}: its channel is read-only here.`));
}

/** The agents (state, unread) and the documents. */
export function renderTeamSide(team: PanelTeam, handlers: TeamHandlers): HTMLElement {
  const working = team.working.length ? `Working now: ${team.working.join(', ')}` : 'Nobody is working now';
  const stoppable = new Set(teamStopTargets(team).agents);
  const agentStop = (name: string): HTMLElement => {
    const link = h('a', {
      href: '#', class: 'tagent-stop', 'data-testid': `tagent-stop-${name}`, title: `Stop ${name}@${team.instance}`,
      // Every agent's link reads "stop": its name says whose.
      'aria-label': `Stop ${name}`,
    }, 'stop');
    onActivate(link, () => handlers.stop(name));
    return link;
  };
  const agents = h('ul', { class: 'tagents', 'data-testid': 'team-agents' }, ...team.agents.map((a) =>
    h('li', { 'data-testid': `tagent-${a.name}`, 'data-state': a.state, 'data-unread': a.unread },
      h('span', { class: `codicon codicon-${a.state === 'running' ? 'sync' : a.state === 'failed' ? 'error' : a.state === 'idle' ? 'circle-large-outline' : 'debug-stop'}`, 'aria-hidden': 'true' }),
      h('strong', {}, ` ${a.name}`),
      h('span', { class: 'dim' }, ` ${a.state === 'running' ? 'working' : a.state} · ${a.backend}${a.model ? ` · ${a.model}` : ''}`),
      a.unread ? h('span', { class: 'badge', 'data-testid': 'unread', title: plural(a.unread, 'unread @mention') }, String(a.unread)) : null,
      stoppable.has(a.name) ? agentStop(a.name) : null)));
  const docs = team.documents.length
    ? h('ul', { class: 'tdocs', 'data-testid': 'team-documents' }, ...team.documents.map((d) => {
      const link = h('a', { href: '#', 'data-testid': `tdoc-${d.name}`, title: d.path ?? 'held in memory: opens a copy' }, d.name);
      onActivate(link, () => handlers.openDocument(d.name));
      return h('li', {}, h('span', { class: 'codicon codicon-file', 'aria-hidden': 'true' }), ' ', link);
    }))
    : h('p', { class: 'dim' }, team.contextDir === null && !team.documents.length ? 'No documents.' : 'No documents yet.');
  return h('section', { class: 'team-side', 'aria-labelledby': 'team-agents-heading' },
    h('h2', { id: 'team-agents-heading' }, 'Agents'),
    h('p', { class: 'dim', 'data-testid': 'team-working' }, working),
    agents,
    h('h2', {}, 'Documents'),
    docs,
    team.contextDir ? h('p', { class: 'dim' }, `Context: ${team.contextDir}`) : null);
}
