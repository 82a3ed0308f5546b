import { existsSync } from 'node:fs';
import * as Args from '@oclif/core/args';
import * as Flags from '@oclif/core/flags';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import { PolicyLoadError } from '../../runtime/policy/server/policy-problem.js';
import { parseAddr, serveUntilStopped, type ServeIo } from '../serve-until-stopped.js';
import type { Interfaces } from '@oclif/core';
import { failToCompile } from '../fail-to-compile.js';
import { SIGNING_ALGORITHMS } from '../../runtime/policy/server/signing-algorithms.js';
import type { ServerConfig } from '../../runtime/policy/server/bundle-config.js';

/** The argument of `policy serve` (its command and its lean start share it). */
export const policyServeArgs = {
  // No default here: with --bundle alone nothing else is served (without either, `policies` is).
  dir: Args.directory({ description: 'policy directory (default: policies, unless --bundle is given)', exists: true, ignoreStdin: true }),
};

/** The flags of `policy serve` (its command and its lean start share them). */
export const policyServeFlags = {
  addr: Flags.string({ char: 'a', description: 'address to listen on, host:port', default: '127.0.0.1:8181' }),
  'allow-writes': Flags.boolean({ description: 'enable PUT/DELETE /v1/policies/<id> and PUT/PATCH/DELETE /v1/data/<path>', default: false }),
  'decision-log': Flags.string({ description: 'append one JSON line per decision to this file (- for standard output)' }),
  mask: Flags.string({ description: 'input field to erase from decision logs, e.g. /input/password (repeatable)', multiple: true, multipleNonGreedy: true }),
  'eval-timeout': Flags.integer({
    description: 'evaluation budget in milliseconds: a decision still running after it is stopped and answered 500 eval_cancel_error',
    default: 5000,
    min: 1,
  }),
  workers: Flags.integer({
    description: 'worker threads for decisions too costly for the event loop (0: evaluate all on the event loop)',
    default: 2,
    min: 0,
    max: 64,
  }),
  watch: Flags.boolean({ description: 'reload when policy files change', default: true, allowNo: true }),
  'recheck-interval': Flags.integer({
    description: 'while watching, hash the policy files this often (ms) and reload when they changed, in case a change went unreported',
    default: 2000,
    min: 50,
  }),
  'allow-remote': Flags.boolean({
    description:
      'listen on an address beyond loopback (0.0.0.0, a LAN address): refused without this flag, since whoever reaches the server can ask it for decisions',
    default: false,
  }),
  'v0-compatible': Flags.boolean({
    description:
      "read the policies as Rego v0 (OPA's --v0-compatible: rule bodies without `if`, `p[x] { ... }` partial sets, future keywords only when imported)",
    default: false,
    env: 'FRAMEWORK_POLICY_V0_COMPATIBLE',
  }),
  bundle: Flags.string({
    char: 'b',
    description: "serve an OPA bundle, a directory or .tar.gz file (OPA's --bundle; repeatable): its .manifest roots, revision and signature as OPA reads them",
    multiple: true,
    multipleNonGreedy: true,
  }),
  'config-file': Flags.file({
    char: 'c',
    description:
      "OPA's configuration file (YAML or JSON): its services and bundles are downloaded and polled (ETag, min/max delay, long polling), persisted when persist is set, signing keys from its keys section, bundles discovered as its discovery section says, decision events and status uploaded as its decision_logs and status sections say",
    exists: true,
  }),
  'verification-key': Flags.string({
    description: 'verify bundle signatures (.signatures.json) with this HMAC secret, or PEM public key, or the path of a file holding either',
  }),
  'verification-key-id': Flags.string({ description: 'the id of the verification key (a bundle JWT names it as its kid)', default: 'default' }),
  'signing-alg': Flags.string({
    description: 'the algorithm bundle signatures must use',
    default: 'RS256',
    options: [...SIGNING_ALGORITHMS],
  }),
  scope: Flags.string({ description: 'the scope bundle signatures must name' }),
  'exclude-files-verify': Flags.string({
    description: 'a bundle file (glob pattern) left out of signature verification (repeatable)',
    multiple: true,
    multipleNonGreedy: true,
  }),
  'allow-query-network': Flags.boolean({
    description: 'let ad-hoc queries (/v1/query) call http.send and net.lookup_ip_addr; off by default, as an OPA capabilities file would have it',
    default: false,
  }),
};

/** The body of `policy serve` once its flags are parsed: starts the service and serves until stopped. */
export async function servePolicies(
  io: ServeIo,
  { args, flags }: { args: Interfaces.InferredArgs<typeof policyServeArgs>; flags: Interfaces.InferredFlags<typeof policyServeFlags> },
): Promise<{ url: string; stopped: true }> {
  // Loaded once the arguments are known good: a mistyped flag does not wait for it.
  const [{ startPolicyServer }, { createLogger }] = await Promise.all([
    import('../../runtime/policy/server/start-policy-server.js'),
    import('../../runtime/core/logger.js'),
  ]);
  const addr = parseAddr(flags.addr);
  if (!addr) io.error(`--addr ${JSON.stringify(flags.addr)} is not host:port (for example 127.0.0.1:8181).`, { exit: 2 });
  const bundles = flags.bundle ?? [];
  const configFile = flags['config-file'];
  const dir = args.dir ?? (bundles.length === 0 && configFile === undefined ? 'policies' : undefined);
  if (dir !== undefined && !existsSync(dir)) io.error(`No directory found at ${dir}`, { exit: 2 });
  const verifying = flags['verification-key'] !== undefined;
  if (!verifying && (flags.scope !== undefined || flags['exclude-files-verify'] !== undefined)) {
    io.error('--scope and --exclude-files-verify take effect only with --verification-key', { exit: 2, code: 'invalid_arguments' });
  }
  let config: ServerConfig = { bundles: [] };
  if (configFile !== undefined) {
    const { readServerConfig } = await import('../../runtime/policy/server/bundle-config.js');
    try {
      config = readServerConfig(configFile);
    } catch (error) {
      io.error((error as Error).message, { exit: 1, code: 'invalid_config' });
    }
  }
  let server;
  try {
    server = await startPolicyServer({
      remoteBundles: config.bundles,
      ...(config.discovery ? { discovery: config.discovery } : {}),
      ...(config.decisionLogs ? { decisionUpload: config.decisionLogs } : {}),
      ...(config.status ? { statusUpload: config.status } : {}),
      ...(dir === undefined ? {} : { dir }),
      bundles,
      ...(verifying
        ? {
            verification: {
              key: flags['verification-key'] as string,
              keyId: flags['verification-key-id'],
              algorithm: flags['signing-alg'],
              ...(flags.scope === undefined ? {} : { scope: flags.scope }),
              excludeFiles: flags['exclude-files-verify'] ?? [],
            },
          }
        : {}),
      host: addr.host,
      port: addr.port,
      logger: createLogger({ name: 'policy', level: 'info' }),
      watch: flags.watch,
      recheckMs: flags['recheck-interval'],
      allowRemote: flags['allow-remote'],
      allowQueryNetwork: flags['allow-query-network'],
      allowWrites: flags['allow-writes'],
      ...(flags['decision-log'] ? { decisionLog: flags['decision-log'] } : {}),
      mask: flags.mask ?? [],
      evalTimeoutMs: flags['eval-timeout'],
      workers: flags.workers,
      v0Compatible: flags['v0-compatible'],
    });
  } catch (error) {
    if (PolicyLoadError.isInstance(error)) {
      failToCompile(io, error, 'the policies do not compile; fix the errors above.');
    }
    if (error instanceof TypeError && /mask path/.test(error.message)) io.error(error.message, { exit: 2, code: 'invalid_arguments' });
    if (FrameworkError.isInstance(error)) io.error(error.message, { exit: 1, code: error.code });
    throw error;
  }
  const served = [
    ...(dir === undefined ? [] : [dir]),
    ...bundles.map((b) => `bundle ${b}`),
    ...config.bundles.map((b) => `bundle ${b.name} from ${b.url}`),
  ].join(', ');
  return serveUntilStopped(io, server, `Policy engine serving ${served} on ${server.url}`);
}
