// A spec workflow's status turned into the panel's plain JSON: phases with their tasks and gates (evidence included),
// bounded, the drift of tasks.md from its snapshot and what its parse warned about. Pure (no 'vscode'), unit-tested.
import type { SpecStatus } from '../../core/specTypes.js';
import type { PanelSpec } from '../../shared/protocol.js';
import { phaseTitle, taskState } from '../views/specTreeModel.js';
import { clip } from './panelState.js';

const TEXT_CHARS = 300;
const EVIDENCE_CHARS = 2000;
/** Tasks listed per phase (a 200-task phase stays readable and small). */
export const PANEL_TASKS_LIMIT = 250;
/** Parse warnings listed (the rest are counted; `baton spec status` lists them all). */
export const PANEL_WARNINGS_LIMIT = 10;

/** The panel's view of a spec status. */
export function buildPanelSpec(spec: SpecStatus): PanelSpec {
  const last = spec.write_backs.at(-1);
  const d = spec.drift.first_difference;
  return {
    source: spec.source,
    currentPhase: spec.current_phase,
    phaseCount: spec.total_phases - 1,
    phases: spec.phases.map((p) => ({
      phase: p.phase,
      title: clip(phaseTitle(spec, p), TEXT_CHARS),
      stepName: p.step_name,
      status: p.status,
      signoff: p.human_signoff,
      tasks: p.tasks.slice(0, PANEL_TASKS_LIMIT).map((t) => ({
        id: clip(t.id, 40), name: clip(t.name, TEXT_CHARS), state: taskState(t), doneInSource: t.done_in_source, line: t.line,
      })),
      gate: p.gate.map((g) => ({ text: clip(g.text, TEXT_CHARS), evidence: g.evidence === null ? null : clip(g.evidence, EVIDENCE_CHARS) })),
      missing: (p.last_refusal?.missing ?? []).map((m) => clip(m, TEXT_CHARS)),
    })),
    drift: {
      state: spec.drift.state,
      line: d?.line ?? null,
      snapshot: d ? clip(d.snapshot, TEXT_CHARS) : null,
      current: d ? clip(d.current, TEXT_CHARS) : null,
    },
    warnings: (spec.warnings ?? []).slice(0, PANEL_WARNINGS_LIMIT).map((w) => ({ line: w.line, message: clip(w.message, TEXT_CHARS) })),
    warningCount: spec.warnings?.length ?? 0,
    ticked: spec.write_backs.reduce((n, w) => n + w.ticked, 0),
    writeBackProblem: last?.error ?? (last?.refused.length ? `${last.refused.length} box${last.refused.length === 1 ? '' : 'es'} not ticked: ${last.refused.map((r) => `line ${r.line}: ${r.reason}`).join('; ')}` : null),
  };
}
