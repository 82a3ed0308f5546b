import type { Redis } from 'ioredis';
import { ConfigError } from '../core/errors/config-error.js';
import { clientLocation, closeKvClient, createKvClient, kvCall, redactUrl } from '../core/kv-client.js';
import { KvGetConnection, kvGetTarget } from '../core/kv-get-connection.js';
import { StoreUnavailableError } from '../core/errors/store-unavailable-error.js';
import { decodeFields, encodePatch } from './context-values.js';
import type { Session, SessionStore, StartedSession } from './session-store.js';
import { hashToken, isPlausibleToken, mintSession } from './tokens.js';
import { checkTtlSeconds } from './ttl-seconds.js';
import { WAIT_KINDS, waitEndsAt, waitKindOf, type WaitKind } from './pending-waits.js';
import { countSessionStore } from './session-metrics.js';
import { parseStoredSession } from './stored-session.js';

export interface KvSessionStoreOptions {
  /** Redis URL; the store creates (and on `close()` closes) its own client. */
  url?: string;
  /** An existing client to use instead of `url`; the caller keeps ownership of it. */
  client?: Redis;
  /** Lifetime of a session from its start; also the idle lifetime of contexts and fingerprints. */
  ttlSeconds: number;
  /** Prefix of every key the store writes; default `fw:`. */
  keyPrefix?: string;
  /** Clock in milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
}

/** Deletes field ARGV[1] of hash KEYS[1] when it equals ARGV[2]; returns 1 when it did. */
const CLAIM_FIELD = "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) return 1 end return 0";
/** As CLAIM_FIELD, and also removes member ARGV[3] from the sorted set KEYS[2] (the index of pending waits). */
const CLAIM_WAIT =
  "if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) redis.call('ZREM', KEYS[2], ARGV[3]) return 1 end return 0";

/**
 * A `SessionStore` in Redis, shared by every replica that uses the same
 * Redis and key prefix. Keys expire with the store's TTL in Redis itself.
 * Only token hashes are stored; a context is a Redis hash (one JSON field per
 * key), so concurrent updates of different keys never overwrite each other.
 *
 * Every call rejects with `StoreUnavailableError` while Redis is unreachable
 * (within the client's command timeout) and works again once it is back.
 *
 * For the gauges (`sessions_active`, `approvals_pending`), sessions and waits
 * for a person are also indexed in sorted sets scored by their expiry,
 * written in the same transaction as the value (no added round trip; a
 * resolve writes nothing) and counted with ZCOUNT when /metrics is read.
 */
export class KvSessionStore implements SessionStore {
  readonly backend = 'kv' as const;
  readonly location: string;
  readonly ttlSeconds: number;

  readonly #client: Redis;
  readonly #ownsClient: boolean;
  /** The bearer lookup's own connection (a plain `redis://` URL only; otherwise the lookup goes through `#client`). */
  readonly #sessionReader: KvGetConnection | undefined;
  readonly #prefix: string;
  readonly #now: () => number;
  readonly #uncount: () => void;

  constructor(options: KvSessionStoreOptions) {
    this.ttlSeconds = checkTtlSeconds(options.ttlSeconds);
    this.#prefix = options.keyPrefix ?? 'fw:';
    this.#now = options.now ?? Date.now;
    if (options.client !== undefined) {
      this.#client = options.client;
      this.#ownsClient = false;
      this.location = clientLocation(options.client, options.url);
    } else if (options.url !== undefined) {
      // The commands of one turn (context writes of concurrent requests) share one write.
      this.#client = createKvClient({ url: options.url, autoPipelining: true });
      this.#ownsClient = true;
      this.location = redactUrl(options.url);
      const target = kvGetTarget(options.url);
      if (target) this.#sessionReader = new KvGetConnection(target);
    } else {
      throw new ConfigError({
        issues: [{ variable: 'SESSION_KV_URL or options.url', message: 'is required for the kv session store' }],
      });
    }
    this.#uncount = countSessionStore({
      backend: this.backend,
      sharedState: `kv:${this.location}|${this.#prefix}`,
      liveSessions: () => this.liveSessionCount(),
      pendingWaits: () => this.pendingWaitCount(),
    });
  }

  /** Sessions not expired now, of every replica on this Redis and prefix (expired index entries are dropped first). */
  async liveSessionCount(): Promise<number> {
    return this.#countLive(this.#key('index', 'sessions'));
  }

  /** Waits for a person (a paused tool call, a plan to confirm) not decided nor expired now, of every replica, by kind. */
  async pendingWaitCount(): Promise<Record<WaitKind, number>> {
    const counts = await Promise.all(WAIT_KINDS.map((kind) => this.#countLive(this.#key('index', `waits:${kind}`))));
    return Object.fromEntries(WAIT_KINDS.map((kind, i) => [kind, counts[i]!])) as Record<WaitKind, number>;
  }

  async #countLive(index: string): Promise<number> {
    const now = this.#now();
    return this.#call(async (client) => {
      const [[, counted]] = (await client.multi().zcount(index, now, '+inf').zremrangebyscore(index, '-inf', `(${now}`).exec()) as [[unknown, number], unknown];
      return counted;
    });
  }

  async admitStart(client: string, perMinute: number): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
    if (perMinute <= 0) return { allowed: true, retryAfterSeconds: 0 };
    const now = this.#now();
    const window = Math.floor(now / 60_000);
    const key = this.#key('session-starts', `${window}:${client}`);
    // One count per client and minute, shared by every replica on this Redis.
    const count = await this.#call(async (client) => {
      const [[, counted]] = (await client.multi().incr(key).expire(key, 120).exec()) as [[unknown, number], unknown];
      return counted;
    });
    return count <= perMinute
      ? { allowed: true, retryAfterSeconds: 0 }
      : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(((window + 1) * 60_000 - now) / 1000)) };
  }

  async start(options: { contextId?: string } = {}): Promise<StartedSession> {
    const { session, token, tokenHash } = mintSession({ now: this.#now(), ttlSeconds: this.ttlSeconds, contextId: options.contextId });
    const key = this.#key('session', tokenHash);
    const index = this.#key('index', 'sessions');
    // One transaction, one round trip: the session, its place in the index the gauge counts, and the index's expired entries dropped.
    await this.#call(async (client) =>
      lastReply(
        await client
          .multi()
          .set(key, JSON.stringify(session), 'EX', this.ttlSeconds)
          .zadd(index, session.expiresAt, tokenHash)
          .zremrangebyscore(index, '-inf', `(${this.#now()}`)
          .expire(index, this.ttlSeconds)
          .exec(),
      ),
    );
    return { ...session, token };
  }

  async resolve(token: string): Promise<Session | undefined> {
    if (!isPlausibleToken(token)) return undefined;
    const key = this.#key('session', hashToken(token));
    const raw = await this.#readSession(key);
    const session = raw === null ? undefined : parseStoredSession(raw);
    // Redis expires the key; the check also covers a skewed or injected clock.
    return session !== undefined && this.#now() <= session.expiresAt ? session : undefined;
  }

  async getContext(contextId: string): Promise<Record<string, unknown>> {
    const key = this.#key('context', contextId);
    const fields = await this.#call((client) => client.hgetall(key));
    return decodeFields(Object.entries(fields));
  }

  async updateContext(contextId: string, patch: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
    // Encoded before any call, so a value JSON cannot encode throws a TypeError, not a store error.
    const { set, remove } = encodePatch(patch);
    const key = this.#key('context', contextId);
    const contextExpiresAt = this.#now() + this.ttlSeconds * 1000;
    const fields = await this.#call(async (client) => {
      const tx = client.multi();
      if (set.length > 0) tx.hset(key, new Map(set));
      if (remove.length > 0) tx.hdel(key, ...remove);
      tx.expire(key, this.ttlSeconds);
      // A wait for a person set or removed here is indexed for approvals_pending in the same transaction.
      for (const [field, json] of set) {
        const kind = waitKindOf(field);
        if (kind === undefined) continue;
        const index = this.#key('index', `waits:${kind}`);
        tx.zadd(index, waitEndsAt(json, contextExpiresAt), contextId);
        tx.expire(index, this.ttlSeconds);
      }
      for (const field of remove) {
        const kind = waitKindOf(field);
        if (kind !== undefined) tx.zrem(this.#key('index', `waits:${kind}`), contextId);
      }
      tx.hgetall(key);
      return lastReply(await tx.exec());
    });
    return decodeFields(Object.entries(fields as Record<string, string>));
  }

  async claimContextValue(contextId: string, key: string, expected: unknown): Promise<boolean> {
    const json = JSON.stringify(expected);
    if (json === undefined) return false;
    const contextKey = this.#key('context', contextId);
    const kind = waitKindOf(key);
    // Compare-and-delete in one script: Redis runs it whole, so two replicas cannot both claim.
    const removed = await this.#call((client) =>
      kind === undefined
        ? client.eval(CLAIM_FIELD, 1, contextKey, key, json)
        : client.eval(CLAIM_WAIT, 2, contextKey, this.#key('index', `waits:${kind}`), key, json, contextId),
    );
    return removed === 1;
  }

  async rememberConversation(fingerprint: string, contextId: string): Promise<void> {
    const key = this.#key('conv', fingerprint);
    await this.#call((client) => client.set(key, contextId, 'EX', this.ttlSeconds));
  }

  async findConversation(fingerprint: string): Promise<string | undefined> {
    const key = this.#key('conv', fingerprint);
    return (await this.#call((client) => client.get(key))) ?? undefined;
  }

  async close(): Promise<void> {
    this.#uncount();
    this.#sessionReader?.close();
    if (this.#ownsClient) await closeKvClient(this.#client);
  }

  /**
   * The stored session under `key`, read by every bearer request: through the
   * store's own `GET` connection when it has one (ioredis's command, pipeline
   * and promise objects cost a bearer request of the front door about 20 µs of
   * CPU, most of the lookup), else through the client. Never cached: a session
   * deleted or expired in Redis is refused by the next lookup.
   */
  #readSession(key: string): Promise<string | null> {
    const reader = this.#sessionReader;
    if (!reader) return this.#call((client) => client.get(key));
    return reader.get(key).catch((error: unknown) => {
      throw new StoreUnavailableError({ store: this.location, cause: error });
    });
  }

  #key(kind: 'session' | 'context' | 'conv' | 'session-starts' | 'index', id: string): string {
    return `${this.#prefix}${kind}:${id}`;
  }

  #call<T>(call: (client: Redis) => Promise<T>): Promise<T> {
    return kvCall(this.location, this.#client, call);
  }
}

/** The reply of the last command of a transaction; throws the first command error. */
function lastReply(replies: Array<[error: Error | null, result: unknown]> | null): unknown {
  if (replies === null) throw new Error('The Redis transaction was aborted.');
  for (const [error] of replies) if (error) throw error;
  return replies.at(-1)?.[1];
}
