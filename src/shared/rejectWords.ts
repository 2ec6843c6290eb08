// What a person is told about rejecting a gate, which depends on the gate: a workflow step goes back to its agent with
// the feedback (`redo`); a pipeline's human_review step ends the run, failed with the reason (`fail`, its default), or
// lets the run go on with the review not approved (`continue`). Used by the panel, the editor's prompts and toasts.
import { findPipelineNode, type PanelPipeline } from './protocol.js';

/** What rejecting a gate does: the agent redoes the step, the run fails, or the run goes on without the approval. */
export type RejectOutcome = 'redo' | 'fail' | 'continue';

/** The words around a rejection, for one outcome. */
export interface RejectWords {
  /** The label of the text a rejection needs ("Feedback", "Reason"). */
  label: string;
  /** The empty text box's hint. */
  placeholder: string;
  /** What rejecting does, said before the person rejects. */
  help: string;
  /** The question of the editor's input box. */
  prompt: string;
  /** Said when the input box is left empty. */
  required: string;
  /** How a rejection already made elsewhere is named ("was already …"). */
  done: string;
}

const WORDS: Record<RejectOutcome, RejectWords> = {
  redo: {
    label: 'Feedback',
    placeholder: 'What must change? (needed to reject)',
    help: 'Rejecting sends the step back to the agent with your feedback.',
    prompt: 'What must the agent change? (required; the agent redoes the step with your words)',
    required: 'Feedback is required to reject',
    done: 'sent back',
  },
  fail: {
    label: 'Reason',
    placeholder: 'Why do you reject it? (needed to reject)',
    help: 'Rejecting ends the run: it fails with your reason.',
    prompt: 'Why do you reject it? (required; recorded with the run, which then fails)',
    required: 'A reason is required to reject',
    done: 'rejected',
  },
  continue: {
    label: 'Reason',
    placeholder: 'Why do you reject it? (needed to reject)',
    help: 'Rejecting records your reason; the run goes on with this review not approved.',
    prompt: 'Why do you reject it? (required; recorded with the run, which goes on with this review not approved)',
    required: 'A reason is required to reject',
    done: 'rejected',
  },
};

/** The words around rejecting a gate whose rejection does `outcome`. */
export function rejectWords(outcome: RejectOutcome): RejectWords {
  return WORDS[outcome];
}

/** What the person is told once their rejection of `stepName` of `run` ("bug-fix “Fix the cart…”") is recorded. */
export function rejectedMessage(outcome: RejectOutcome, stepName: string, run: string): string {
  const what = outcome === 'redo' ? 'sent back with your feedback'
    : outcome === 'fail' ? 'rejected: the run ends, failed with your reason'
      : 'rejected: the run goes on with this review not approved';
  return `Baton: "${stepName}" of ${run} ${what}.`;
}

/** What rejecting `stepName` of the panel's run does: a pipeline review's as its node says; else a redo. */
export function panelRejection(pipeline: PanelPipeline | null | undefined, stepName: string): RejectOutcome {
  if (!pipeline) return 'redo';
  const node = findPipelineNode(pipeline.nodes, stepName);
  return node?.type === 'human_review' ? node.onReject ?? 'fail' : 'redo';
}
