import { z } from 'zod';
import { AUDIT_LIST_DEFAULT, AUDIT_LIST_MAX } from './audit-trail.js';
import { parseRequest } from '../core/server/parse-request.js';

/** Query of `GET /v1/audit`: `limit` 1..1000 (default 100), `since` an ISO-8601 instant. */
export const AuditQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d+$/, `must be a whole number from 1 to ${AUDIT_LIST_MAX}`)
    .transform(Number)
    .pipe(z.number().min(1, `must be a whole number from 1 to ${AUDIT_LIST_MAX}`).max(AUDIT_LIST_MAX, `must be a whole number from 1 to ${AUDIT_LIST_MAX}`))
    .default(AUDIT_LIST_DEFAULT),
  since: z.iso
    .datetime({ offset: true, error: 'must be an ISO-8601 timestamp such as 2026-01-01T00:00:00Z' })
    .transform((value) => new Date(value))
    .optional(),
});
export type AuditQuery = z.output<typeof AuditQuerySchema>;

/**
 * Reads `limit` and `since` from query parameters; a bad value is a 400 naming it.
 *
 * @example
 * parseAuditQuery({ query: { limit: '10', since: '2026-01-01T00:00:00Z' } }); // { limit: 10, since: Date }
 */
export function parseAuditQuery(options: { query: Record<string, string | undefined> }): AuditQuery {
  const { limit, since } = options.query;
  return parseRequest({ schema: AuditQuerySchema, raw: { limit, since }, what: 'audit query' });
}
