import type { BundleFollower } from '../guardian/bundle-follower.js';
import { fromJS, toJS } from '../policy/value-json.js';
import { A2A_ACCESS_PACKAGE, accessDecisionFrom, type AccessDecision } from './access-decision.js';
import type { AccessChecker } from './access-checker.js';
import { PolicyRefusedError } from './errors/policy-refused-error.js';
import { PolicyUnavailableError } from './errors/policy-unavailable-error.js';
import type { A2AValidationInput } from './validation-input.js';

const PACKAGE = [A2A_ACCESS_PACKAGE];
const ALLOW = [A2A_ACCESS_PACKAGE, 'allow'];
const DENY = [A2A_ACCESS_PACKAGE, 'deny'];

/**
 * Decides agent-to-agent calls in this process (A2A_DECISIONS=local) from the
 * Guardian's signed policy bundle, with the same reading of the `a2a_access`
 * document as the Guardian (`accessDecisionFrom`), so both give the same
 * answer and reason. No bundle or a stale one rejects with
 * `PolicyUnavailableError`, which the validator's mode turns into a decision
 * (strict denies); an evaluation error rejects with `PolicyRefusedError`,
 * which every mode denies.
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
      // `accessDecisionFrom` reads only `allow` and `deny`: evaluating the two rules gives the same decision
      // as the whole package document at a third of the cost. When neither is defined (no such rules, or
      // no package at all) the package document itself says which, as the Guardian would see it.
      const inputValue = fromJS(input);
      const allow = state.policy.evaluate(ALLOW, undefined, { inputValue });
      const deny = state.policy.evaluate(DENY, undefined, { inputValue });
      if (allow === undefined && deny === undefined) {
        const value = state.policy.evaluate(PACKAGE, undefined, { inputValue });
        document = value === undefined ? undefined : toJS(value);
      } else {
        document = { ...(allow === undefined ? {} : { allow: toJS(allow) }), ...(deny === undefined ? {} : { deny: toJS(deny) }) };
      }
    } catch (cause) {
      // The policy failed on this input (a conflict, an error under strict errors, the budget): refused, as the Guardian refuses it.
      throw new PolicyRefusedError({
        url: this.url,
        detail: `a2a_access could not be evaluated (${cause instanceof Error ? cause.message : String(cause)})`,
        cause,
      });
    }
    return accessDecisionFrom(document);
  }
}
