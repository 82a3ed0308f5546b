import { createWriteStream } from 'node:fs';
import type { Logger } from '../../core/logger.js';
import { listen } from '../../core/server/listen.js';
import { checkLoopbackListen } from '../../core/server/loopback.js';
import { DecisionLog } from './decision-log.js';
import { DecisionPool } from './decision-pool.js';
import { createPolicyServer } from './opa-server.js';
import { PolicyLoadError } from './policy-set.js';
import { PolicyStore } from './policy-store.js';
import { DEFAULT_PORTS } from '../../core/defaults.js';
import { ConfigError } from '../../core/errors/config-error.js';
import type { BundleLimits } from './bundle-archive.js';
import { BundleSignatureError, verificationKey, type BundleVerification, type VerificationKey } from './bundle-signature.js';
import type { DecisionUploadConfig, RemoteBundleConfig, StatusUploadConfig } from './bundle-config.js';
import { DecisionUploader } from './decision-upload.js';
import { StatusUploader } from './status-upload.js';
import { BundleDownloader } from './bundle-download.js';
import { isDeepStrictEqual } from 'node:util';
import { Discovery } from './discovery.js';
import type { DiscoveryConfig } from './bundle-config.js';

export interface StartPolicyServerOptions {
  /** A policy directory; optional when `bundles` are given. */
  dir?: string;
  /** OPA bundles (directories or `.tar.gz` files) to serve, as `opa run --bundle` serves them. */
  bundles?: readonly string[];
  /** Verify the bundles' signatures (`.signatures.json`) with this key; without it a signed bundle is refused. */
  verification?: BundleVerification;
  /** Bounds the bundles are read within (defaults: DEFAULT_BUNDLE_LIMITS). */
  bundleLimits?: BundleLimits;
  /** Bundles to download from bundle servers and poll (OPA's `services` and `bundles`; see `readBundleConfig`). */
  remoteBundles?: readonly RemoteBundleConfig[];
  /** OPA's discovery (see `readServerConfig`): the bundles served then follow the discovered configuration. */
  discovery?: DiscoveryConfig;
  host?: string;
  /** Listen on a host beyond loopback (`0.0.0.0`, a LAN address); refused otherwise (`ConfigError`). */
  allowRemote?: boolean;
  /** Default 8181 (OPA's port); 0 picks a free one. */
  port?: number;
  logger?: Logger;
  watch?: boolean;
  /** While watching, how often the files are hashed again in case a change went unreported (default 2000 ms). */
  recheckMs?: number;
  allowWrites?: boolean;
  /** Lets ad-hoc queries (`/v1/query`) call http.send and net.lookup_ip_addr; off by default. */
  allowQueryNetwork?: boolean;
  /** Where decision log lines go: a file path, or `-` for standard output. Off when absent. */
  decisionLog?: string;
  /** Upload decision events to a service (OPA's `decision_logs`; see `readServerConfig`). */
  decisionUpload?: DecisionUploadConfig;
  /** Upload status reports to a service (OPA's `status`). */
  statusUpload?: StatusUploadConfig;
  /** Input fields erased from decision log lines (`/input/password`). */
  mask?: readonly string[];
  /** The evaluation budget in ms (default 5000): a decision running longer is stopped with `eval_cancel_error`. */
  evalTimeoutMs?: number;
  /** Worker threads for decisions that outgrow the event loop (default 2; 0 evaluates everything on the event loop). */
  workers?: number;
  /** Read the policies as Rego v0 (OPA's `--v0-compatible`); a bundle manifest's `rego_version` takes precedence. */
  v0Compatible?: boolean;
}

export interface RunningPolicyServer {
  readonly url: string;
  readonly port: number;
  readonly store: PolicyStore;
  close(): Promise<void>;
}

/**
 * Loads a policy directory and serves OPA's REST API over it. Refuses to
 * start when the policies do not compile (`PolicyLoadError` lists the
 * problems); once running, a broken edit keeps the last good set serving.
 */
export async function startPolicyServer(options: StartPolicyServerOptions): Promise<RunningPolicyServer> {
  const host = options.host ?? '127.0.0.1';
  checkLoopbackListen({ service: 'The policy server', host, allowRemote: options.allowRemote ?? false, option: '--allow-remote' });
  if (options.dir === undefined && (options.bundles ?? []).length === 0 && (options.remoteBundles ?? []).length === 0 && options.discovery === undefined) {
    throw new ConfigError({ context: 'The policy server has nothing to serve', issues: [{ variable: 'dir', message: 'give a policy directory or --bundle' }] });
  }
  let verification: VerificationKey | undefined;
  let downloaders: BundleDownloader[] = [];
  let running = false;
  let discovery: Discovery | undefined;
  const downloaderOf = (remote: RemoteBundleConfig) =>
    new BundleDownloader(remote, {
      activate: () => store.reload(),
      onStatusChange: () => void statusUploader?.update(),
      v0Compatible: options.v0Compatible === true,
      ...(options.bundleLimits ? { limits: options.bundleLimits } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
  /** Serves the bundles of a discovered configuration: unchanged ones keep downloading, the others are stopped or started. */
  const applyBundles = async (configs: readonly RemoteBundleConfig[]): Promise<string | undefined> => {
    const current = new Map(downloaders.map((d) => [d.name, d]));
    const next: BundleDownloader[] = [];
    const fresh: BundleDownloader[] = [];
    try {
      for (const config of configs) {
        const existing = current.get(config.name);
        if (existing !== undefined && isDeepStrictEqual(existing.config, config)) {
          next.push(existing);
          current.delete(config.name);
          continue;
        }
        const downloader = downloaderOf(config);
        next.push(downloader);
        fresh.push(downloader);
      }
    } catch (error) {
      if (error instanceof BundleSignatureError) return `the discovered configuration: ${error.message}`;
      throw error;
    }
    // A bundle whose configuration changed starts anew (nothing of it served until its download is verified again).
    for (const gone of current.values()) gone.stop();
    for (const downloader of fresh) await downloader.loadPersisted();
    downloaders = next;
    store.replaceDownloads(next);
    if (!(await store.reload())) {
      for (const downloader of fresh) downloader.dropPersisted();
      await store.reload();
    }
    if (running) for (const downloader of fresh) downloader.start();
    return undefined;
  };
  // Reports once the server listens (the first one on start; a download finished before then is in it).
  const statusUploader = options.statusUpload
    ? new StatusUploader({ config: options.statusUpload, report: () => app.status(), ...(options.logger ? { logger: options.logger } : {}) })
    : undefined;
  try {
    verification = options.verification === undefined ? undefined : verificationKey(options.verification);
    for (const remote of options.remoteBundles ?? []) downloaders.push(downloaderOf(remote));
    discovery = options.discovery
      ? new Discovery({
          config: options.discovery,
          applyBundles,
          onStatusChange: () => void statusUploader?.update(),
          v0Compatible: options.v0Compatible === true,
          ...(options.bundleLimits ? { limits: options.bundleLimits } : {}),
          ...(options.logger ? { logger: options.logger } : {}),
        })
      : undefined;
  } catch (error) {
    if (!(error instanceof BundleSignatureError)) throw error;
    throw new ConfigError({ context: 'The bundle verification key cannot be used', issues: [{ variable: '--verification-key', message: error.message }] });
  }
  const store: PolicyStore = new PolicyStore({
    sources: downloaders,
    ...(options.dir === undefined ? {} : { dir: options.dir }),
    bundles: options.bundles ?? [],
    bundleOptions: { ...(verification ? { verification } : {}), ...(options.bundleLimits ? { limits: options.bundleLimits } : {}) },
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.recheckMs === undefined ? {} : { recheckMs: options.recheckMs }),
    v0Compatible: options.v0Compatible === true,
  });
  // Persisted bundles (`persist: true`) serve from the start, before their first download, as OPA activates them.
  const persisted = (await Promise.all(downloaders.map((d) => d.loadPersisted()))).some(Boolean);
  if (!(await store.reload())) {
    // One that does not compile with the rest is not served (OPA logs its activation failure and starts without it).
    if (!persisted) throw new PolicyLoadError(store.status?.problems ?? []);
    for (const downloader of downloaders) downloader.dropPersisted();
    if (!(await store.reload())) throw new PolicyLoadError(store.status?.problems ?? []);
  }
  // A persisted discovery bundle yields its configuration before the first download, as OPA's plugin loads it.
  await discovery?.loadPersisted();
  const logStream =
    options.decisionLog === undefined ? undefined : options.decisionLog === '-' ? process.stdout : createWriteStream(options.decisionLog, { flags: 'a' });
  const uploader = options.decisionUpload
    ? new DecisionUploader({ config: options.decisionUpload, ...(options.logger ? { logger: options.logger } : {}) })
    : undefined;
  const decisionLog =
    logStream || uploader
      ? new DecisionLog({
          write: (line) => {
            logStream?.write(`${line}\n`);
            uploader?.push(line);
          },
          mask: options.mask ?? [],
        })
      : undefined;
  const app = createPolicyServer({
    store,
    ...(options.logger ? { logger: options.logger } : {}),
    allowWrites: options.allowWrites ?? false,
    allowQueryNetwork: options.allowQueryNetwork ?? false,
    ...(decisionLog ? { decisionLog } : {}),
    ...(options.evalTimeoutMs === undefined ? {} : { evalTimeoutMs: options.evalTimeoutMs }),
    ...(options.workers === 0 || !DecisionPool.available() ? { pool: false as const } : { pool: new DecisionPool({ size: options.workers ?? 2 }) }),
    ...(discovery ? { discoveryStatus: () => (discovery as Discovery).status() } : {}),
  });
  let listening;
  try {
    listening = await listen(app, {
      host,
      port: options.port ?? DEFAULT_PORTS.policy,
      portHint: 'pass --addr 127.0.0.1:<port>',
      direct: app.direct,
      // OPA's request metrics are the policy server's own (http_request_duration_seconds).
      countRequests: false,
    });
  } catch (error) {
    store.close();
    await app.close();
    throw error;
  }
  if (options.watch ?? true) store.watch();
  void statusUploader?.update();
  uploader?.start();
  running = true;
  for (const downloader of downloaders) downloader.start();
  discovery?.start();
  return {
    url: listening.url,
    port: listening.port,
    store,
    async close() {
      discovery?.stop();
      for (const downloader of downloaders) downloader.stop();
      // What is left of the decision events goes out once more, as OPA's plugin does on a graceful stop.
      await uploader?.stop();
      store.close();
      await listening.close();
      await app.close();
      if (logStream && logStream !== process.stdout) await new Promise<void>((resolve) => (logStream as NodeJS.WritableStream).end(resolve));
    },
  };
}
