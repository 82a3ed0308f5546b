import { z } from 'zod';
import { isPlainObject, parseJsonOrUndefined } from '../core/json.js';
import type { Session } from './session-store.js';

/** A session as the kv store keeps it, JSON in one Redis string: the wire shape {@link parseStoredSession} checks. */
export const StoredSessionSchema = z.object({
  contextId: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
});

/**
 * A stored session record read back, or `undefined` when it is not one:
 * what `StoredSessionSchema.safeParse` accepts, checked by hand (every bearer
 * request reads one; zod's parse costs more than the rest of resolving it).
 * Extra keys are dropped, as the schema drops them; a number JSON cannot
 * hold (`1e999` parses to Infinity) or a value of the wrong type rejects the
 * record. The tests hold the two to the same answers on hostile records.
 */
export function parseStoredSession(raw: string): Session | undefined {
  const value = parseJsonOrUndefined(raw);
  if (!isPlainObject(value)) return undefined;
  const { contextId, createdAt, expiresAt } = value;
  if (typeof contextId !== 'string' || typeof createdAt !== 'number' || typeof expiresAt !== 'number') return undefined;
  if (!Number.isFinite(createdAt) || !Number.isFinite(expiresAt)) return undefined;
  return { contextId, createdAt, expiresAt };
}
