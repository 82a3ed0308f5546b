import { FrameworkError } from '../framework-error.js';

/** The session / memory store cannot be reached (for example Redis is down). */
export class StoreUnavailableError extends FrameworkError {
  readonly store: string;

  constructor(options: { store: string; cause?: unknown }) {
    const detail = options.cause instanceof Error ? `: ${options.cause.message}` : '';
    super({
      code: 'store_unavailable',
      message: `The session store ${options.store} is unavailable${detail}. Retry shortly.`,
      cause: options.cause,
    });
    this.store = options.store;
  }
}
