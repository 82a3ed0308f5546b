import { FrameworkError } from '../../core/framework-error.js';

/**
 * The Guardian or the policy engine was asked and could not decide this
 * input: it refused it (a 4xx: too large, nested too deep, not the shape
 * the policy reads) or the policy failed on it (an evaluation error: a
 * conflict, a builtin error under strict errors, the evaluation budget).
 * Unlike {@link PolicyUnavailableError} the question itself is the cause,
 * and a caller may have shaped it, so every mode denies (`permissive`
 * allows only when nobody could be asked).
 */
export class PolicyRefusedError extends FrameworkError {
  /** Address that was asked. */
  readonly url: string;

  constructor(options: { url: string; detail: string; cause?: unknown }) {
    super({
      code: 'policy_refused',
      message: `No policy decision from ${options.url} for this input: ${options.detail}`,
      cause: options.cause,
    });
    this.url = options.url;
  }
}
