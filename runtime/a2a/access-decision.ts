import { isPlainObject } from '../core/json.js';
import type { PolicyClient } from './policy-client.js';

/** The package of the access policy (spec: `a2a_access`). */
export const A2A_ACCESS_PACKAGE = 'a2a_access';

/** A decision about one agent-to-agent call. */
export interface AccessDecision {
  allowed: boolean;
  reason: string;
}

/**
 * Reads a decision from the access package document (`{allow, deny}`): a
 * call is allowed only when `allow` is exactly true and `deny` is empty or
 * false. `deny` may be a boolean rule or a set of reason strings. Anything
 * else (an undefined package, a non-boolean `allow`) is a deny with a reason
 * saying so: a policy missing a rule never lets a call through.
 */
export function accessDecisionFrom(document: unknown): AccessDecision {
  if (document === undefined) {
    return { allowed: false, reason: `the policy engine has no "${A2A_ACCESS_PACKAGE}" policy loaded` };
  }
  if (!isPlainObject(document)) return { allowed: false, reason: `the "${A2A_ACCESS_PACKAGE}" document is not an object` };
  const reasons = denyReasons(document.deny);
  if (reasons.length > 0) return { allowed: false, reason: reasons.join('; ') };
  if (document.allow === true) return { allowed: true, reason: 'allowed by policy' };
  if (document.allow === undefined || document.allow === false) {
    return { allowed: false, reason: 'no policy rule allows this agent pair' };
  }
  return { allowed: false, reason: `"${A2A_ACCESS_PACKAGE}.allow" is not a boolean` };
}

function denyReasons(deny: unknown): string[] {
  if (deny === undefined || deny === false) return [];
  if (deny === true) return ['denied by policy'];
  if (Array.isArray(deny)) {
    if (deny.length === 0) return [];
    return deny.map((reason) => (typeof reason === 'string' ? reason : JSON.stringify(reason))).sort();
  }
  return [`"${A2A_ACCESS_PACKAGE}.deny" has an unexpected value`];
}

/** Asks `policy` about one call; rejects with `PolicyUnavailableError` when it cannot answer. */
export async function decideAccess(policy: PolicyClient, input: unknown, options: { signal?: AbortSignal } = {}): Promise<AccessDecision> {
  const document = await policy.evaluate(A2A_ACCESS_PACKAGE, input, options);
  return accessDecisionFrom(document);
}
