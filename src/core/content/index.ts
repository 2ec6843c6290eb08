// Content: load agents, rules and workflow templates from files, sync them into the store, read them back.
export { cacheableParses, leftOutNote, loadContent, parseKey, type CachedParse, type ContentParseCache, type ContentKind, type ContentOrigin, type LoadedAgent, type LoadedContent, type LoadedRule, type LoadedWorkflow } from './loadContent.js';
export { syncContent } from './syncContent.js';
export {
  getAgent, getTemplate, getTemplateById, listAgents, listRules, listTemplates,
  type StoredAgent, type StoredOrigin, type StoredRule, type StoredTemplate,
} from './contentRepo.js';
export { parseWorkflowFile, DEFAULT_OUTPUT_FORMAT, WORKFLOW_TYPES, type ParsedWorkflow } from './workflowFile.js';
export { parseAgentFile, parseRuleFile, GUARDRAIL_LINE, type ParsedItem } from './markdownFile.js';
export { findCycles, type GraphStep } from './stepGraph.js';
