import type { ChainableCommander, Redis } from 'ioredis';
import { parseJsonOrUndefined } from '../core/json.js';
import type { SessionRef } from './working-memory.js';

/**
 * The index of working-memory sessions in Redis, so a session can be found
 * by its id alone (as AMS resolves it through its RediSearch index) and
 * listed by namespace and user (`GET /v1/working-memory/`). Plain Redis 7:
 *
 * - `<base>wm-index`: sorted set of every session, member `[namespace, user, session]`
 *   (JSON), score the time it was first written (ms), so listing is stable;
 * - `<base>wm-sid:<session>`: set of the `[namespace, user]` scopes holding that session id.
 *
 * In token mode each owner (token fingerprint) has its own pair
 * (`wm-index@<owner>`, `wm-sid@<owner>:<session>`): a token lists and finds
 * only its own sessions.
 *
 * A session whose working memory expired (TTL) stays in the index until a
 * lookup or a listing notices its key is gone and removes it.
 */
export interface SessionIndexKeys {
  sessionIndex(owner: string | undefined): string;
  sessionScopes(sessionId: string, owner: string | undefined): string;
  working(ref: SessionRef): string;
}

/** A session as the index holds it; null for no namespace / no user. */
export interface IndexedSession {
  sessionId: string;
  namespace: string | null;
  userId: string | null;
}

const member = (ref: SessionRef) => JSON.stringify([ref.namespace ?? null, ref.userId ?? null, ref.sessionId]);
const scopeMember = (ref: SessionRef) => JSON.stringify([ref.namespace ?? null, ref.userId ?? null]);

function parseMember(raw: string): IndexedSession | undefined {
  const value = parseJsonOrUndefined(raw);
  if (!Array.isArray(value) || value.length !== 3 || typeof value[2] !== 'string') return undefined;
  const [namespace, userId, sessionId] = value as [unknown, unknown, string];
  return { sessionId, namespace: typeof namespace === 'string' ? namespace : null, userId: typeof userId === 'string' ? userId : null };
}

const toRef = (s: IndexedSession, owner: string | undefined): SessionRef => ({
  sessionId: s.sessionId,
  namespace: s.namespace ?? undefined,
  userId: s.userId ?? undefined,
  owner,
});

/** Queues the index entries of a session being written (kept with its first-write time). */
export function queueIndexSession(pipeline: ChainableCommander, keys: SessionIndexKeys, ref: SessionRef, nowMs: number): void {
  pipeline.zadd(keys.sessionIndex(ref.owner), 'NX', nowMs, member(ref));
  pipeline.sadd(keys.sessionScopes(ref.sessionId, ref.owner), scopeMember(ref));
}

/** Queues the removal of a session's index entries. */
export function queueUnindexSession(pipeline: ChainableCommander, keys: SessionIndexKeys, ref: SessionRef): void {
  pipeline.zrem(keys.sessionIndex(ref.owner), member(ref));
  pipeline.srem(keys.sessionScopes(ref.sessionId, ref.owner), scopeMember(ref));
}

/** Drops the index entries of sessions whose working memory is gone (expired); answers the live ones. */
async function live(client: Redis, keys: SessionIndexKeys, sessions: IndexedSession[], owner: string | undefined): Promise<IndexedSession[]> {
  if (sessions.length === 0) return [];
  const pipeline = client.pipeline();
  for (const s of sessions) pipeline.exists(keys.working(toRef(s, owner)));
  const replies = (await pipeline.exec()) ?? [];
  const alive: IndexedSession[] = [];
  const dead = client.pipeline();
  let deadCount = 0;
  sessions.forEach((s, i) => {
    const [error, exists] = replies[i] ?? [null, 0];
    if (error) throw error;
    if (exists === 1) alive.push(s);
    else {
      queueUnindexSession(dead, keys, toRef(s, owner));
      deadCount++;
    }
  });
  if (deadCount > 0) await dead.exec();
  return alive;
}

/**
 * The sessions of `ref.owner` stored under `sessionId` whose namespace and
 * user match the given ones (an absent one matches any), as AMS's index lookup.
 */
export async function findSessions(client: Redis, keys: SessionIndexKeys, ref: SessionRef): Promise<SessionRef[]> {
  const scopes = await client.smembers(keys.sessionScopes(ref.sessionId, ref.owner));
  const candidates = scopes
    .map((raw) => {
      const scope = parseJsonOrUndefined(raw);
      return Array.isArray(scope) ? parseMember(JSON.stringify([scope[0] ?? null, scope[1] ?? null, ref.sessionId])) : undefined;
    })
    .filter((s): s is IndexedSession => s !== undefined)
    .filter((s) => (ref.namespace === undefined || s.namespace === ref.namespace) && (ref.userId === undefined || s.userId === ref.userId));
  return (await live(client, keys, candidates, ref.owner)).map((s) => toRef(s, ref.owner));
}

/**
 * One page of the session ids of `options.owner` (oldest first) with the
 * number of sessions that match in all, filtered by namespace and user when
 * given (AMS `GET /v1/working-memory/`).
 */
export async function listSessions(
  client: Redis,
  keys: SessionIndexKeys,
  options: { namespace?: string | undefined; userId?: string | undefined; owner?: string | undefined; limit: number; offset: number },
): Promise<{ total: number; sessions: IndexedSession[] }> {
  const all = (await client.zrange(keys.sessionIndex(options.owner), 0, -1)).map(parseMember).filter((s): s is IndexedSession => s !== undefined);
  const matching = all.filter(
    (s) => (options.namespace === undefined || s.namespace === options.namespace) && (options.userId === undefined || s.userId === options.userId),
  );
  const alive = await live(client, keys, matching, options.owner);
  return { total: alive.length, sessions: alive.slice(options.offset, options.offset + options.limit) };
}
