import { FrameworkError } from '../framework-error.js';

/** A key-value store (sessions, thread memory) cannot be reached, for example Redis is down. */
export class StoreUnavailableError extends FrameworkError {
  readonly store: string;

  constructor(options: { store: string; cause?: unknown }) {
    const detail = options.cause instanceof Error ? `: ${options.cause.message}` : '';
    super({
      code: 'store_unavailable',
      message: `The key-value store at ${options.store} is unavailable${detail}. Retry shortly.`,
      cause: options.cause,
    });
    this.store = options.store;
  }
}
