import { loadKeyRing } from '../a2a/signing/load-key-ring.js';
import type { KeyRing } from '../a2a/signing/key-ring.js';
import type { Env } from '../core/config.js';
import type { Logger } from '../core/logger.js';
import { BundleFollower } from '../guardian/bundle-follower.js';
import { BundleStateFile, bundleStateFileFromEnv } from '../guardian/bundle-state-file.js';

/**
 * The bundle follower of a tool gate that decides locally
 * (`TOOL_DECISIONS=local`): the same checks as for A2A decisions, so a tool
 * bundle is used only when signed with the key of the agent `guardian`
 * (`keys`, else the ring of `A2A_KEYS_FILE`/`A2A_KEYS`), not older than the
 * newest revision used (kept in `state`, else `POLICY_BUNDLE_STATE_FILE`) and
 * not expired. Throws `ConfigError` when the key ring of the environment is
 * malformed; the gate turns that into "unavailable" (strict denies).
 *
 * @example
 * const follower = toolBundleFollower({ guardianUrl, refreshMs: 5000, maxAgeMs: 60000, timeoutMs: 5000 });
 */
export function toolBundleFollower(options: {
  guardianUrl: string;
  refreshMs: number;
  maxAgeMs: number;
  timeoutMs: number;
  keys?: KeyRing | undefined;
  state?: BundleStateFile | undefined;
  env?: Env;
  logger?: Logger;
}): BundleFollower {
  const env = options.env ?? process.env;
  return new BundleFollower({
    guardianUrl: options.guardianUrl,
    refreshMs: options.refreshMs,
    maxAgeMs: options.maxAgeMs,
    timeoutMs: options.timeoutMs,
    verifyWith: options.keys ?? loadKeyRing({ env }),
    state: options.state ?? new BundleStateFile({ path: bundleStateFileFromEnv(env) }),
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

/**
 * The gate options of `TOOL_DECISIONS` from the environment: with `local`,
 * bundles are verified with the key ring of `env` and the revision kept in
 * its `POLICY_BUNDLE_STATE_FILE`. Throws `ConfigError` for a bad key ring.
 *
 * @example
 * new ToolGate({ ...rest, ...localBundleOptions({ decide: 'local', env: process.env }) });
 */
export function localBundleOptions(options: { decide: 'guardian' | 'local'; env: Env }): {
  decide: 'guardian' | 'local';
  bundleKeys?: KeyRing;
  bundleState?: BundleStateFile;
} {
  if (options.decide === 'guardian') return { decide: 'guardian' };
  return { decide: 'local', bundleKeys: loadKeyRing({ env: options.env }), bundleState: new BundleStateFile({ path: bundleStateFileFromEnv(options.env) }) };
}
