// Dependency-graph checks shared by content validation and anything else that walks step graphs.

/** A node of a step graph: a name and the names it waits for. */
export interface GraphStep {
  name: string;
  dependencies: readonly string[];
}

/**
 * Every distinct dependency cycle, each as the step names in order with the first repeated at
 * the end (`['a', 'b', 'a']` means a depends on b, which depends on a). Dependencies naming no
 * step are ignored; report those separately.
 */
export function findCycles(steps: readonly GraphStep[]): string[][] {
  const deps = new Map(steps.map((s) => [s.name, s.dependencies.filter((d, i, all) => all.indexOf(d) === i)]));
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const seen = new Set<string>();
  const cycles: string[][] = [];

  // Depth first, with the path on an explicit stack: a chain of thousands of steps would overflow the call stack.
  const frames: Array<{ name: string; next: number }> = [];
  const enter = (name: string) => {
    state.set(name, 'visiting');
    stack.push(name);
    frames.push({ name, next: 0 });
  };
  for (const step of steps) {
    if (state.has(step.name)) continue;
    enter(step.name);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      const list = deps.get(frame.name) ?? [];
      if (frame.next === list.length) {
        frames.pop();
        stack.pop();
        state.set(frame.name, 'done');
        continue;
      }
      const dep = list[frame.next++]!;
      if (!deps.has(dep)) continue;
      const s = state.get(dep);
      if (s === 'visiting') {
        const cycle = stack.slice(stack.indexOf(dep));
        // The same cycle is found from whichever member the walk entered first; key it by its members.
        const key = [...cycle].sort().join('\u0000');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push([...cycle, dep]);
        }
      } else if (s === undefined) {
        enter(dep);
      }
    }
  }
  return cycles;
}
