import { z } from 'zod';

/** The four methodologies a plan can follow. */
export const METHODOLOGIES = ['WBS', 'SMART', 'GTD', 'Polya'] as const;
export type Methodology = (typeof METHODOLOGIES)[number];

/** Sentinel replies a client (the REPL, a button) sends instead of natural language. */
export const PLAN_CONFIRM_APPROVE = 'PLAN_CONFIRM_APPROVE';
export const PLAN_CONFIRM_REJECT = 'PLAN_CONFIRM_REJECT';
export const PLAN_CONFIRM_MODIFY = 'PLAN_CONFIRM_MODIFY';

/** What the `plan` step returns: ordered actions and the methodology behind them. */
export const PlanResultSchema = z.object({
  actions: z.array(z.string().trim().min(1, 'an action must not be empty')).min(1, 'a plan needs at least one action').max(50, 'a plan has at most 50 actions'),
  methodology: z.string().min(1),
  methodology_rationale: z.string(),
});
export type PlanResult = z.infer<typeof PlanResultSchema>;

/** The plan waiting for the user's decision, as kept in the session context under `pending_plan`. */
export const PendingPlanSchema = PlanResultSchema.extend({
  /** Identifies the plan the user saw; an approval naming another plan id applies to nothing. */
  plan_id: z.string().min(1),
  /** ISO-8601 time it was proposed; older than the allowed age, it counts as gone. */
  created_at: z.string(),
  original_query: z.string(),
  /** The objective shown, when an edit renamed it (otherwise the original query). */
  objective: z.string().optional(),
  /** The plan this one was edited from; that plan can no longer be approved. */
  previous_plan_id: z.string().optional(),
  /** ISO-8601 time past which it can no longer be decided (counted by `approvals_pending` until then); absent in plans stored before it was kept. */
  expires_at: z.string().optional(),
  /** The span that proposed it (trace and span id), which the deciding request links to; absent while tracing is off. */
  asked_by: z.object({ trace_id: z.string().regex(/^[0-9a-f]{32}$/), span_id: z.string().regex(/^[0-9a-f]{16}$/) }).optional(),
});
export type PendingPlan = z.infer<typeof PendingPlanSchema>;

/** Session-context keys the planning flow uses. */
export const PENDING_PLAN_KEY = 'pending_plan';
export const AWAITING_MODIFICATION_KEY = 'awaiting_plan_modification';

/**
 * What the user decided about a pending plan. `plan_unclear`: the reply is
 * about the plan but decides nothing ("not yet", "no estoy seguro", "yes… no"):
 * the planner asks again and the plan stays pending.
 */
export type PlanConfirmationClass = 'plan_confirmed' | 'plan_rejected' | 'plan_modify_requested' | 'plan_modify_feedback' | 'plan_unclear';

/** The classifier's answer when the reply is about the pending plan. */
export interface PlanConfirmationResult {
  classification: PlanConfirmationClass;
  pending_plan: PendingPlan;
  original_query: string;
  /** The requested changes (`plan_modify_feedback` only). */
  feedback?: string;
  /** A plan id the reply named (a sentinel followed by an id); the planner refuses it when it is not the pending plan's. */
  referenced_plan_id?: string;
}

/** How a step of an edited plan differs from the plan before the edit. */
export type StepChange = 'added' | 'changed' | 'moved';

/** A task of the display plan. */
export interface DisplayTask {
  /** `action_1`, `action_2`, ... */
  task_id: string;
  description: string;
  /** Set on an edited plan for a step that is new, reworded or in a new place. */
  change?: StepChange;
}

/** The plan as shown to the user. */
export interface DisplayPlan {
  objective: string;
  methodology: string;
  methodology_rationale: string;
  tasks: DisplayTask[];
  /** On an edited plan: the steps taken out. */
  removed?: string[];
  /** On an edited plan: true when the objective was renamed. */
  objective_changed?: boolean;
}
