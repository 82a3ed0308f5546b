import { FrameworkError } from '../framework-error.js';

export type BadRequestCode = 'invalid_request' | 'invalid_json' | 'unsupported_media_type' | 'payload_too_large' | 'not_found' | 'method_not_allowed';

/** The client sent something we cannot use; always a 4xx at the edge. */
export class BadRequestError extends FrameworkError {
  constructor(options: { code: BadRequestCode; message: string; cause?: unknown }) {
    super(options);
  }
}
