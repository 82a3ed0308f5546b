import { FrameworkError } from '../../core/framework-error.js';
import { PolicyRefusedError } from './policy-refused-error.js';

/** The Guardian or the policy engine could not give a decision (down, timed out, overloaded, or answered garbage). */
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

/**
 * HTTP statuses that say the service could not answer now (timed out,
 * overloaded, its own upstream down): asking again later may work, and
 * `permissive` mode may allow. Any other failure status is an answer about
 * the question itself ({@link PolicyRefusedError}), which every mode denies.
 */
const UNAVAILABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 502, 503, 504]);

/** Whether a policy service's failure status says it could not answer now (see above), not that it refused the question. */
export function isUnavailableStatus(status: number): boolean {
  return UNAVAILABLE_STATUSES.has(status);
}

/** The error for a policy service's failure answer: unavailable for the statuses above, refused for the rest. */
export function policyAnswerError(url: string, status: number, text: string): PolicyUnavailableError | PolicyRefusedError {
  const detail = `HTTP ${status}${text ? `: ${text.slice(0, 300)}` : ''}`;
  return isUnavailableStatus(status) ? new PolicyUnavailableError({ url, detail }) : new PolicyRefusedError({ url, detail });
}
