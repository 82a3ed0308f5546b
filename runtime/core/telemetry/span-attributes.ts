/**
 * Attribute names of the toolkit's own spans, where OpenTelemetry's semantic
 * conventions have none. `framework-cli trace` reads the decision and context
 * ones; a backend can filter on any of them.
 */

/** The task a span runs (`task <name>`). */
export const TASK_ATTRIBUTE = 'framework.task';
/** The step a span runs (`step <name>`). */
export const STEP_ATTRIBUTE = 'framework.step';
/** The A2A context or front-door session the work is for: `trace --context <id>`. */
export const CONTEXT_ATTRIBUTE = 'framework.context_id';
/** A Guardian's or tool gate's decision: allow, deny or require_approval. */
export const DECISION_ATTRIBUTE = 'framework.decision';
/** Why (the policy's reasons, joined). */
export const DECISION_REASONS_ATTRIBUTE = 'framework.decision.reasons';
/** Who decided: the Guardian, the local bundle, a fail-closed default… */
export const DECIDED_BY_ATTRIBUTE = 'framework.decided_by';
/** The revision of the policies that decided. */
export const POLICY_REVISION_ATTRIBUTE = 'framework.policy.revision';
/** OPA's decision id of a policy evaluation (also in the decision log). */
export const DECISION_ID_ATTRIBUTE = 'opa.decision_id';
