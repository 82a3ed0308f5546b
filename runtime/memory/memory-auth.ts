import { hash, timingSafeEqual } from 'node:crypto';
import { FrameworkError } from '../core/framework-error.js';

/** The headers of the 401 answer of the token mode. */
export const MEMORY_AUTH_CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="memory"' } as const;

/** The memory service's token check (token mode, `MEMORY_AUTH_TOKENS`), shared by the app and its direct search route. */
export interface MemoryTokenCheck {
  /** False when the service has no tokens: every request is let in, with no owner. */
  readonly required: boolean;
  /**
   * The owner fingerprint of a request's `Authorization` header (records it
   * creates are its own), or undefined when it carries none of the tokens.
   */
  ownerOf(authorization: string | undefined): string | undefined;
}

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * A check of bearer tokens against `tokens`, compared as SHA-256 digests in
 * constant time, so the time taken tells nothing of a token's characters.
 *
 * @example
 * const check = memoryTokenCheck(['s3cret']);
 * check.ownerOf('Bearer s3cret'); // a 32-character hex fingerprint
 * check.ownerOf('Bearer wrong'); // undefined
 */
export function memoryTokenCheck(tokens: readonly string[]): MemoryTokenCheck {
  const known = tokens.map((token) => hash('sha256', token, 'buffer'));
  return {
    required: known.length > 0,
    ownerOf(authorization) {
      const bearer = BEARER.exec(authorization ?? '')?.[1];
      if (bearer === undefined) return undefined;
      const digest = hash('sha256', bearer, 'buffer');
      // Every token is compared, so the time taken does not say which one matched.
      let match = false;
      for (const token of known) match = timingSafeEqual(token, digest) || match;
      return match ? hash('sha256', `memory-owner:${bearer}`, 'hex').slice(0, 32) : undefined;
    },
  };
}

/** The 401 of a request without one of the service's tokens. */
export function memoryUnauthorized(): FrameworkError {
  return new FrameworkError({ code: 'unauthorized', message: "Send Authorization: Bearer with one of the memory service's tokens (MEMORY_AUTH_TOKENS)." });
}
