import { randomUUID } from 'node:crypto';
import { askingSpan, recordApprovalOutcome, type ApprovalOutcome } from '../core/telemetry/approval-events.js';
import { AWAITING_MODIFICATION_KEY, PENDING_PLAN_KEY, PendingPlanSchema, type PendingPlan, type PlanResult } from './plan-records.js';

/** How a session context is updated: `agent.updateSessionContext` bound to the agent. */
export type UpdateSessionContext = (contextId: string, patch: Readonly<Record<string, unknown>>) => Promise<unknown>;

/**
 * Records `planResult` as the conversation's pending plan, with a new plan id
 * and the time it was proposed, and clears `awaiting_plan_modification`.
 * `objective` (a renamed objective) and `previousPlanId` (the plan it was
 * edited from) are kept with it when given; `maxAgeMs` sets its `expires_at`.
 * The active span (when tracing is on) is kept as `asked_by`, for the
 * request that decides it to link to.
 * Returns the pending plan as stored.
 *
 * @example
 * const pending = await recordPendingPlan((id, patch) => agent.updateSessionContext(id, patch), contextId, plan, query);
 */
export async function recordPendingPlan(
  updateSessionContext: UpdateSessionContext,
  contextId: string,
  planResult: PlanResult,
  query: string,
  options: { now?: Date; objective?: string; previousPlanId?: string; maxAgeMs?: number } = {},
): Promise<PendingPlan> {
  const created = options.now ?? new Date();
  const asked = askingSpan();
  const pending: PendingPlan = PendingPlanSchema.parse({
    actions: planResult.actions,
    methodology: planResult.methodology,
    methodology_rationale: planResult.methodology_rationale,
    plan_id: randomUUID(),
    created_at: created.toISOString(),
    original_query: query,
    ...(options.maxAgeMs !== undefined && Number.isFinite(options.maxAgeMs)
      ? { expires_at: new Date(created.getTime() + Math.max(0, options.maxAgeMs)).toISOString() }
      : {}),
    ...(asked ? { asked_by: asked } : {}),
    ...(options.objective === undefined ? {} : { objective: options.objective }),
    ...(options.previousPlanId === undefined ? {} : { previous_plan_id: options.previousPlanId }),
  });
  await updateSessionContext(contextId, { [PENDING_PLAN_KEY]: pending, [AWAITING_MODIFICATION_KEY]: undefined });
  return pending;
}

/** Removes the pending plan (and the awaiting-modification flag) from the conversation. */
export async function clearPendingPlan(updateSessionContext: UpdateSessionContext, contextId: string): Promise<void> {
  await updateSessionContext(contextId, { [PENDING_PLAN_KEY]: undefined, [AWAITING_MODIFICATION_KEY]: undefined });
}

/** How a one-time claim is made: `agent.claimSessionContextValue` bound to the agent. */
export type ClaimSessionContextValue = (contextId: string, key: string, expected: unknown) => Promise<boolean>;

/**
 * Takes the pending plan out of the conversation, once: `stored` is the
 * value as read from the session context. Of several replies deciding the
 * same plan at the same instant (on several replicas too), exactly one gets
 * `true`; the others must not act on it.
 *
 * @example
 * if (await claimPendingPlan((id, key, value) => agent.claimSessionContextValue(id, key, value), contextId, session.pending_plan)) run(plan);
 */
export async function claimPendingPlan(claim: ClaimSessionContextValue, contextId: string, stored: unknown): Promise<boolean> {
  return claim(contextId, PENDING_PLAN_KEY, stored);
}

/** Marks the conversation as waiting for the user to say what to change. */
export async function markAwaitingModification(updateSessionContext: UpdateSessionContext, contextId: string): Promise<void> {
  await updateSessionContext(contextId, { [AWAITING_MODIFICATION_KEY]: true });
}

/**
 * Records on the active span how the wait for a decision about `pending`
 * ended (`approval.granted`, `.denied`, `.modified` by the person, or
 * `.expired`), with the wait since it was proposed and a link to the span
 * that proposed it: the tool gate's events, for plans. Nothing while tracing is off.
 */
export function recordPlanDecision(pending: PendingPlan, outcome: ApprovalOutcome, now: number): void {
  const created = Date.parse(pending.created_at);
  recordApprovalOutcome({
    outcome,
    decidedBy: outcome === 'expired' ? 'expiry' : 'person',
    waitMs: Number.isNaN(created) ? 0 : now - created,
    approvalId: pending.plan_id,
    ...(pending.asked_by ? { asked: pending.asked_by } : {}),
  });
}
