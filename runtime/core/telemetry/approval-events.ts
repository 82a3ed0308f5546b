import { context, trace, TraceFlags } from '@opentelemetry/api';
import { activeTraceIds, tracingEnabled } from './tracing.js';
import { DECIDED_BY_ATTRIBUTE } from './span-attributes.js';

/** The span that asked for a decision, kept with the wait (plain JSON: it is stored in the session). */
export interface AskingSpan {
  trace_id: string;
  span_id: string;
}

/** How a wait for a person ended; `modified`: a plan the person changed (a new plan is then proposed). */
export type ApprovalOutcome = 'granted' | 'denied' | 'expired' | 'modified';

/** The span active now, to keep with a wait that starts here; undefined while tracing is off. */
export function askingSpan(): AskingSpan | undefined {
  return activeTraceIds();
}

/**
 * Records on the active span (the request that resumes a wait) how the wait
 * ended: an `approval.granted`, `approval.denied`, `approval.expired` or `approval.modified` event
 * with `framework.decided_by`, the wait in ms and the approval's id, and a
 * link to the span that asked. The wait itself is never a span: it can last
 * hours, between two requests. Nothing while tracing is off.
 */
export function recordApprovalOutcome(options: { outcome: ApprovalOutcome; decidedBy: string; waitMs: number; approvalId: string; asked?: AskingSpan }): void {
  if (!tracingEnabled()) return;
  const span = trace.getSpan(context.active());
  if (span === undefined) return;
  const attributes = {
    [DECIDED_BY_ATTRIBUTE]: options.decidedBy,
    'framework.approval.id': options.approvalId,
    'framework.approval.wait_ms': Math.max(0, Math.round(options.waitMs)),
  };
  if (options.asked) {
    span.addLink({
      context: { traceId: options.asked.trace_id, spanId: options.asked.span_id, traceFlags: TraceFlags.SAMPLED, isRemote: true },
      attributes: { 'framework.link.reason': 'approval.requested', ...attributes },
    });
  }
  span.addEvent(`approval.${options.outcome}`, attributes);
}
