import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { KeyRing } from '../a2a/signing/key-ring.js';
import type { SigningKey } from '../a2a/signing/signing-key.js';

/**
 * The policy bundle the Guardian serves to agents that decide in process
 * (`GET /v1/bundles/policies`, also at `GET /v1/bundles/a2a`): every module
 * the policy engine holds, the `digest` of those modules (also the ETag),
 * the `revision` (a counter that only grows: a new set of modules always gets
 * a higher one, across Guardian restarts too) and the times it was signed at
 * and stops being valid at. The Guardian signs the exact body bytes with the
 * HMAC key of the agent named `guardian` in its key ring; an agent refuses a
 * bundle without a signature, with an unknown key, with a key of another
 * agent or with a bad signature, a revision older than one it has seen, and
 * one past its `expires_at` (fail closed).
 */
export const PolicyBundleSchema = z.object({
  revision: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  digest: z.string().min(1).max(128),
  issued_at: z.iso.datetime({ offset: true }),
  expires_at: z.iso.datetime({ offset: true }),
  modules: z.array(z.object({ id: z.string(), raw: z.string() })),
  /** Base data the modules read (`data.…` outside the packages); absent when the Guardian sends none. */
  data: z.record(z.string(), z.unknown()).optional(),
});
export type PolicyBundle = z.infer<typeof PolicyBundleSchema>;

/** The agent name whose key signs bundles: the Guardian's key in the A2A key ring. */
export const BUNDLE_SIGNER_AGENT = 'guardian';

/** Headers of a signed bundle: the key id and the base64url HMAC-SHA256 of the body. */
export const BUNDLE_SIGNATURE_HEADERS = {
  keyId: 'x-framework-bundle-key',
  signature: 'x-framework-bundle-signature',
} as const;

/**
 * Domain separation: a bundle signature can never be replayed as a request
 * signature, a freshness statement or a decision-log signature, nor the
 * reverse (`v2`: a bundle of the first form, without revision counter and
 * times, signed before, is refused as a bad signature). Decision-log
 * batches (`POST /v1/logs`) are signed the same way, with the same
 * `guardian` key (every agent that decides locally holds it) and the
 * `decision-logs` purpose.
 */
const SIGNING_CONTEXTS = {
  bundle: 'framework-policy-bundle-v2\n',
  'bundle-freshness': 'framework-policy-bundle-freshness-v1\n',
  'decision-logs': 'framework-decision-logs-v1\n',
} as const;
export type SignedBodyPurpose = keyof typeof SIGNING_CONTEXTS;

function mac(key: SigningKey, body: string, purpose: SignedBodyPurpose): Buffer {
  return createHmac('sha256', key.secret).update(SIGNING_CONTEXTS[purpose]).update(body).digest();
}

/**
 * The headers that sign `body` with `key` (a key of the agent `guardian`).
 *
 * @example
 * const headers = signBundle({ body: JSON.stringify(bundle), key: ring.signingKeyFor('guardian') });
 */
export function signBundle(options: { body: string; key: SigningKey; purpose?: SignedBodyPurpose }): Record<string, string> {
  return {
    [BUNDLE_SIGNATURE_HEADERS.keyId]: options.key.id,
    [BUNDLE_SIGNATURE_HEADERS.signature]: mac(options.key, options.body, options.purpose ?? 'bundle').toString('base64url'),
  };
}

/**
 * Why the signature of a bundle body is not acceptable, or undefined when it
 * is: it must name a key of `keys` that belongs to the agent `guardian`, and
 * be that key's HMAC of the exact body.
 */
export function bundleSignatureProblem(options: {
  body: string;
  keys: KeyRing;
  header: (name: string) => string | null | undefined;
  purpose?: SignedBodyPurpose;
}): string | undefined {
  const keyId = options.header(BUNDLE_SIGNATURE_HEADERS.keyId);
  const signature = options.header(BUNDLE_SIGNATURE_HEADERS.signature);
  if (!keyId || !signature) {
    return options.purpose === 'decision-logs'
      ? 'the batch is not signed with the key of the agent "guardian" (give it to agents with A2A_DECISIONS=local)'
      : 'the bundle is not signed with the key of the agent "guardian" (every bundle must be, whoever serves it)';
  }
  const key = options.keys.get(keyId);
  if (key === undefined) return `the bundle is signed with the key "${keyId}", which is not in this agent's key ring`;
  if (key.agent !== BUNDLE_SIGNER_AGENT) return `the bundle is signed with the key "${keyId}" of the agent "${key.agent}", not of "${BUNDLE_SIGNER_AGENT}"`;
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(key, options.body, options.purpose ?? 'bundle');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'the bundle signature does not match its body';
  return undefined;
}

/**
 * The key the Guardian signs bundles with: the only key of the agent
 * `guardian` in `keys` (or `keyId` when given), or undefined when it has
 * none. Throws `ConfigError` (as `KeyRing.signingKeyFor`) when the choice is
 * ambiguous or `keyId` is wrong.
 */
export function guardianBundleKey(keys: KeyRing, keyId?: string): SigningKey | undefined {
  if (!keyId && !keys.list().some((key) => key.agent === BUNDLE_SIGNER_AGENT)) return undefined;
  return keys.signingKeyFor(BUNDLE_SIGNER_AGENT, keyId);
}
