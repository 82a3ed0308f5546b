import { PLAN_CONFIRM_APPROVE, PLAN_CONFIRM_MODIFY, PLAN_CONFIRM_REJECT } from '../runtime/planning/plan-records.js';

export type PlanDecisionKind = 'approve' | 'reject' | 'modify';

const SENTINELS: Readonly<Record<PlanDecisionKind, string>> = {
  approve: PLAN_CONFIRM_APPROVE,
  reject: PLAN_CONFIRM_REJECT,
  modify: PLAN_CONFIRM_MODIFY,
};

/**
 * The message that carries a plan decision: the sentinel, followed by the
 * plan id when known, so the agent refuses it if a different plan is pending
 * than the one the user saw.
 *
 * @example
 * decisionMessage({ kind: 'approve', planId: 'p1' }); // 'PLAN_CONFIRM_APPROVE p1'
 */
export function decisionMessage(options: { kind: PlanDecisionKind; planId?: string }): string {
  const sentinel = SENTINELS[options.kind];
  return options.planId && !/\s/.test(options.planId) ? `${sentinel} ${options.planId}` : sentinel;
}
