import { randomUUID } from 'node:crypto';
import { AWAITING_MODIFICATION_KEY, PENDING_PLAN_KEY, PendingPlanSchema, type PendingPlan, type PlanResult } from './plan-records.js';

/** How a session context is updated: `agent.updateSessionContext` bound to the agent. */
export type UpdateSessionContext = (contextId: string, patch: Readonly<Record<string, unknown>>) => Promise<unknown>;

/**
 * Records `planResult` as the conversation's pending plan, with a new plan id
 * and the time it was proposed, and clears `awaiting_plan_modification`.
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
  options: { now?: Date } = {},
): Promise<PendingPlan> {
  const pending: PendingPlan = PendingPlanSchema.parse({
    actions: planResult.actions,
    methodology: planResult.methodology,
    methodology_rationale: planResult.methodology_rationale,
    plan_id: randomUUID(),
    created_at: (options.now ?? new Date()).toISOString(),
    original_query: query,
  });
  await updateSessionContext(contextId, { [PENDING_PLAN_KEY]: pending, [AWAITING_MODIFICATION_KEY]: undefined });
  return pending;
}

/** Removes the pending plan (and the awaiting-modification flag) from the conversation. */
export async function clearPendingPlan(updateSessionContext: UpdateSessionContext, contextId: string): Promise<void> {
  await updateSessionContext(contextId, { [PENDING_PLAN_KEY]: undefined, [AWAITING_MODIFICATION_KEY]: undefined });
}

/** Marks the conversation as waiting for the user to say what to change. */
export async function markAwaitingModification(updateSessionContext: UpdateSessionContext, contextId: string): Promise<void> {
  await updateSessionContext(contextId, { [AWAITING_MODIFICATION_KEY]: true });
}
