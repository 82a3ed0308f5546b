import { Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { FrameworkError } from '../../../runtime/core/framework-error.js';
import type { GuardianConfig } from '../../../runtime/guardian/guardian-config.js';
import { parseAddr, serveUntilStopped } from '../../serve-until-stopped.js';

export default class ServeGuardian extends JsonCommand {
  static override description =
    'Run the Guardian (POST /v1/a2a/validate, POST /v1/policies/<package>/evaluate, GET /v1/audit, GET /health) in front of a policy engine until interrupted. ' +
    'Flags win over OPA_URL, GUARDIAN_HOST and GUARDIAN_PORT; A2A_ENABLE_AUDIT_LOG=true also writes each audit event to standard error. ' +
    'Policy bundles (GET /v1/bundles/a2a) are signed with the key of the agent "guardian" in A2A_KEYS_FILE or A2A_KEYS (GUARDIAN_KEY_ID picks one); agents ship their in-process decisions to POST /v1/logs.';

  static override examples = [
    '<%= config.bin %> serve guardian',
    '<%= config.bin %> serve guardian --addr 127.0.0.1:11438 --opa-url http://127.0.0.1:8181',
    '<%= config.bin %> serve guardian --addr 0.0.0.0:11438 --allow-remote',
    'OPA_URL=http://opa:8181 GUARDIAN_PORT=11438 A2A_ENABLE_AUDIT_LOG=true <%= config.bin %> serve guardian --json',
  ];

  static override enableJsonFlag = true;

  /** `{"event":"listening"}` first, the result when stopped: one JSON document per line. */
  static override jsonLines = true;

  static override flags = {
    addr: Flags.string({ char: 'a', description: 'address to listen on, host:port (default: GUARDIAN_HOST:GUARDIAN_PORT, else 127.0.0.1:11438)' }),
    'opa-url': Flags.string({ description: 'address of the policy engine (default: OPA_URL, else http://127.0.0.1:8181)' }),
    'allow-remote': Flags.boolean({
      description:
        'listen on an address beyond loopback (0.0.0.0, a LAN address): refused without this flag, since whoever reaches the Guardian can ask it for decisions',
      default: false,
    }),
  };

  async run(): Promise<{ url: string; stopped: true }> {
    const { flags } = await this.parse(ServeGuardian);
    // Loaded once the arguments are known good: a mistyped flag does not wait for it.
    const [{ startGuardian }, { createLogger }, { guardianConfigFromEnv }, { guardianBundleKey }, { loadKeyRing }] = await Promise.all([
      import('../../../runtime/guardian/start-guardian.js'),
      import('../../../runtime/core/logger.js'),
      import('../../../runtime/guardian/guardian-config.js'),
      import('../../../runtime/guardian/policy-bundle.js'),
      import('../../../runtime/a2a/signing/load-key-ring.js'),
    ]);
    let config: GuardianConfig;
    try {
      config = guardianConfigFromEnv(process.env);
    } catch (error) {
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
    let { host, port, opaUrl } = config;
    if (flags.addr !== undefined) {
      const addr = parseAddr(flags.addr);
      if (!addr) this.error(`--addr ${JSON.stringify(flags.addr)} is not host:port (for example 127.0.0.1:11438).`, { exit: 2 });
      ({ host, port } = addr);
    }
    if (flags['opa-url'] !== undefined) {
      if (!isHttpUrl(flags['opa-url'])) {
        this.error(`--opa-url ${JSON.stringify(flags['opa-url'])} is not an http(s) URL (for example http://127.0.0.1:8181).`, { exit: 2 });
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
      if (FrameworkError.isInstance(error)) this.error(error.message, { exit: 1, code: error.code });
      throw error;
    }
    return serveUntilStopped(this, guardian, `Guardian listening on ${guardian.url}, asking the policy engine at ${opaUrl}`);
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
