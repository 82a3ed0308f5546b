import { randomUUID } from 'node:crypto';
import { decodeFields, encodePatch } from './context-values.js';
import { ExpiringMap } from './expiring-map.js';
import type { Session, SessionStore, StartedSession } from './session-store.js';
import { hashToken, isPlausibleToken, mintSession } from './tokens.js';
import { checkTtlSeconds } from './ttl-seconds.js';
import { WAIT_KINDS, waitEndsAt, waitKindOf, type WaitKind } from './pending-waits.js';
import { countSessionStore } from './session-metrics.js';

export interface InProcessSessionStoreOptions {
  /** Lifetime of a session from its start; also the idle lifetime of contexts and fingerprints. */
  ttlSeconds: number;
  /** Clock in milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /**
   * Most entries kept per kind (sessions, contexts, fingerprints). Past it the
   * oldest go first, and for sessions the oldest never used (resolved) go
   * before any in use, so a flood of starts cannot log users out. Default 100 000.
   */
  maxEntries?: number;
}

const DEFAULT_MAX_ENTRIES = 100_000;
const MAX_SWEEP_INTERVAL_MS = 60_000;

/**
 * A `SessionStore` in this process's memory: sessions are lost on restart
 * and not shared between replicas. Only token hashes are kept. Memory is
 * bounded by `maxEntries`; expired entries go on access and by a periodic
 * sweep that does not keep the process alive. Call `close()` to stop it.
 */
export class InProcessSessionStore implements SessionStore {
  readonly backend = 'memory' as const;
  readonly location = 'memory';
  readonly ttlSeconds: number;

  readonly #now: () => number;
  /** Sessions never resolved yet, and sessions in use: eviction takes from the first while it has any. */
  readonly #fresh: ExpiringMap<Session>;
  readonly #used: ExpiringMap<Session>;
  readonly #maxSessions: number;
  /** client → [window start, starts counted in it] */
  readonly #starts: ExpiringMap<[number, number]>;
  /** contextId → (key → JSON value), the same shape as the Redis hash of the kv backend. */
  readonly #contexts: ExpiringMap<Map<string, string>>;
  readonly #conversations: ExpiringMap<string>;
  readonly #sweepTimer: ReturnType<typeof setInterval>;
  readonly #uncount: () => void;

  constructor(options: InProcessSessionStoreOptions) {
    this.ttlSeconds = checkTtlSeconds(options.ttlSeconds);
    this.#now = options.now ?? Date.now;
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#maxSessions = maxEntries;
    this.#fresh = new ExpiringMap({ maxEntries });
    this.#used = new ExpiringMap({ maxEntries });
    this.#starts = new ExpiringMap({ maxEntries });
    this.#contexts = new ExpiringMap({ maxEntries });
    this.#conversations = new ExpiringMap({ maxEntries });
    const intervalMs = Math.min(this.ttlSeconds * 1000, MAX_SWEEP_INTERVAL_MS);
    this.#sweepTimer = setInterval(() => this.#sweep(), intervalMs);
    this.#sweepTimer.unref();
    this.#uncount = countSessionStore({
      backend: this.backend,
      sharedState: `memory:${randomUUID()}`,
      liveSessions: async () => this.liveSessionCount(),
      pendingWaits: async () => this.pendingWaitCount(),
    });
  }

  /** Sessions not expired now (expired ones are swept first). */
  liveSessionCount(): number {
    const now = this.#now();
    this.#fresh.sweep(now);
    this.#used.sweep(now);
    return this.#fresh.size + this.#used.size;
  }

  /** Waits for a person (a paused tool call, a plan to confirm) held in contexts and not expired now, by kind. */
  pendingWaitCount(): Record<WaitKind, number> {
    const now = this.#now();
    const counts = Object.fromEntries(WAIT_KINDS.map((kind) => [kind, 0])) as Record<WaitKind, number>;
    for (const [, fields, contextExpiresAt] of this.#contexts.live(now)) {
      for (const [key, json] of fields) {
        const kind = waitKindOf(key);
        if (kind !== undefined && now <= waitEndsAt(json, contextExpiresAt)) counts[kind] += 1;
      }
    }
    return counts;
  }

  /** How many entries of each kind are held, expired ones not yet swept included. */
  entryCounts(): { sessions: number; contexts: number; conversations: number } {
    return { sessions: this.#fresh.size + this.#used.size, contexts: this.#contexts.size, conversations: this.#conversations.size };
  }

  async admitStart(client: string, perMinute: number): Promise<{ allowed: boolean; retryAfterSeconds: number }> {
    if (perMinute <= 0) return { allowed: true, retryAfterSeconds: 0 };
    const now = this.#now();
    const window = Math.floor(now / 60_000) * 60_000;
    const [start, count] = this.#starts.get(client, now) ?? [window, 0];
    const counted = start === window ? count + 1 : 1;
    this.#starts.set(client, [window, counted], window + 60_000);
    return counted <= perMinute
      ? { allowed: true, retryAfterSeconds: 0 }
      : { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((window + 60_000 - now) / 1000)) };
  }

  async start(options: { contextId?: string } = {}): Promise<StartedSession> {
    const now = this.#now();
    const { session, token, tokenHash } = mintSession({ now, ttlSeconds: this.ttlSeconds, contextId: options.contextId });
    this.#fresh.set(tokenHash, session, session.expiresAt);
    // Over the bound: never-used sessions go first (the fresh map already dropped its own oldest), then the oldest in use.
    while (this.#fresh.size + this.#used.size > this.#maxSessions) {
      // Keep the session just made: with no other fresh one, the oldest in use goes.
      if (this.#fresh.size > 1) this.#fresh.evictOldest();
      else this.#used.evictOldest();
    }
    return { ...session, token };
  }

  async resolve(token: string): Promise<Session | undefined> {
    if (!isPlausibleToken(token)) return undefined;
    const hash = hashToken(token);
    const now = this.#now();
    let session = this.#used.get(hash, now);
    if (session === undefined) {
      session = this.#fresh.get(hash, now);
      if (session === undefined) return undefined;
      this.#fresh.delete(hash);
      this.#used.set(hash, session, session.expiresAt);
    }
    return { ...session };
  }

  async getContext(contextId: string): Promise<Record<string, unknown>> {
    const fields = this.#contexts.get(contextId, this.#now());
    return fields === undefined ? {} : decodeFields(fields);
  }

  async updateContext(contextId: string, patch: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const { set, remove } = encodePatch(patch);
    const now = this.#now();
    const fields = this.#contexts.get(contextId, now) ?? new Map<string, string>();
    for (const [key, json] of set) fields.set(key, json);
    for (const key of remove) fields.delete(key);
    // Like a Redis hash, a context without fields does not exist.
    if (fields.size === 0) this.#contexts.delete(contextId);
    else this.#contexts.set(contextId, fields, now + this.ttlSeconds * 1000);
    return decodeFields(fields);
  }

  async claimContextValue(contextId: string, key: string, expected: unknown): Promise<boolean> {
    const fields = this.#contexts.get(contextId, this.#now());
    if (fields === undefined || fields.get(key) !== JSON.stringify(expected)) return false;
    fields.delete(key);
    if (fields.size === 0) this.#contexts.delete(contextId);
    return true;
  }

  async rememberConversation(fingerprint: string, contextId: string): Promise<void> {
    this.#conversations.set(fingerprint, contextId, this.#now() + this.ttlSeconds * 1000);
  }

  async findConversation(fingerprint: string): Promise<string | undefined> {
    return this.#conversations.get(fingerprint, this.#now());
  }

  async close(): Promise<void> {
    this.#uncount();
    clearInterval(this.#sweepTimer);
  }

  #sweep(): void {
    const now = this.#now();
    this.#fresh.sweep(now);
    this.#used.sweep(now);
    this.#starts.sweep(now);
    this.#contexts.sweep(now);
    this.#conversations.sweep(now);
  }
}
