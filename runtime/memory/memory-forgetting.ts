import { z } from 'zod';
import { rerankWithRecency, type RecencyParams } from './memory-ranking.js';
import { IdentifierSchema, ScopeSchema, type MemoryRecord } from './memory-records.js';

/**
 * AMS's forgetting (`POST /v1/long-term-memory/forget`,
 * `long_term_memory.select_ids_for_forgetting`): a policy of age,
 * inactivity, a budget of memories to keep and the memory types it may
 * touch, applied to the memories of a scope; pinned memories and
 * `pinned_ids` are never forgotten.
 */

const Days = z.number({ error: 'must be a number of days' }).nonnegative('must not be negative').nullable().optional();

/** AMS's forget policy (a dict there; its keys checked here, an unknown key refused). */
export const ForgetPolicySchema = z.strictObject({
  /** Forget memories created more than this many days ago. */
  max_age_days: Days,
  /** Forget memories not accessed for this many days. */
  max_inactive_days: Days,
  /** Keep at most this many memories (the most recent by AMS's recency score), forget the rest. */
  budget: z.number({ error: 'must be a whole number' }).int('must be a whole number').min(0).nullable().optional(),
  /** Only memories of these types may be forgotten. */
  memory_type_allowlist: z.array(z.string().min(1)).nullable().optional(),
  /** With both age and inactivity: memories older than max_age_days × this are forgotten even when recently accessed (AMS: 12). */
  hard_age_multiplier: z.number().positive().optional(),
});
export type ForgetPolicy = z.output<typeof ForgetPolicySchema>;

/** The body of `POST /v1/long-term-memory/forget` (FastAPI's two body parameters). */
export const ForgetRequestSchema = z.strictObject({
  policy: ForgetPolicySchema,
  pinned_ids: z.array(IdentifierSchema).nullable().optional(),
});

/** Its query string: the scope, how many memories to scan (AMS: 1000) and `dry_run` (AMS's default: true). */
export const ForgetQuerySchema = z.strictObject({
  namespace: ScopeSchema,
  user_id: ScopeSchema,
  session_id: ScopeSchema,
  limit: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1).max(100_000).default(1000),
  dry_run: z
    .enum(['true', 'false', 'True', 'False', '1', '0'], { error: 'must be true or false' })
    .optional()
    .transform((value) => value === undefined || value === 'true' || value === 'True' || value === '1'),
});

/** AMS's `ForgetResponse`: `deleted` is the number selected on a dry run. */
export interface ForgetResponse {
  scanned: number;
  deleted: number;
  deleted_ids: string[];
  dry_run: boolean;
}

/** The recency AMS ranks a budget by: recency only. */
const BUDGET_RECENCY: RecencyParams = {
  semanticWeight: 0,
  recencyWeight: 1,
  freshnessWeight: 0.6,
  noveltyWeight: 0.4,
  halfLifeLastAccessDays: 7,
  halfLifeCreatedDays: 30,
};

const DAY_MS = 86_400_000;

/**
 * The ids to forget among `records` under `policy` (AMS's
 * `select_ids_for_forgetting`): with both max_age_days and
 * max_inactive_days a memory goes when it is older than the age and
 * inactive past the inactivity (or older than the age × hard multiplier);
 * with one of them, when it passes that one; the rest, beyond the `budget`
 * most recent, go too.
 *
 * @example
 * selectIdsForForgetting({ records, policy: { max_age_days: 30 }, now: new Date() }); // ids of records created over 30 days ago
 */
export function selectIdsForForgetting(options: {
  records: readonly MemoryRecord[];
  policy: ForgetPolicy;
  now: Date;
  pinnedIds?: ReadonlySet<string>;
}): string[] {
  const { policy, now } = options;
  const maxAge = policy.max_age_days ?? undefined;
  const maxInactive = policy.max_inactive_days ?? undefined;
  const hard = policy.hard_age_multiplier ?? 12;
  const allow = policy.memory_type_allowlist ? new Set(policy.memory_type_allowlist) : undefined;
  const days = (iso: string) => (now.getTime() - Date.parse(iso)) / DAY_MS;
  const forget = new Set<string>();
  const eligible: MemoryRecord[] = [];
  for (const record of options.records) {
    if (record.pinned || options.pinnedIds?.has(record.id)) continue;
    if (allow && !allow.has(record.memory_type)) continue;
    const age = days(record.created_at);
    const inactive = days(record.last_accessed);
    if (maxAge !== undefined && maxInactive !== undefined) {
      if (age > maxAge * hard || (age > maxAge && inactive > maxInactive)) {
        forget.add(record.id);
        continue;
      }
    } else if ((maxAge !== undefined && age > maxAge) || (maxInactive !== undefined && inactive > maxInactive)) {
      forget.add(record.id);
      continue;
    }
    eligible.push(record);
  }
  const budget = policy.budget ?? undefined;
  if (budget !== undefined && budget < eligible.length) {
    const ranked = rerankWithRecency(
      eligible.map((record) => ({ ...record, dist: 0 })),
      now,
      BUDGET_RECENCY,
    );
    for (const record of ranked.slice(budget)) forget.add(record.id);
  }
  return [...forget];
}
