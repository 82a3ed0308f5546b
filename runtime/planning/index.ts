/**
 * Planning with human confirmation: plan records, the EN/ES reply
 * classifier, pending plans in session context, methodologies, plan
 * summaries and the planner task.
 *
 * This file is the complete public surface of `framework_core/planning`: names are exported
 * one by one, never with a wildcard, and a snapshot test keeps the list
 * deliberate (test/boundaries/exports.test.ts).
 */
export {
  METHODOLOGIES,
  PLAN_CONFIRM_APPROVE,
  PLAN_CONFIRM_REJECT,
  PLAN_CONFIRM_MODIFY,
  PlanResultSchema,
  PendingPlanSchema,
  PENDING_PLAN_KEY,
  AWAITING_MODIFICATION_KEY,
  type Methodology,
  type PlanResult,
  type PendingPlan,
  type PlanConfirmationClass,
  type PlanConfirmationResult,
  type DisplayPlan,
  type DisplayTask,
  type StepChange,
} from './plan-records.js';
export { classifyPlanConfirmationReply, DEFAULT_MAX_PLAN_AGE_MS, type ClassifyPlanConfirmationOptions } from './classify-plan-confirmation-reply.js';
export { CONFIRMATION_VOCABULARY, REPLY_GRAMMAR, type ConfirmationVocabulary, type ReplyGrammar } from './confirmation-vocabulary.js';
export { parsePlanEdits, applyPlanEdits, type PlanEdit, type StepPosition, type ParsedPlanEdits, type EditedPlan, type ApplyResult } from './plan-edits.js';
export { editPlanWithModel, lostSteps, type EditPlanWithModelOptions } from './edit-plan.js';
export { recordPendingPlan, clearPendingPlan, markAwaitingModification, type UpdateSessionContext } from './pending-plan.js';
export { formatPlanSummary, toDisplayPlan, guessLanguage, type SummaryLanguage, type PlanChanges } from './plan-summary.js';
export { listMethodologies, selectMethodology, DEFAULT_METHODOLOGY, type MethodologySelection, type SelectMethodologyOptions } from './methodologies.js';
export { cleanLlmJson } from './clean-llm-json.js';
export { generatePlan, type GeneratePlanOptions } from './generate-plan.js';
export { registerPlannerTask, defaultStepStatus, type PlannerOptions, type ActionOutcome } from './planner-task.js';

export type { PlannerMemory, PastTaskResult } from './planner-memory.js';
export { literalPlan, splitActions } from './literal-plan.js';
export { claimPendingPlan, type ClaimSessionContextValue } from './pending-plan.js';
