import * as Flags from '@oclif/core/flags';
import type { Interfaces } from '@oclif/core';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import type { GuardianConfig } from '../../runtime/guardian/guardian-config.js';
import { parseAddr, serveUntilStopped, type ServeIo } from '../serve-until-stopped.js';

/** The flags of `serve guardian` (its command and its lean start share them). */
export const guardianFlags = {
  addr: Flags.string({ char: 'a', description: 'address to listen on, host:port (default: GUARDIAN_HOST:GUARDIAN_PORT, else 127.0.0.1:11438)' }),
  'opa-url': Flags.string({ description: 'address of the policy engine (default: OPA_URL, else http://127.0.0.1:8181)' }),
  'allow-remote': Flags.boolean({
    description:
      'listen on an address beyond loopback (0.0.0.0, a LAN address): refused without this flag, since whoever reaches the Guardian can ask it for decisions',
    default: false,
  }),
};

/** The body of `serve guardian` once its flags are parsed: starts the Guardian and serves until stopped. */
export async function serveGuardian(io: ServeIo, flags: Interfaces.InferredFlags<typeof guardianFlags>): Promise<{ url: string; stopped: true }> {
  // Loaded once the arguments are known good: a mistyped flag does not wait for it.
  const [{ startGuardian }, { createLogger }, { guardianConfigFromEnv }, { guardianBundleKey }, { loadKeyRing }] = await Promise.all([
    import('../../runtime/guardian/start-guardian.js'),
    import('../../runtime/core/logger.js'),
    import('../../runtime/guardian/guardian-config.js'),
    import('../../runtime/guardian/policy-bundle.js'),
    import('../../runtime/a2a/signing/load-key-ring.js'),
  ]);
  let config: GuardianConfig;
  try {
    config = guardianConfigFromEnv(process.env);
  } catch (error) {
    if (FrameworkError.isInstance(error)) io.error(error.message, { exit: 1, code: error.code });
    throw error;
  }
  let { host, port, opaUrl } = config;
  if (flags.addr !== undefined) {
    const addr = parseAddr(flags.addr);
    if (!addr) io.error(`--addr ${JSON.stringify(flags.addr)} is not host:port (for example 127.0.0.1:11438).`, { exit: 2 });
    ({ host, port } = addr);
  }
  if (flags['opa-url'] !== undefined) {
    if (!isHttpUrl(flags['opa-url'])) {
      io.error(`--opa-url ${JSON.stringify(flags['opa-url'])} is not an http(s) URL (for example http://127.0.0.1:8181).`, { exit: 2 });
    }
    opaUrl = flags['opa-url'];
  }
  let guardian;
  const logger = createLogger({ name: 'guardian', level: config.logLevel });
  try {
    // The bundle key: the key of the agent "guardian" in A2A_KEYS_FILE / A2A_KEYS (GUARDIAN_KEY_ID picks one of several).
    const keys = loadKeyRing({ env: process.env });
    for (const warning of keys.warnings) logger.warn(warning);
    const bundleKey = guardianBundleKey(keys, process.env.GUARDIAN_KEY_ID);
    if (!bundleKey)
      logger.warn(
        'No key of the agent "guardian" in A2A_KEYS_FILE or A2A_KEYS: no policy bundle is served (503), so agents with A2A_DECISIONS=local or TOOL_DECISIONS=local cannot decide.',
      );
    guardian = await startGuardian({
      host,
      port,
      allowRemote: flags['allow-remote'],
      opaUrl,
      logger,
      auditToLog: config.auditToLog,
      bundleTtlMs: config.bundleTtlMs,
      ...(bundleKey ? { bundleKey } : {}),
    });
  } catch (error) {
    if (FrameworkError.isInstance(error)) io.error(error.message, { exit: 1, code: error.code });
    throw error;
  }
  return serveUntilStopped(io, guardian, `Guardian listening on ${guardian.url}, asking the policy engine at ${opaUrl}`);
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
