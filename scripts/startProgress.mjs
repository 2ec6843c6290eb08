// What `npm start` prints while a person waits for the editor: the page has opened and the extension host is starting,
// Baton has activated (its icon is in the activity bar from then on), Baton owns the database and serves MCP. Read
// from the logs the editor server writes (the extension host's log and Baton's own output channel), by polling.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const POLL_MS = 500;

/** The lines worth a person's attention, by the log file's name. */
const RULES = [
  { file: 'remoteexthost.log', re: /Activating extension 'baton-dev\.baton' failed[^\n]*/, say: (m) => `Baton: ${m[0].trim()}` },
  { file: 'Baton.log', re: /Baton: activated in \d+ ms/, say: (_m, ctx) => `Baton: active ${ctx.since()} after the page opened; its icon is in the activity bar` },
  { file: 'Baton.log', re: /owner of (.+); MCP endpoint (\S+)/, say: (m) => `Baton: owns ${m[1]}; MCP endpoint ${m[2]}` },
  { file: 'Baton.log', re: /is owned by Baton process (\d+); using its endpoint (\S+)/, say: (m) => `Baton: the database is owned by Baton process ${m[1]}; using its endpoint ${m[2]}` },
  { file: 'Baton.log', re: /\[error\] ([^\n]+)/, say: (m) => `Baton: error: ${m[1]} (Baton: Show Log has the details)` },
];

/**
 * Watches `logsDir` (the editor server's user-data/logs) and calls `say` with a line for each step above. Each page
 * that opens starts its own extension host, so a reload reports again. Returns a function that stops watching.
 */
export function watchEditorProgress(logsDir, say) {
  const offsets = new Map();
  let openedAt = 0;
  const ctx = { since: () => `${((Date.now() - openedAt) / 1000).toFixed(1)} s` };
  // Logs of earlier runs (the user-data folder is kept) are not news.
  for (const file of logFiles(logsDir)) offsets.set(file, readFileSync(file, 'utf8').length);
  const poll = () => {
    for (const file of logFiles(logsDir)) {
      const known = offsets.has(file);
      const text = readFileSync(file, 'utf8');
      const from = offsets.get(file) ?? 0;
      offsets.set(file, text.length);
      if (file.endsWith('remoteexthost.log') && !known) {
        openedAt = Date.now();
        say('editor: a page opened; the extension host is starting (Baton shows up in the activity bar when it has activated, about 10 s)…');
      }
      const added = text.slice(from);
      for (const rule of RULES) {
        if (!file.endsWith(rule.file)) continue;
        for (const m of added.matchAll(new RegExp(rule.re.source, 'g'))) say(rule.say(m, ctx));
      }
    }
  };
  const timer = setInterval(poll, POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

function logFiles(dir) {
  if (!existsSync(dir)) return [];
  try {
    return readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => RULES.some((r) => f.endsWith(r.file)))
      .map((f) => join(dir, f))
      // The extension host's log first: it marks the page opening that Baton's lines are timed from.
      .sort((a, b) => Number(!a.endsWith('remoteexthost.log')) - Number(!b.endsWith('remoteexthost.log')) || a.localeCompare(b));
  } catch {
    return []; // a folder appeared or went while it was listed; the next poll sees it
  }
}
