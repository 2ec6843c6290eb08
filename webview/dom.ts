// A tiny element builder: text goes in as text nodes (never HTML), attributes as attributes, and no inline styles
// (the CSP has no 'unsafe-inline'). Much of the text is an agent's: its bidi control characters are shown as
// `[U+202E]` rather than obeyed, so they cannot reorder what follows ("evil" shown as "live").
import { bidiSafe } from '../src/shared/labels.js';

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined>;

const SVG_NS = 'http://www.w3.org/2000/svg';

function apply(el: Element, attrs: Attrs, children: Child[]): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? '' : typeof v === 'string' ? bidiSafe(v) : String(v));
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(bidiSafe(c)) : c);
  }
}

/** An HTML element. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, attrs?: Attrs, ...children: Child[]): HTMLElement;
export function h(tag: string, attrs: Attrs = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  apply(el, attrs, children);
  return el;
}

/** An SVG element. */
export function s(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag) as SVGElement;
  apply(el, attrs, children);
  return el;
}

/** Calls `action` on click and on Enter/Space, for elements that act as buttons without being <button>s. */
export function onActivate(el: Element, action: () => void): void {
  el.addEventListener('click', action);
  el.addEventListener('keydown', (e) => {
    const key = (e as KeyboardEvent).key;
    if (key === 'Enter' || key === ' ') {
      e.preventDefault();
      action();
    }
  });
}
