// The shapes of multi-agent pipelines (specs/multi-agent-pipelines.md): systems of agents and workflow steps,
// blueprints that a person instantiates with inputs, and the engine's progress events.
import type { RunnerKind, TokenPrice, TokenUsage } from './runner.js';

/** Agent roles of the spec's table. */
export const SYSTEM_AGENT_ROLES = ['researcher', 'analyzer', 'planner', 'validator', 'implementer', 'reviewer', 'tester', 'custom'] as const;
/** An agent's role in a system. */
export type SystemAgentRole = (typeof SYSTEM_AGENT_ROLES)[number];

/** The model an agent uses, in its CLI's naming. */
export interface ModelConfig {
  model?: string;
}

/** One agent of a system: who runs a step (a CLI, the editor's models or an executable). */
export interface SystemAgent {
  id: string;
  role: SystemAgentRole;
  /** Which runner runs it; inferred from the model's prefix when unset (claude-, gpt-/codex-, gemini-, opencode-). */
  runner: RunnerKind;
  modelConfig?: ModelConfig;
  /** Appended to the runner's system prompt (before the memory context). */
  systemPromptOverride?: string;
  /** The CLI's own tools the agent may use without asking. */
  allowedTools?: string[];
  /** The `command` runner's executable and arguments (an argument array, never a shell string). */
  command?: string[];
  /** Extra environment for the process (e.g. a provider's API key or base URL). */
  env?: Record<string, string>;
  /**
   * The CLI's own settings, merged under Baton's MCP entry into the configuration each run writes in its scratch
   * folder: claude `--settings`, codex `-c key=value` overrides, gemini `settings.json`, opencode `opencode.json`,
   * cursor-agent `~/.cursor/mcp.json` (e.g. a model provider on another endpoint).
   */
  cliConfig?: Record<string, unknown>;
  /** Prices per million tokens, for CLIs that report no cost (or $0 for tokens they used: a model they have no price for). */
  price?: TokenPrice;
}

/** Step types of the engine. */
export const STEP_TYPES = ['agent', 'sequential', 'parallel', 'conditional', 'loop', 'human_review', 'transform'] as const;
/** One step type. */
export type StepType = (typeof STEP_TYPES)[number];

/** Condition operators: the spec's `contains`, plus equality, regular expressions, numbers and presence. */
export const CONDITION_OPERATORS = [
  'contains', 'not_contains', 'equals', 'not_equals', 'matches', 'not_matches', 'gt', 'gte', 'lt', 'lte', 'exists', 'not_exists',
] as const;
/** One condition operator. */
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** A test on a variable (`field` is a dotted path such as `review.score` or `system.input`), or a combination. */
export type WorkflowStepCondition =
  | { field: string; operator: ConditionOperator; value?: string | number | boolean; caseSensitive?: boolean }
  | { all: WorkflowStepCondition[] }
  | { any: WorkflowStepCondition[] }
  | { not: WorkflowStepCondition };

/** What a parallel step does when a child fails: stop the others at once, or let them finish first. */
export const FAILURE_POLICIES = ['fail_fast', 'wait_for_all'] as const;
/** One failure policy. */
export type FailurePolicy = (typeof FAILURE_POLICIES)[number];

/** Transform operations applied after the template is interpolated. */
export const TRANSFORM_OPERATIONS = ['none', 'trim', 'upper', 'lower', 'json', 'lines', 'extract'] as const;
/** One transform operation. */
export type TransformOperation = (typeof TRANSFORM_OPERATIONS)[number];

/** Retries of a failed agent step: `maxAttempts` in all, waiting `backoffMs`, then twice as long, and so on. */
export interface RetryPolicy {
  maxAttempts: number;
  backoffMs: number;
  /** The factor the wait grows by after each attempt (2 unless set). */
  multiplier?: number;
}

/** One step of a workflow; `type` says which fields apply. */
export interface SystemWorkflowStep {
  /** Unique within its parent; generated from the position and agent when the file gives none. */
  id: string;
  type: StepType;
  name?: string;
  /** agent: which agent runs it. */
  agentId?: string;
  /** agent: the prompt; transform: the text to transform; human_review: what the person is asked. */
  inputTemplate?: string;
  /** Where the step's output goes (`{{name}}` in later templates). */
  outputVariable?: string;
  /** sequential, parallel, loop: the steps inside. */
  children?: SystemWorkflowStep[];
  /** conditional: the test and its two branches. */
  condition?: WorkflowStepCondition;
  trueBranch?: SystemWorkflowStep[];
  falseBranch?: SystemWorkflowStep[];
  /** loop: at most this many iterations; ends early once `breakCondition` holds (checked after each child). */
  maxIterations?: number;
  breakCondition?: WorkflowStepCondition;
  /** parallel: what a child's failure does (fail_fast unless set). */
  failurePolicy?: FailurePolicy;
  /** agent: stop an attempt after this long. */
  timeoutMs?: number;
  /** agent: retries of a failed or timed-out attempt. */
  retry?: RetryPolicy;
  /** transform: the operation, and for `extract` the regular expression and group. */
  operation?: TransformOperation;
  pattern?: string;
  group?: number;
  /** human_review: what a rejection does: fail the run (default) or continue with `approved: false`. */
  onReject?: 'fail' | 'continue';
}

/** Token and cost limits of a run; it pauses (budget_exceeded) rather than go past them. */
export interface Budget {
  tokens?: number;
  usd?: number;
}

/** A system: agents and the workflow they run (`.baton/pipelines/*.yaml`). */
export interface System {
  name: string;
  description: string;
  agents: SystemAgent[];
  workflow: SystemWorkflowStep[];
  budget?: Budget;
  /** Variables a run starts with (overridden by `--var`). */
  variables?: Record<string, string>;
}

/** Blueprint categories of the spec. */
export const BLUEPRINT_CATEGORIES = ['research', 'development', 'review', 'testing', 'custom'] as const;
/** Input types of the spec (plus boolean and number, which its example uses). */
export const BLUEPRINT_INPUT_TYPES = ['string', 'file', 'selection', 'boolean', 'number'] as const;

/** An input a person gives when instantiating a blueprint. */
export interface BlueprintInput {
  name: string;
  description: string;
  type: (typeof BLUEPRINT_INPUT_TYPES)[number];
  /** selection: the allowed values. */
  options?: string[];
  default?: string;
}

/** A template agent of a blueprint (the spec's AgentTemplate); `id` names it in the workflow. */
export interface AgentTemplate {
  id: string;
  role: SystemAgentRole;
  suggestedModels: string[];
  suggestedTools: string[];
  promptTemplate: string;
  /** The runner the system gets unless the person picks another. */
  runner?: RunnerKind;
  command?: string[];
}

/** A reusable system shape (`content/blueprints/*.yaml`) instantiated with inputs. */
export interface SystemBlueprint {
  id: string;
  name: string;
  description: string;
  category: (typeof BLUEPRINT_CATEGORIES)[number];
  agentTemplates: AgentTemplate[];
  workflowTemplate: SystemWorkflowStep[];
  requiredInputs: BlueprintInput[];
}

/** What the engine reports while a run goes on (the CLI's progress, the panel's live view). */
export type PipelineProgress =
  | { type: 'step_started'; runId: string; step: string; stepType: StepType; agent: string | null; attempt: number }
  /** `delta`: the next piece of a message the agent is still writing (else a whole message or line). */
  | { type: 'step_output'; runId: string; step: string; text: string; delta?: true }
  | { type: 'step_tool_call'; runId: string; step: string; name: string; server: string | null }
  | { type: 'step_usage'; runId: string; step: string; usage: TokenUsage; costUsd: number | null }
  | { type: 'step_retry'; runId: string; step: string; attempt: number; error: string; waitMs: number }
  | { type: 'step_completed'; runId: string; step: string; output: string; usage: TokenUsage; costUsd: number | null; replayed: boolean }
  | { type: 'step_failed'; runId: string; step: string; error: string }
  | { type: 'step_awaiting_approval'; runId: string; step: string; prompt: string }
  | { type: 'run_finished'; runId: string; status: 'completed' | 'failed' | 'paused' | 'awaiting_approval'; error: string | null };
