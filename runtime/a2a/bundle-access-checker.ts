import type { BundleFollower } from '../guardian/bundle-follower.js';
import { toJS } from '../policy/value-json.js';
import { A2A_ACCESS_PACKAGE, accessDecisionFrom, type AccessDecision } from './access-decision.js';
import type { AccessChecker } from './access-checker.js';
import { PolicyUnavailableError } from './errors/policy-unavailable-error.js';
import type { A2AValidationInput } from './validation-input.js';

const PATH = [A2A_ACCESS_PACKAGE];

/**
 * Decides agent-to-agent calls in this process (A2A_DECISIONS=local) from the
 * Guardian's signed policy bundle, with the same reading of the `a2a_access`
 * document as the Guardian (`accessDecisionFrom`), so both give the same
 * answer and reason. No bundle, a stale one, or an evaluation error rejects
 * with `PolicyUnavailableError`, which the validator's mode turns into a
 * decision (strict denies).
 *
 * @example
 * const checker = new BundleAccessChecker({ follower: new BundleFollower({ guardianUrl, verifyWith: keys, poll: true }) });
 * await checker.check(input); // { allowed: true, reason: 'allowed by policy' }
 */
export class BundleAccessChecker implements AccessChecker {
  readonly kind = 'policy bundle';
  readonly url: string;
  readonly #follower: BundleFollower;

  constructor(options: { follower: BundleFollower }) {
    this.#follower = options.follower;
    this.url = options.follower.url;
  }

  async check(input: A2AValidationInput): Promise<AccessDecision> {
    let state = this.#follower.current();
    if ('unavailable' in state && this.#follower.revision === undefined) state = await this.#follower.ready();
    if ('unavailable' in state) throw new PolicyUnavailableError({ url: this.url, detail: state.unavailable });
    let document: unknown;
    try {
      const value = state.policy.evaluate(PATH, input);
      document = value === undefined ? undefined : toJS(value);
    } catch (cause) {
      throw new PolicyUnavailableError({
        url: this.url,
        detail: `a2a_access could not be evaluated (${cause instanceof Error ? cause.message : String(cause)})`,
        cause,
      });
    }
    return accessDecisionFrom(document);
  }
}
