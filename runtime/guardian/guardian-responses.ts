import { z } from 'zod';
import type { AccessDecision } from '../a2a/access-decision.js';
import type { AuditEvent } from '../a2a/audit-log.js';

/** Answer of `POST /v1/a2a/validate`. */
export const ValidateResponseSchema = z.object({
  allowed: z.boolean(),
  reason: z.string(),
}) satisfies z.ZodType<AccessDecision>;

/** One event of `GET /v1/audit`. */
export const AuditEventSchema = z.object({
  timestamp: z.string(),
  source: z.string(),
  target: z.string(),
  decision: z.enum(['allowed', 'denied', 'skipped', 'signature_failure']),
  reason: z.string(),
  message_sha256: z.string(),
  checked_by: z.enum(['client', 'server', 'guardian']),
  decision_id: z.string().min(1).max(100).optional(),
}) satisfies z.ZodType<AuditEvent>;

/** Answer of `GET /v1/audit`: newest last. */
export const AuditListResponseSchema = z.object({ events: z.array(AuditEventSchema) });
export type AuditListResponse = z.infer<typeof AuditListResponseSchema>;

/** Answer of `GET /health` (200 when up, 503 when degraded). */
export const GuardianHealthSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('ok'), policy_engine: z.literal('up') }),
  z.object({ status: z.literal('degraded'), policy_engine: z.literal('down'), policy_url: z.string() }),
]);
export type GuardianHealth = z.infer<typeof GuardianHealthSchema>;

/** Where the Guardian serves the policies it decides with, for agents that evaluate them in process. */
export const POLICY_BUNDLE_PATH = '/v1/bundles/policies';

/** The same bundle under the name the A2A agents use. */
export const A2A_BUNDLE_PATH = '/v1/bundles/a2a';

/** Where agents send the decisions they made in process (`{events: [...]}`, see `DecisionLogBatchSchema`). */
export const DECISION_LOG_PATH = '/v1/logs';
