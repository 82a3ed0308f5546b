/**
 * OPA's discovery (v1/plugins/discovery/discovery.go): a discovery bundle is
 * downloaded (polled, long-polled, verified and persisted as any bundle) and
 * its policy evaluated (`data.<decision>`) to yield the configuration. As
 * OPA: the boot configuration overrides what is discovered (the keys it
 * overrode are named in the status), the `discovery` section discovered is
 * ignored, a change to the discovery service is refused ("updates to the
 * discovery service are not allowed"), and with a signed discovery bundle a
 * change to a boot key too ("updates to keys specified in the boot
 * configuration are not allowed").
 *
 * Here, in scope: the discovered `bundles`, `services`, `keys` and `labels`;
 * any other section discovered (`decision_logs`, `status`, …) refuses the
 * configuration whole. Stricter than OPA: when the boot configuration signs
 * (the discovery bundle or any bundle), a discovered bundle without
 * `signing` refuses it too. A refused configuration keeps the last one.
 */
import { isDeepStrictEqual } from 'node:util';
import { silentLogger, type Logger } from '../../core/logger.js';
import { defaultRegistry } from '../builtins/index.js';
import { compilePolicy } from '../engine.js';
import { PolicyError } from '../errors.js';
import { fromJS, toJS } from '../value-json.js';
import type { BundleLimits } from './bundle-archive.js';
import { BundleConfigError, serverConfigOf, servicesOf, type DiscoveryConfig, type RemoteBundleConfig } from './bundle-config.js';
import { BundleDownloader } from './bundle-download.js';
import type { LoadedBundle } from './bundle.js';

/** The discovered sections applied here; `discovery` is ignored, as OPA ignores it. */
const APPLIED = new Set(['bundles', 'services', 'keys', 'labels', 'discovery']);

/** How long the discovery policy may evaluate. */
const DISCOVERY_BUDGET_MS = 5000;

/** A discovered configuration refused: the message says why. */
export class DiscoveryError extends Error {
  override readonly name = 'DiscoveryError';
}

export interface DiscoveryOptions {
  config: DiscoveryConfig;
  /** Serves the bundles of a configuration discovered; resolves to why it cannot (then the last configuration stays), or undefined. */
  applyBundles: (bundles: readonly RemoteBundleConfig[]) => Promise<string | undefined>;
  limits?: BundleLimits;
  logger?: Logger;
  v0Compatible?: boolean;
  onStatusChange?: () => void;
}

export class Discovery {
  readonly #options: DiscoveryOptions;
  readonly #downloader: BundleDownloader;
  readonly #logger: Logger;
  /** Keys of the discovered configuration the boot configuration overrode (OPA's status message). */
  #overridden: string[] = [];

  constructor(options: DiscoveryOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
    this.#downloader = new BundleDownloader(options.config.bundle, {
      activate: () => this.#activate(),
      v0Compatible: options.v0Compatible === true,
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.onStatusChange ? { onStatusChange: options.onStatusChange } : {}),
    });
  }

  /** Applies the persisted discovery bundle, if any (before the server listens). */
  async loadPersisted(): Promise<void> {
    if (!(await this.#downloader.loadPersisted())) return;
    const activated = await this.#activate();
    if (activated !== true) this.#downloader.dropPersisted(activated);
  }

  start(): void {
    this.#downloader.start();
  }

  stop(): void {
    this.#downloader.stop();
  }

  /** The discovery entry of `/v1/status` (OPA's status report has one). */
  status(): Record<string, unknown> {
    const error = this.#downloader.lastError;
    const message =
      this.#overridden.length > 0 ? `Keys in the discovered configuration overridden by boot configuration: ${this.#overridden.join(', ')}` : undefined;
    return {
      name: this.#downloader.name,
      active_revision: this.#downloader.active?.info.revision ?? '',
      ...(this.#downloader.lastSuccessfulDownload ? { last_successful_download: this.#downloader.lastSuccessfulDownload.toISOString() } : {}),
      ...(error ? { code: 'bundle_error', message: error.message, last_error_at: error.at.toISOString() } : message ? { message } : {}),
    };
  }

  async #activate(): Promise<true | string> {
    const bundle = this.#downloader.active;
    if (bundle === undefined) return true;
    try {
      const { bundles, overridden } = resolveDiscovered(evaluateDiscovery(bundle, this.#options.config), this.#options.config);
      const refusal = await this.#options.applyBundles(bundles);
      if (refusal !== undefined) return refusal;
      this.#overridden = overridden;
      this.#logger.info('discovered configuration applied', { revision: bundle.info.revision, bundles: bundles.map((b) => b.name) });
      return true;
    } catch (error) {
      if (error instanceof DiscoveryError || error instanceof BundleConfigError) return error.message;
      throw error;
    }
  }
}

/** The discovery bundle's policy and data, evaluated at `data.<decision>` with `opa.runtime()` giving the boot configuration. */
export function evaluateDiscovery(bundle: LoadedBundle, config: DiscoveryConfig): unknown {
  const runtime = fromJS({ config: publicConfig(config.boot) });
  const builtins = defaultRegistry.clone().register({ name: 'opa.runtime', args: [], result: 'object', impl: () => runtime });
  try {
    const policy = compilePolicy({
      modules: bundle.files.modules.map((m) => ({ file: m.id, source: m.source, ...(m.regoVersion === undefined ? {} : { regoVersion: m.regoVersion }) })),
      data: bundle.files.data,
      builtins,
    });
    // Bounded, and on the event loop without the network (a discovery policy's http.send would hold the server).
    const value = policy.evaluate(config.path, undefined, {
      budgetMs: DISCOVERY_BUDGET_MS,
      network: { refuse: 'the discovery policy may not reach the network here' },
    });
    // As OPA's evaluateBundle.
    if (value === undefined) throw new DiscoveryError('undefined configuration');
    return toJS(value);
  } catch (error) {
    if (PolicyError.isInstance(error)) throw new DiscoveryError(`the discovery bundle: ${error.message}`);
    throw error;
  }
}

/** The configuration discovered, merged under the boot one and checked: the bundles to serve, and the keys the boot configuration overrode. */
export function resolveDiscovered(discovered: unknown, config: DiscoveryConfig): { bundles: RemoteBundleConfig[]; overridden: string[] } {
  if (!isPlainObject(discovered)) throw new DiscoveryError('the discovered configuration is not an object');
  for (const key of Object.keys(discovered)) {
    if (!APPLIED.has(key))
      throw new DiscoveryError(`the discovered configuration's ${JSON.stringify(key)} section is not supported here (bundles, services, keys, labels)`);
  }
  const boot = config.boot;
  const bootKeys = isPlainObject(boot.keys) ? boot.keys : {};
  if (config.bundle.verification !== undefined && isPlainObject(discovered.keys)) {
    for (const [id, key] of Object.entries(discovered.keys)) {
      if (id in bootKeys && !isDeepStrictEqual(bootKeys[id], key))
        throw new DiscoveryError('updates to keys specified in the boot configuration are not allowed');
    }
  }
  const merged = structuredClone(discovered);
  // The discovery section is the boot one, whatever is discovered (OPA: changes to it are ignored).
  delete merged.discovery;
  const overridden = mergeOver(merged, boot, '');
  let parsed;
  try {
    parsed = serverConfigOf(merged);
  } catch (error) {
    if (error instanceof BundleConfigError) throw new DiscoveryError(`the discovered configuration: ${error.message}`);
    throw error;
  }
  const before = servicesOf(boot).get(config.service);
  const after = servicesOf(merged).get(config.service);
  if (!isDeepStrictEqual(before, after)) throw new DiscoveryError('updates to the discovery service are not allowed');
  if (config.signs) {
    for (const bundle of parsed.bundles) {
      if (bundle.verification === undefined) {
        throw new DiscoveryError(`bundles.${bundle.name}: a discovered bundle must be signed (signing.keyid) when the boot configuration signs bundles`);
      }
    }
  }
  return { bundles: parsed.bundles, overridden };
}

/** OPA's mergeValuesAndListOverrides: `src` (the boot configuration) wins; returns the keys of `dest` it changed. */
function mergeOver(dest: Record<string, unknown>, src: Record<string, unknown>, prefix: string): string[] {
  const overridden: string[] = [];
  for (const [key, value] of Object.entries(src)) {
    if (!(key in dest)) {
      dest[key] = structuredClone(value);
      continue;
    }
    const full = prefix === '' ? key : `${prefix}.${key}`;
    const existing = dest[key];
    if (!isPlainObject(value)) {
      if (!isDeepStrictEqual(existing, value)) overridden.push(full);
      dest[key] = structuredClone(value);
    } else if (!isPlainObject(existing)) {
      dest[key] = structuredClone(value);
      overridden.push(full);
    } else {
      overridden.push(...mergeOver(existing, value, full));
    }
  }
  return overridden;
}

/** The boot configuration without credentials and keys (OPA's ActiveConfig), as `opa.runtime().config`. */
function publicConfig(boot: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(boot);
  delete copy.keys;
  const services = copy.services;
  for (const service of Array.isArray(services) ? services : isPlainObject(services) ? Object.values(services) : []) {
    if (isPlainObject(service)) delete service.credentials;
  }
  return copy;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
