import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { Session } from './session-store.js';

/** Random bytes in a session token (256 bits). */
export const TOKEN_BYTES = 32;

/** Anything longer than this cannot be one of our tokens and is not hashed. */
const MAX_TOKEN_LENGTH = 256;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+$/;

/** A fresh session token: 32 random bytes as base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/** The SHA-256 of a token as hex: the only form of a token a store keeps. */
export function hashToken(token: string): string {
  // The one-shot `hash` makes no Hash object: a third of the cost of createHash().update().digest() per request.
  return hash('sha256', token, 'hex');
}

/**
 * A cheap check before hashing: true when `token` could be one of ours
 * (base64url characters, at most 256 of them). Callers treat `false` as an
 * unknown token.
 */
export function isPlausibleToken(token: unknown): token is string {
  return typeof token === 'string' && token.length <= MAX_TOKEN_LENGTH && TOKEN_SHAPE.test(token);
}

/**
 * A new session and its token, for a store to save under `tokenHash` (the
 * plain token is handed to the client once and never stored).
 */
export function mintSession(options: { now: number; ttlSeconds: number; contextId?: string }): {
  session: Session;
  token: string;
  tokenHash: string;
} {
  const token = generateToken();
  const session: Session = {
    contextId: options.contextId ?? randomUUID(),
    createdAt: options.now,
    expiresAt: options.now + options.ttlSeconds * 1000,
  };
  return { session, token, tokenHash: hashToken(token) };
}
