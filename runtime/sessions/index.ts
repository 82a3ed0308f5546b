export type { Session, SessionStore, StartedSession } from './session-store.js';
export { MemorySessionStore, type MemorySessionStoreOptions } from './memory-session-store.js';
export { KvSessionStore, type KvSessionStoreOptions } from './kv-session-store.js';
export { createSessionStore, type SessionStoreConfig } from './create-session-store.js';
export { generateToken, hashToken, isPlausibleToken, TOKEN_BYTES } from './tokens.js';
