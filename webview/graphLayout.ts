// The step graph's layout: steps → positioned nodes and edges through dagre (layered, top to bottom). No DOM, so it
// is unit-tested under Node and drawn by graphView.ts in the webview.
import dagre from '@dagrejs/dagre';

/** What the layout needs of a step. */
export interface GraphStepInput {
  name: string;
  dependencies: string[];
  /** A second, smaller line under the name (the status); the node is made wide enough for it too. */
  subtitle?: string;
}

/** A node's box (top-left corner and size, in SVG units). */
export interface GraphNode {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The layer (0 = no dependencies). */
  rank: number;
}

/** A point of an edge's polyline. */
export interface GraphPoint {
  x: number;
  y: number;
}

/** A dependency edge: `from` must finish before `to`. */
export interface GraphEdge {
  from: string;
  to: string;
  points: GraphPoint[];
}

/** The whole picture. */
export interface GraphLayout {
  width: number;
  height: number;
  nodes: GraphNode[];
  edges: GraphEdge[];
}

/** Sizes used by the layout. */
export interface GraphLayoutOptions {
  nodeHeight: number;
  minNodeWidth: number;
  /** Estimated width of one character of a label. */
  charWidth: number;
  margin: number;
}

const DEFAULTS: GraphLayoutOptions = { nodeHeight: 46, minNodeWidth: 120, charWidth: 7.5, margin: 12 };

/** A node wide enough for its label and subtitle (estimated: the layout runs without a DOM to measure text). */
export function nodeWidth(name: string, options: GraphLayoutOptions = DEFAULTS, subtitle = ''): number {
  const text = Math.max(name.length * options.charWidth, subtitle.length * options.charWidth * 0.9);
  return Math.max(options.minNodeWidth, Math.ceil(text + 32));
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

/** Lays the steps out as a layered DAG; dependencies on unknown steps are ignored, duplicate names keep the first. */
export function layoutGraph(steps: GraphStepInput[], overrides: Partial<GraphLayoutOptions> = {}): GraphLayout {
  const options = { ...DEFAULTS, ...overrides };
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 44, marginx: options.margin, marginy: options.margin });
  g.setDefaultEdgeLabel(() => ({}));
  const names: string[] = [];
  for (const s of steps) {
    if (g.hasNode(s.name)) continue;
    names.push(s.name);
    g.setNode(s.name, { width: nodeWidth(s.name, options, s.subtitle), height: options.nodeHeight });
  }
  const edgeKeys: Array<{ from: string; to: string }> = [];
  for (const s of steps) {
    for (const dep of s.dependencies) {
      if (!g.hasNode(dep) || dep === s.name || g.hasEdge(dep, s.name)) continue;
      g.setEdge(dep, s.name);
      edgeKeys.push({ from: dep, to: s.name });
    }
  }
  dagre.layout(g);
  const ranks = [...new Set(names.map((n) => g.node(n).y ?? 0))].sort((a, b) => a - b);
  const nodes = names.map((name) => {
    const n = g.node(name);
    const cx = n.x ?? 0;
    const cy = n.y ?? 0;
    return { name, x: round(cx - n.width / 2), y: round(cy - n.height / 2), width: n.width, height: n.height, rank: ranks.indexOf(cy) };
  });
  const edges = edgeKeys.map(({ from, to }) => ({
    from, to, points: (g.edge(from, to).points ?? []).map((p: GraphPoint) => ({ x: round(p.x), y: round(p.y) })),
  }));
  const graph = g.graph();
  return { width: Math.ceil(graph.width ?? 0), height: Math.ceil(graph.height ?? 0), nodes, edges };
}
