// Draws the step graph as an SVG from the DOM-free layout: nodes coloured by status (CSS classes on theme variables),
// dependency edges with arrowheads, nodes focusable and selectable with click, Enter or Space. The graph is one Tab stop
// (the selected node, else the first; arrow keys walk the rest), so a 100-step run does not put 100 stops before the
// sections after it.
import { leftStepText, plural } from '../src/shared/labels.js';
import type { PanelStep } from '../src/shared/protocol.js';
import { onActivate, s } from './dom.js';
import { layoutGraph } from './graphLayout.js';
import type { GraphPoint } from './graphLayout.js';

/** "awaiting_approval" → "awaiting approval". */
export function statusLabel(status: string): string {
  return status.replace(/_/g, ' ');
}

function pathOf(points: GraphPoint[]): string {
  return points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x},${p.y}`).join(' ');
}

/** The run a graph belongs to: its status, and whether it was cancelled (a step it left unfinished says so). */
export interface GraphRun {
  status: string;
  cancelled: boolean;
}

/**
 * A step's (or phase's) status as the panel says it: "not run (run cancelled)" for one a run left behind, "stopped
 * (run cancelled)" for one the cancel cut short (`stopped`: PanelStep's).
 */
export function shownStatus(status: string, run: GraphRun, stopped = false): string {
  return leftStepText(status, run.status, run.cancelled, stopped) ?? statusLabel(status);
}

/** Whether a step (or phase) is one a cancelled or failed run left unfinished. */
export function leftByRun(status: string, run: GraphRun, stopped = false): boolean {
  return leftStepText(status, run.status, run.cancelled, stopped) !== null;
}

/** The graph's accessible name: how many steps, and how many are in each status ("4 steps: 3 completed, 1 failed"). */
export function graphLabel(steps: PanelStep[], run: GraphRun): string {
  const counts = new Map<string, number>();
  for (const st of steps) {
    const status = shownStatus(st.status, run, st.stopped);
    counts.set(status, (counts.get(status) ?? 0) + 1);
  }
  const each = [...counts].map(([status, n]) => `${n} ${status}`).join(', ');
  return `Step graph: ${plural(steps.length, 'step')}${each ? `: ${each}` : ''}`;
}

/** The graph's SVG; `onSelect` is called with the chosen step's name. */
export function renderGraph(steps: PanelStep[], selected: string | null, onSelect: (name: string) => void, run: GraphRun): SVGElement {
  const subtitle = (st: PanelStep): string => `${shownStatus(st.status, run, st.stopped)}${st.attempt > 1 ? ` · try ${st.attempt}` : ''}`;
  const layout = layoutGraph(steps.map((st) => ({ name: st.name, dependencies: st.dependencies, subtitle: subtitle(st) })));
  const byName = new Map(steps.map((st) => [st.name, st]));
  const svg = s('svg', {
    'data-testid': 'graph', class: 'graph', role: 'group', 'aria-label': graphLabel(steps, run),
    width: layout.width, height: layout.height, viewBox: `0 0 ${layout.width} ${layout.height}`,
  });
  svg.append(
    s('defs', {},
      s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }))),
  );
  const edges = s('g', { class: 'edges', 'aria-hidden': 'true' });
  for (const e of layout.edges) {
    edges.append(s('path', { class: 'edge', d: pathOf(e.points), 'marker-end': 'url(#arrow)', 'data-from': e.from, 'data-to': e.to }));
  }
  svg.append(edges);
  // Reading order (layer by layer, left to right) is also the Tab and arrow-key order.
  const ordered = [...layout.nodes].sort((a, b) => a.rank - b.rank || a.x - b.x);
  const tabStop = ordered.some((n) => n.name === selected) ? selected : ordered[0]?.name;
  for (const n of ordered) {
    const step = byName.get(n.name);
    const status = step?.status ?? 'pending';
    // A step a cancelled or failed run left behind is drawn muted (`data-left`), not as a step that is running or next.
    const shown = step ? shownStatus(step.status, run, step.stopped) : statusLabel(status);
    const g = s('g', {
      class: `node${n.name === selected ? ' selected' : ''}`, 'data-testid': `node-${n.name}`, 'data-status': status,
      'data-left': !!step && leftByRun(step.status, run, step.stopped), tabindex: n.name === tabStop ? 0 : -1, role: 'button', 'aria-label': `${n.name}: ${shown}`,
      'aria-pressed': n.name === selected ? 'true' : 'false', transform: `translate(${n.x},${n.y})`,
    },
    // With the node's label as its name, the title is its description: who works it and what it waits for (the
    // edges are not read out).
    s('title', {}, `${n.name}: ${shown}${step?.agent ? ` (${step.agent})` : ''}${step?.dependencies.length ? `, after ${step.dependencies.join(', ')}` : ''}`),
    s('rect', { width: n.width, height: n.height, rx: 6, ry: 6 }),
    s('text', { class: 'node-name', x: n.width / 2, y: 19, 'text-anchor': 'middle' }, n.name),
    s('text', { class: 'node-status', x: n.width / 2, y: 36, 'text-anchor': 'middle' }, step ? subtitle(step) : statusLabel(status)));
    onActivate(g, () => onSelect(n.name));
    svg.append(g);
  }
  svg.addEventListener('keydown', (e) => moveFocus(svg, e));
  return svg;
}

/** Arrow keys walk the nodes in reading order, Home and End jump to the first and last. */
function moveFocus(svg: SVGElement, e: KeyboardEvent): void {
  const nodes = [...svg.querySelectorAll<SVGGElement>('g.node')];
  const at = nodes.indexOf(e.target as SVGGElement);
  if (at < 0) return;
  const next = { ArrowDown: at + 1, ArrowRight: at + 1, ArrowUp: at - 1, ArrowLeft: at - 1, Home: 0, End: nodes.length - 1 }[e.key];
  if (next === undefined) return;
  e.preventDefault();
  const to = nodes[Math.max(0, Math.min(nodes.length - 1, next))];
  if (!to) return;
  // The Tab stop moves with focus: Shift+Tab back into the graph lands where the person left it.
  for (const n of nodes) n.setAttribute('tabindex', n === to ? '0' : '-1');
  to.focus();
}
