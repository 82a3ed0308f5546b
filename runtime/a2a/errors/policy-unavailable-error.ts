import { FrameworkError } from '../../core/framework-error.js';

/** The Guardian or the policy engine could not give a decision (down, timed out, or answered garbage). */
export class PolicyUnavailableError extends FrameworkError {
  /** Address that was asked. */
  readonly url: string;

  constructor(options: { url: string; detail: string; cause?: unknown }) {
    super({
      code: 'policy_unavailable',
      message: `No policy decision from ${options.url}: ${options.detail}`,
      cause: options.cause,
    });
    this.url = options.url;
  }
}
