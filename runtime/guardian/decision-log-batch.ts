import { z } from 'zod';
import { AuditEventSchema } from './guardian-responses.js';

/** The most events one `POST /v1/logs` may carry. */
export const DECISION_LOG_BATCH_MAX = 1000;

/**
 * Body of `POST /v1/logs`: decisions agents made in process (A2A_DECISIONS=local),
 * shipped in batches, each an audit event with a `decision_id` (modelled on
 * OPA's decision logs, in the shape of our audit trail).
 */
export const DecisionLogBatchSchema = z.object({
  events: z
    .array(AuditEventSchema.extend({ checked_by: z.enum(['client', 'server']), decision_id: z.string().min(1).max(100) }))
    .max(DECISION_LOG_BATCH_MAX, `at most ${DECISION_LOG_BATCH_MAX} events per batch`),
});
export type DecisionLogBatch = z.infer<typeof DecisionLogBatchSchema>;

/** Answer of `POST /v1/logs`. */
export interface DecisionLogReceipt {
  accepted: number;
}
