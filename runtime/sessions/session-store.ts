import type { ContextStore } from '../core/context-store.js';

/** A session as the server keeps it. The token itself is never stored. */
export interface Session {
  contextId: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Milliseconds since the epoch; the session is gone after this instant. */
  expiresAt: number;
}

/** A freshly started session: the only time the plain token is seen. */
export interface StartedSession extends Session {
  /** At least 256 random bits, base64url. */
  token: string;
}

/**
 * Sessions (bearer token → context id), per-conversation context and
 * conversation fingerprints, behind one contract with two backends:
 * `memory` (this process only) and `kv` (Redis, shared by replicas).
 *
 * Failures to reach the backend reject with `StoreUnavailableError`.
 */
export interface SessionStore extends ContextStore {
  readonly backend: 'memory' | 'kv';
  /** Where the store lives, for messages: `memory` or the Redis address without credentials. */
  readonly location: string;
  readonly ttlSeconds: number;

  /**
   * Counts one session start by `client` (an address) in the current minute;
   * `allowed` is false past `perMinute`, with the seconds until the window
   * turns. Replicas sharing a `kv` store share the count.
   */
  admitStart(client: string, perMinute: number): Promise<{ allowed: boolean; retryAfterSeconds: number }>;

  /** Starts a session bound to `contextId` (a fresh random one when omitted). */
  start(options?: { contextId?: string }): Promise<StartedSession>;
  /** The session of a token, or `undefined` when the token is unknown or expired. */
  resolve(token: string): Promise<Session | undefined>;

  /**
   * Conversation fingerprints: maps an opaque key (for example a hash of a chat
   * history) to the context id of the conversation it belongs to, with the
   * store's TTL. Used by the chat-UI compatibility mode.
   */
  rememberConversation(fingerprint: string, contextId: string): Promise<void>;
  findConversation(fingerprint: string): Promise<string | undefined>;

  /** Releases connections and timers. */
  close(): Promise<void>;
}
