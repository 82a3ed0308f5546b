import { randomUuid } from '../core/random-uuid.js';
import { SessionInvalidError } from '../sessions/errors/session-invalid-error.js';
import type { Session, SessionStore } from '../sessions/session-store.js';

export interface RequestSession {
  contextId: string;
  /** True when the request carried no bearer token: a one-request conversation. */
  anonymous: boolean;
}

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * Resolves the `Authorization` header of a request to its conversation.
 * No header: a fresh anonymous context for this request only. A header that
 * is not a bearer token, or a token that is unknown or expired, throws
 * `SessionInvalidError` (401): never a silent fallback to anonymous.
 */
export async function resolveRequestSession(store: SessionStore, authorization: string | null | undefined): Promise<RequestSession> {
  return requestSession(store, authorization);
}

/**
 * {@link resolveRequestSession} without a promise where none is needed: an
 * anonymous request's session is returned at once (no store call, no
 * promise); a bearer token's is a promise of the store's answer. A header
 * that is not a bearer token throws at once.
 */
export function requestSession(store: SessionStore, authorization: string | null | undefined): RequestSession | Promise<RequestSession> {
  if (authorization === null || authorization === undefined || authorization.trim() === '') {
    return { contextId: randomUuid(), anonymous: true };
  }
  const match = BEARER.exec(authorization);
  if (!match?.[1]) {
    throw new SessionInvalidError({
      message: 'The Authorization header must be "Bearer <session_token>"; get a token from POST /session/start.',
    });
  }
  return store.resolve(match[1]).then(bearerSession);
}

function bearerSession(session: Session | undefined): RequestSession {
  if (!session) throw new SessionInvalidError();
  return { contextId: session.contextId, anonymous: false };
}
