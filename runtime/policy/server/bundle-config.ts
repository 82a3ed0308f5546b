/**
 * The part of OPA's configuration file (`opa run --config-file`) this server
 * follows: `services` (a URL, optionally a bearer token), `bundles` (service,
 * resource, polling delays, signing), `keys`, `decision_logs` (uploads of
 * decision events) and `status` (uploads of the status). Any other section,
 * or a field this server would ignore, is refused rather than silently dropped.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { unmarshalYaml } from '../builtins/yaml.js';
import { toJS } from '../value-json.js';
import type { BundleVerification } from './bundle-signature.js';
import { persistedNameProblem } from './bundle-persistence.js';

export interface RemoteBundleConfig {
  name: string;
  /** The bundle's URL: the service's URL joined with the resource (OPA's default resource `bundles/<name>`). */
  url: string;
  headers: Record<string, string>;
  minDelaySeconds: number;
  maxDelaySeconds: number;
  /**
   * OPA's `polling.long_polling_timeout_seconds`: each request asks the server to hold it up to this
   * long (`Prefer: modes=snapshot,delta;wait=N`) while the bundle is unchanged; absent, periodic polling only.
   */
  longPollingTimeoutSeconds?: number;
  /** Present when the bundle's `signing` names a key: downloads are verified with it. */
  verification?: BundleVerification;
  /**
   * OPA's `persist: true`: the persistence directory (`persistence_directory`, default `<cwd>/.opa`, made absolute)
   * under which the last snapshot activated is kept as `bundles/<name>/bundle.tar.gz` and read at start.
   */
  persistDirectory?: string;
}

/** A configuration file this server cannot follow: the message names the field. */
export class BundleConfigError extends Error {
  override readonly name = 'BundleConfigError';
}

/** Where decision events go (OPA's `decision_logs`): uploaded to a service, and/or printed (`console`). */
export interface DecisionUploadConfig {
  /** `<service url>/<resource>` (OPA's default resource `/logs`); absent when only `console` is on. */
  url?: string;
  headers: Record<string, string>;
  /** Write each event to standard output as well. */
  console: boolean;
  minDelaySeconds: number;
  maxDelaySeconds: number;
  /** Largest gzip-compressed upload (OPA's default 32768). */
  uploadSizeLimitBytes: number;
  /** Events kept while uploads fail or wait; the oldest are dropped past it (OPA's event buffer default 10000). */
  bufferSizeLimitEvents: number;
  /** Bytes of events kept (OPA's size buffer `buffer_size_limit_bytes`); unbounded when absent. */
  bufferSizeLimitBytes?: number;
}

/** Where status reports go (OPA's `status`): `<service url>/status`, and/or printed (`console`). */
export interface StatusUploadConfig {
  url?: string;
  headers: Record<string, string>;
  console: boolean;
}

/** OPA's `discovery`: a bundle whose policy yields the rest of the configuration. */
export interface DiscoveryConfig {
  /** The discovery bundle's download (name, URL, polling, signing, persistence). */
  bundle: RemoteBundleConfig;
  /** The document evaluated below `data` (`decision` split at `/`; empty: `data` whole). */
  path: string[];
  /** The boot configuration as read (it overrides what discovery yields). */
  boot: Record<string, unknown>;
  /** The discovery service's name (a discovered configuration may not change it). */
  service: string;
  /** Whether the boot configuration signs the discovery bundle or any bundle (then discovered bundles must be signed). */
  signs: boolean;
}

/** What a configuration file asks of the server. */
export interface ServerConfig {
  bundles: RemoteBundleConfig[];
  discovery?: DiscoveryConfig;
  decisionLogs?: DecisionUploadConfig;
  status?: StatusUploadConfig;
}

const KNOWN_SECTIONS = new Set(['services', 'bundles', 'keys', 'labels', 'decision_logs', 'status', 'persistence_directory', 'discovery']);

/** Reads OPA's configuration file (YAML or JSON) and returns what it configures. */
export function readServerConfig(path: string): ServerConfig {
  let config: unknown;
  try {
    config = toJS(unmarshalYaml(readFileSync(path, 'utf8')));
  } catch (error) {
    throw new BundleConfigError(`cannot read the configuration file ${path}: ${(error as Error).message}`);
  }
  return serverConfigOf(config);
}

/** Reads OPA's configuration file and returns the bundles it names. */
export function readBundleConfig(path: string): RemoteBundleConfig[] {
  return readServerConfig(path).bundles;
}

export function bundleConfigOf(config: unknown): RemoteBundleConfig[] {
  return serverConfigOf(config).bundles;
}

export function serverConfigOf(config: unknown): ServerConfig {
  const root = object(config, 'the configuration');
  for (const key of Object.keys(root)) {
    if (!KNOWN_SECTIONS.has(key))
      throw new BundleConfigError(
        `the configuration's ${JSON.stringify(key)} section is not supported here (services, bundles, keys, labels, decision_logs, status, persistence_directory, discovery)`,
      );
  }
  const persistence = root.persistence_directory;
  if (persistence !== undefined && (typeof persistence !== 'string' || persistence === '')) throw new BundleConfigError('persistence_directory must be a path');
  // As OPA's GetPersistenceDirectory: `.opa` in the working directory unless configured.
  const persistenceDirectory = resolve(persistence ?? '.opa');
  const services = servicesOf(root);
  const keys = object(root.keys ?? {}, 'keys');
  const context: BundleContext = { services, keys, persistenceDirectory };
  const bundles = Object.entries(object(root.bundles ?? {}, 'bundles')).map(([name, raw]) =>
    remoteBundleOf({ what: `bundles.${name}`, name, bundle: object(raw, `bundles.${name}`), resource: `bundles/${name}`, context }),
  );
  const discovery = root.discovery === undefined || root.discovery === null ? undefined : discoveryOf(root, context, bundles);
  const decisionLogs = root.decision_logs === undefined || root.decision_logs === null ? undefined : decisionLogsOf(root.decision_logs, services);
  const status = root.status === undefined || root.status === null ? undefined : statusOf(root.status, services);
  return { bundles, ...(decisionLogs ? { decisionLogs } : {}), ...(status ? { status } : {}), ...(discovery ? { discovery } : {}) };
}

/** The `services` section by name: URL (no trailing `/`) and headers (a bearer token as `Authorization`). */
export function servicesOf(root: Record<string, unknown>): Map<string, { url: string; headers: Record<string, string> }> {
  const services = new Map<string, { url: string; headers: Record<string, string> }>();
  const rawServices = root.services ?? {};
  // OPA takes services as a map by name or as a list of objects with a `name`.
  const serviceEntries: Array<[string, unknown]> = Array.isArray(rawServices)
    ? rawServices.map((s, i) => [String(object(s, `services[${i}]`).name ?? ''), s])
    : Object.entries(object(rawServices, 'services'));
  for (const [name, raw] of serviceEntries) {
    const service = object(raw, `services.${name}`);
    const url = service.url;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new BundleConfigError(`services.${name}.url must be an http(s) URL`);
    const headers: Record<string, string> = {};
    for (const [header, value] of Object.entries(object(service.headers ?? {}, `services.${name}.headers`))) headers[header] = String(value);
    if (service.credentials !== undefined) {
      const credentials = object(service.credentials, `services.${name}.credentials`);
      const kinds = Object.keys(credentials);
      if (kinds.length !== 1 || kinds[0] !== 'bearer') throw new BundleConfigError(`services.${name}.credentials: only bearer tokens are supported here`);
      const bearer = object(credentials.bearer, `services.${name}.credentials.bearer`);
      if (typeof bearer.token !== 'string') throw new BundleConfigError(`services.${name}.credentials.bearer.token must be a string`);
      headers.Authorization = `${typeof bearer.scheme === 'string' ? bearer.scheme : 'Bearer'} ${bearer.token}`;
    }
    services.set(name, { url: url.replace(/\/+$/, ''), headers });
  }
  return services;
}

interface BundleContext {
  services: Services;
  keys: Record<string, unknown>;
  persistenceDirectory: string;
}

/** A bundle's download (a `bundles` entry, or the discovery bundle): `what` names it in errors. */
function remoteBundleOf({
  what,
  name,
  bundle,
  resource: defaultResource,
  context,
}: {
  what: string;
  name: string;
  bundle: Record<string, unknown>;
  resource: string;
  context: BundleContext;
}): RemoteBundleConfig {
  const { services, keys, persistenceDirectory } = context;
  const serviceName = typeof bundle.service === 'string' ? bundle.service : services.size === 1 ? [...services.keys()][0] : undefined;
  const service = serviceName === undefined ? undefined : services.get(serviceName);
  if (service === undefined) throw new BundleConfigError(`${what}.service names no configured service`);
  const resource = typeof bundle.resource === 'string' ? bundle.resource : defaultResource;
  const polling = object(bundle.polling ?? {}, `${what}.polling`);
  const minDelaySeconds = delay(polling.min_delay_seconds, 60, `${what}.polling.min_delay_seconds`);
  const maxDelaySeconds = delay(polling.max_delay_seconds, 120, `${what}.polling.max_delay_seconds`);
  if (maxDelaySeconds < minDelaySeconds) throw new BundleConfigError(`${what}.polling: max_delay_seconds is less than min_delay_seconds`);
  const longPolling = polling.long_polling_timeout_seconds;
  // OPA reads it as an int64 and refuses one below 1 ("'long_polling_timeout_seconds' must be at least 1").
  if (longPolling !== undefined && (typeof longPolling !== 'number' || !Number.isInteger(longPolling) || longPolling < 1)) {
    throw new BundleConfigError(`${what}.polling.long_polling_timeout_seconds must be a whole number of seconds, at least 1`);
  }
  const persist = bundle.persist ?? false;
  if (typeof persist !== 'boolean') throw new BundleConfigError(`${what}.persist must be true or false`);
  const nameProblem = persist ? persistedNameProblem(name) : undefined;
  if (nameProblem !== undefined) throw new BundleConfigError(`${what}.persist: ${nameProblem}`);
  for (const key of ['trigger', 'size_limit_bytes']) {
    if (bundle[key] !== undefined) throw new BundleConfigError(`${what}.${key} is not supported here`);
  }
  let verification: BundleVerification | undefined;
  if (bundle.signing !== undefined && bundle.signing !== null) {
    const signing = object(bundle.signing, `${what}.signing`);
    const keyId = typeof signing.keyid === 'string' ? signing.keyid : '';
    const key = keyId === '' ? undefined : keys[keyId];
    if (key === undefined) throw new BundleConfigError(`${what}.signing.keyid names no key in the keys section`);
    const k = object(key, `keys.${keyId}`);
    if (typeof k.key !== 'string') throw new BundleConfigError(`keys.${keyId}.key must be a string (a secret or a PEM public key)`);
    const scope = typeof signing.scope === 'string' ? signing.scope : typeof k.scope === 'string' ? k.scope : undefined;
    verification = {
      key: k.key,
      keyId,
      algorithm: typeof k.algorithm === 'string' ? k.algorithm : 'RS256',
      ...(scope === undefined ? {} : { scope }),
      excludeFiles: Array.isArray(signing.exclude_files) ? signing.exclude_files.map(String) : [],
    };
  }
  return {
    name,
    url: `${service.url}/${resource.replace(/^\/+/, '')}`,
    headers: service.headers,
    minDelaySeconds,
    maxDelaySeconds,
    ...(longPolling === undefined ? {} : { longPollingTimeoutSeconds: longPolling }),
    ...(verification ? { verification } : {}),
    ...(persist ? { persistDirectory: persistenceDirectory } : {}),
  };
}

/**
 * OPA's `discovery` section (v1/plugins/discovery/config.go): the discovery bundle is downloaded from
 * `service` at `resource` (or `<prefix>/<name>`, prefix `bundles`), polled, verified and persisted as a
 * bundle is; `decision` (`a/b`, default `name`, else the whole of `data`) is the document evaluated.
 */
function discoveryOf(root: Record<string, unknown>, context: BundleContext, bundles: readonly RemoteBundleConfig[]): DiscoveryConfig {
  const section = object(root.discovery, 'discovery');
  const text = (key: string): string | undefined => {
    const value = section[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw new BundleConfigError(`discovery.${key} must be a string`);
    return value;
  };
  const name = text('name');
  const resource = text('resource');
  const decision = text('decision');
  const prefix = text('prefix') ?? 'bundles';
  if (resource === undefined && name === undefined) throw new BundleConfigError('missing required discovery.resource field');
  const trim = (s: string) => s.replace(/^\/+|\/+$/g, '');
  const bundle = remoteBundleOf({
    what: 'discovery',
    // The persisted discovery bundle's folder, as OPA's discoveryBundleDirName.
    name: name ?? 'discovery',
    bundle: section,
    resource: resource ?? `${trim(prefix)}/${trim(name ?? '')}`,
    context,
  });
  const query = decision ?? name;
  const path =
    query === undefined
      ? []
      : trim(query)
          .split('/')
          .filter((s) => s !== '');
  const service = typeof section.service === 'string' ? section.service : ([...context.services.keys()][0] as string);
  return { bundle, path, boot: root, service, signs: bundle.verification !== undefined || bundles.some((b) => b.verification !== undefined) };
}

type Services = ReadonlyMap<string, { url: string; headers: Record<string, string> }>;

/** The service a `decision_logs` or `status` section uploads to: the one named, or the only one; none with `console` alone. */
function uploadTarget(
  section: Record<string, unknown>,
  what: string,
  services: Services,
  defaultResource: string,
): { url?: string; headers: Record<string, string>; console: boolean } {
  const toConsole = section.console ?? false;
  if (typeof toConsole !== 'boolean') throw new BundleConfigError(`${what}.console must be true or false`);
  for (const key of ['plugin', 'partition_name', 'trigger', 'prometheus', 'mask_decision', 'drop_decision', 'request_context', 'ndbuiltin_cache']) {
    if (section[key] !== undefined) throw new BundleConfigError(`${what}.${key} is not supported here`);
  }
  const named = section.service;
  if (named !== undefined && typeof named !== 'string') throw new BundleConfigError(`${what}.service must be a string`);
  // As OPA: without a service named, `console: true` prints only; otherwise the (only) service is used.
  const serviceName = named ?? (toConsole || services.size !== 1 ? undefined : [...services.keys()][0]);
  if (serviceName === undefined) {
    if (toConsole) return { headers: {}, console: true };
    throw new BundleConfigError(`${what}.service names no configured service (name one, or set console: true)`);
  }
  const service = services.get(serviceName);
  if (service === undefined) throw new BundleConfigError(`${what}.service names no configured service`);
  const resource = section.resource ?? defaultResource;
  if (typeof resource !== 'string') throw new BundleConfigError(`${what}.resource must be a string`);
  return { url: `${service.url}/${resource.replace(/^\/+/, '')}`, headers: service.headers, console: toConsole };
}

function decisionLogsOf(raw: unknown, services: Services): DecisionUploadConfig {
  const section = object(raw, 'decision_logs');
  const target = uploadTarget(section, 'decision_logs', services, '/logs');
  const reporting = object(section.reporting ?? {}, 'decision_logs.reporting');
  const minDelaySeconds = delay(reporting.min_delay_seconds, 300, 'decision_logs.reporting.min_delay_seconds');
  const maxDelaySeconds = delay(reporting.max_delay_seconds, 600, 'decision_logs.reporting.max_delay_seconds');
  if (maxDelaySeconds < minDelaySeconds) throw new BundleConfigError('decision_logs.reporting: max_delay_seconds is less than min_delay_seconds');
  const bufferType = reporting.buffer_type ?? 'size';
  if (bufferType !== 'size' && bufferType !== 'event') throw new BundleConfigError('decision_logs.reporting.buffer_type must be size or event');
  for (const key of ['trigger']) {
    if (reporting[key] !== undefined) throw new BundleConfigError(`decision_logs.reporting.${key} is not supported here`);
  }
  const bytes = reporting.buffer_size_limit_bytes;
  return {
    ...target,
    minDelaySeconds,
    maxDelaySeconds,
    uploadSizeLimitBytes: delay(reporting.upload_size_limit_bytes, 32768, 'decision_logs.reporting.upload_size_limit_bytes'),
    bufferSizeLimitEvents: delay(reporting.buffer_size_limit_events, 10000, 'decision_logs.reporting.buffer_size_limit_events'),
    ...(bytes === undefined ? {} : { bufferSizeLimitBytes: delay(bytes, 0, 'decision_logs.reporting.buffer_size_limit_bytes') }),
  };
}

function statusOf(raw: unknown, services: Services): StatusUploadConfig {
  return uploadTarget(object(raw, 'status'), 'status', services, '/status');
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BundleConfigError(`${what} must be an object`);
  return value as Record<string, unknown>;
}

function delay(value: unknown, fallback: number, what: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new BundleConfigError(`${what} must be a positive number`);
  return value;
}
