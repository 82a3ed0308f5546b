import { decodeFields, encodePatch } from './context-values.js';
import { ExpiringMap } from './expiring-map.js';
import type { Session, SessionStore, StartedSession } from './session-store.js';
import { hashToken, isPlausibleToken, mintSession } from './tokens.js';
import { checkTtlSeconds } from './ttl-seconds.js';

export interface InProcessSessionStoreOptions {
  /** Lifetime of a session from its start; also the idle lifetime of contexts and fingerprints. */
  ttlSeconds: number;
  /** Clock in milliseconds since the epoch; default `Date.now`. */
  now?: () => number;
  /** Most entries kept per kind (sessions, contexts, fingerprints); the oldest go first. Default 100 000. */
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
  readonly #sessions: ExpiringMap<Session>;
  /** contextId → (key → JSON value), the same shape as the Redis hash of the kv backend. */
  readonly #contexts: ExpiringMap<Map<string, string>>;
  readonly #conversations: ExpiringMap<string>;
  readonly #sweepTimer: ReturnType<typeof setInterval>;

  constructor(options: InProcessSessionStoreOptions) {
    this.ttlSeconds = checkTtlSeconds(options.ttlSeconds);
    this.#now = options.now ?? Date.now;
    const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#sessions = new ExpiringMap({ maxEntries });
    this.#contexts = new ExpiringMap({ maxEntries });
    this.#conversations = new ExpiringMap({ maxEntries });
    const intervalMs = Math.min(this.ttlSeconds * 1000, MAX_SWEEP_INTERVAL_MS);
    this.#sweepTimer = setInterval(() => this.#sweep(), intervalMs);
    this.#sweepTimer.unref();
  }

  /** How many entries of each kind are held, expired ones not yet swept included. */
  entryCounts(): { sessions: number; contexts: number; conversations: number } {
    return { sessions: this.#sessions.size, contexts: this.#contexts.size, conversations: this.#conversations.size };
  }

  async start(options: { contextId?: string } = {}): Promise<StartedSession> {
    const { session, token, tokenHash } = mintSession({ now: this.#now(), ttlSeconds: this.ttlSeconds, contextId: options.contextId });
    this.#sessions.set(tokenHash, session, session.expiresAt);
    return { ...session, token };
  }

  async resolve(token: string): Promise<Session | undefined> {
    if (!isPlausibleToken(token)) return undefined;
    const session = this.#sessions.get(hashToken(token), this.#now());
    return session === undefined ? undefined : { ...session };
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

  async rememberConversation(fingerprint: string, contextId: string): Promise<void> {
    this.#conversations.set(fingerprint, contextId, this.#now() + this.ttlSeconds * 1000);
  }

  async findConversation(fingerprint: string): Promise<string | undefined> {
    return this.#conversations.get(fingerprint, this.#now());
  }

  async close(): Promise<void> {
    clearInterval(this.#sweepTimer);
  }

  #sweep(): void {
    const now = this.#now();
    this.#sessions.sweep(now);
    this.#contexts.sweep(now);
    this.#conversations.sweep(now);
  }
}
