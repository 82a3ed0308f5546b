import { FrameworkError } from '../../core/framework-error.js';

/** A bearer token that is unknown or whose session expired. */
export class SessionInvalidError extends FrameworkError {
  constructor(options: { message?: string } = {}) {
    super({
      code: 'session_invalid',
      message:
        options.message ??
        'The session token is unknown or has expired. Start a new session with POST /session/start and send its session_token as "Authorization: Bearer <token>".',
    });
  }
}
