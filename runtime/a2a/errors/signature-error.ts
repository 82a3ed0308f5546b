import { FrameworkError } from '../../core/framework-error.js';

/** Why a signed agent-to-agent request was refused before anything ran. */
export type SignatureFailure = 'unsigned' | 'malformed' | 'unknown_key' | 'agent_mismatch' | 'bad_signature' | 'stale_timestamp' | 'replayed_nonce';

/** A request's HMAC signature headers are missing or do not verify; a 401 at the edge. */
export class SignatureError extends FrameworkError {
  readonly failure: SignatureFailure;

  constructor(options: { failure: SignatureFailure; message: string; cause?: unknown }) {
    super({ code: 'signature_invalid', message: options.message, cause: options.cause });
    this.failure = options.failure;
  }
}
