import type { Attributes } from '@opentelemetry/api';
import { counter } from './service-metrics.js';
import { DECIDED_BY_ATTRIBUTE, DECISION_ATTRIBUTE, DECISION_REASONS_ATTRIBUTE, POLICY_REVISION_ATTRIBUTE } from './span-attributes.js';

/**
 * The attributes of a policy decision (Guardian, tool gate, A2A validator), as
 * `trace` shows and backends filter them; the decision is also counted in
 * `decisions_total`.
 */
export function decisionAttributes(decision: {
  result: 'allow' | 'deny' | 'require_approval';
  reasons?: readonly string[];
  decidedBy?: string;
  revision?: number | string;
}): Attributes {
  countDecision(decision.result, decision.decidedBy ?? 'unknown');
  return {
    [DECISION_ATTRIBUTE]: decision.result,
    ...(decision.reasons && decision.reasons.length > 0 ? { [DECISION_REASONS_ATTRIBUTE]: decision.reasons.join('; ').slice(0, 512) } : {}),
    ...(decision.decidedBy ? { [DECIDED_BY_ATTRIBUTE]: decision.decidedBy } : {}),
    ...(decision.revision !== undefined ? { [POLICY_REVISION_ATTRIBUTE]: decision.revision } : {}),
  };
}

/** Every decision made in this process, by result and by who made it (`decisions_total` on /metrics). */
const decisions = () =>
  counter('decisions_total', 'Access and tool decisions made, by result (allow, deny, require_approval) and decided_by.', ['result', 'decided_by']);

/**
 * The counter's child per (result, decided_by), made once: prom-client's
 * `labels()` validates and copies the label set on every call, two of them
 * per agent-to-agent hop. `decided_by` is a checker kind (a handful of names).
 */
const decisionCounters = new Map<string, { inc(): void }>();
function countDecision(result: string, decidedBy: string): void {
  const id = `${result}\u0000${decidedBy}`;
  let child = decisionCounters.get(id);
  if (child === undefined) {
    child = decisions().labels(result, decidedBy);
    decisionCounters.set(id, child);
  }
  child.inc();
}
