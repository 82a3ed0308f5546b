/**
 * The part of OPA's configuration file (`opa run --config-file`) that names
 * bundles to download: `services` (a URL, optionally a bearer token),
 * `bundles` (service, resource, polling delays, signing) and `keys`. Any
 * other section, or a field this server would ignore, is refused rather
 * than silently dropped.
 */
import { readFileSync } from 'node:fs';
import { unmarshalYaml } from '../builtins/yaml.js';
import { toJS } from '../value-json.js';
import type { BundleVerification } from './bundle-signature.js';

export interface RemoteBundleConfig {
  name: string;
  /** The bundle's URL: the service's URL joined with the resource (OPA's default resource `bundles/<name>`). */
  url: string;
  headers: Record<string, string>;
  minDelaySeconds: number;
  maxDelaySeconds: number;
  /** Present when the bundle's `signing` names a key: downloads are verified with it. */
  verification?: BundleVerification;
}

/** A configuration file this server cannot follow: the message names the field. */
export class BundleConfigError extends Error {
  override readonly name = 'BundleConfigError';
}

const KNOWN_SECTIONS = new Set(['services', 'bundles', 'keys', 'labels']);

/** Reads OPA's configuration file (YAML or JSON) and returns the bundles it names. */
export function readBundleConfig(path: string): RemoteBundleConfig[] {
  let config: unknown;
  try {
    config = toJS(unmarshalYaml(readFileSync(path, 'utf8')));
  } catch (error) {
    throw new BundleConfigError(`cannot read the configuration file ${path}: ${(error as Error).message}`);
  }
  return bundleConfigOf(config);
}

export function bundleConfigOf(config: unknown): RemoteBundleConfig[] {
  const root = object(config, 'the configuration');
  for (const key of Object.keys(root)) {
    if (!KNOWN_SECTIONS.has(key))
      throw new BundleConfigError(`the configuration's ${JSON.stringify(key)} section is not supported here (services, bundles, keys)`);
  }
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
  const keys = object(root.keys ?? {}, 'keys');
  return Object.entries(object(root.bundles ?? {}, 'bundles')).map(([name, raw]) => {
    const bundle = object(raw, `bundles.${name}`);
    const serviceName = typeof bundle.service === 'string' ? bundle.service : services.size === 1 ? [...services.keys()][0] : undefined;
    const service = serviceName === undefined ? undefined : services.get(serviceName);
    if (service === undefined) throw new BundleConfigError(`bundles.${name}.service names no configured service`);
    const resource = typeof bundle.resource === 'string' ? bundle.resource : `bundles/${name}`;
    const polling = object(bundle.polling ?? {}, `bundles.${name}.polling`);
    const minDelaySeconds = delay(polling.min_delay_seconds, 60, `bundles.${name}.polling.min_delay_seconds`);
    const maxDelaySeconds = delay(polling.max_delay_seconds, 120, `bundles.${name}.polling.max_delay_seconds`);
    if (maxDelaySeconds < minDelaySeconds) throw new BundleConfigError(`bundles.${name}.polling: max_delay_seconds is less than min_delay_seconds`);
    for (const key of ['persist', 'trigger', 'size_limit_bytes']) {
      if (bundle[key] !== undefined) throw new BundleConfigError(`bundles.${name}.${key} is not supported here`);
    }
    let verification: BundleVerification | undefined;
    if (bundle.signing !== undefined && bundle.signing !== null) {
      const signing = object(bundle.signing, `bundles.${name}.signing`);
      const keyId = typeof signing.keyid === 'string' ? signing.keyid : '';
      const key = keyId === '' ? undefined : keys[keyId];
      if (key === undefined) throw new BundleConfigError(`bundles.${name}.signing.keyid names no key in the keys section`);
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
      ...(verification ? { verification } : {}),
    };
  });
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
