import { FrameworkError } from '../framework-error.js';

/** Work stopped because its AbortSignal fired (for example the client went away). */
export class AbortedError extends FrameworkError {
  constructor(options: { message?: string; cause?: unknown } = {}) {
    super({ code: 'aborted', message: options.message ?? 'The operation was aborted.', cause: options.cause });
  }
}
