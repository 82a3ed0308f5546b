import { FrameworkError } from './framework-error.js';

/**
 * What a client may be told about any thrown value: our own errors keep their
 * code and message; anything else becomes a generic internal error (the
 * details go to the log, not to the client).
 */
export function toPublicError(error: unknown): { code: string; message: string } {
  if (FrameworkError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: 'internal_error', message: 'The agent failed while handling the request; see the agent log.' };
}
