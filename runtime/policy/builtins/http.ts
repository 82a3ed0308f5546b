/**
 * http.send: real HTTP(S) requests with OPA's request object and response
 * shape `{status, status_code, body, raw_body, headers}` (header names
 * lower-cased, values as lists). The request runs on a worker thread while
 * the evaluation blocks (see sync-io.ts), so queries stay synchronous and
 * policies that never call http.send pay nothing.
 *
 * Options: method, url, headers, body (sent as JSON), raw_body,
 * enable_redirect, force_json_decode, force_yaml_decode, timeout (Go
 * duration string or nanoseconds; default 5s), raise_error (default true;
 * false turns network errors into `{status_code: 0, error: {code, message}}`),
 * tls_ca_cert, tls_client_cert, tls_client_key, tls_insecure_skip_verify,
 * tls_server_name, and caching: identical requests in one query are sent
 * once (as OPA); `cache: true` keeps responses across queries for as long
 * as their Cache-Control max-age / Expires allow, `force_cache: true` for
 * `force_cache_duration_seconds`. The `*_file`/`*_env_variable` TLS
 * options, tls_use_system_certs, max_retry_attempts and caching_mode are
 * accepted and ignored except as noted in docs/policy.md.
 */
import { PolicyError } from '../errors.js';
import { RegoObject, RegoSet, type Value } from '../value.js';
import { formatValue } from '../value-format.js';
import { parseJSON, stringifyJSON } from '../value-json.js';
import { asObject, type BuiltinContext, type BuiltinDefinition, BuiltinError } from './registry.js';
import { httpRequestSync, type HttpRequest } from './sync-io.js';
import { timeBuiltins } from './time.js';
import { yamlBuiltins } from './yaml.js';

const REQUIRED = ['method', 'url'];
const ALLOWED = new Set([
  'method',
  'url',
  'body',
  'enable_redirect',
  'force_json_decode',
  'force_yaml_decode',
  'headers',
  'raw_body',
  'tls_use_system_certs',
  'tls_ca_cert',
  'tls_ca_cert_file',
  'tls_ca_cert_env_variable',
  'tls_client_cert',
  'tls_client_cert_file',
  'tls_client_cert_env_variable',
  'tls_client_key',
  'tls_client_key_file',
  'tls_client_key_env_variable',
  'tls_insecure_skip_verify',
  'tls_server_name',
  'timeout',
  'cache',
  'force_cache',
  'force_cache_duration_seconds',
  'raise_error',
  'caching_mode',
  'max_retry_attempts',
  'cache_ignored_headers',
]);

const DEFAULT_TIMEOUT_MS = 5_000;

function builtin(family: readonly BuiltinDefinition[], name: string): BuiltinDefinition {
  const d = family.find((x) => x.name === name);
  if (d === undefined) throw new Error(`missing builtin ${name}`);
  return d;
}
const parseDuration = builtin(timeBuiltins, 'time.parse_duration_ns');
const yamlUnmarshal = builtin(yamlBuiltins, 'yaml.unmarshal');

function str(o: RegoObject, key: string): string | undefined {
  const v = o.get(key);
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new BuiltinError(`invalid type for ${key}: ${formatValue(v)}`);
  return v;
}

function bool(o: RegoObject, key: string): boolean {
  const v = o.get(key);
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw new BuiltinError(`invalid type for ${key}: ${formatValue(v)}`);
  return v;
}

function timeoutMs(v: Value | undefined, ctx: BuiltinContext): number {
  if (v === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof v === 'number' || typeof v === 'bigint') return Math.max(1, Number(BigInt(v) / 1_000_000n));
  if (typeof v === 'string') {
    try {
      const ns = parseDuration.impl([v], ctx);
      return Math.max(1, Number(BigInt(ns as number | bigint) / 1_000_000n));
    } catch (e) {
      throw new BuiltinError(`invalid timeout value ${JSON.stringify(v)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  throw new BuiltinError(`invalid timeout value ${formatValue(v)}`);
}

function toRequest(o: RegoObject, ctx: BuiltinContext): HttpRequest {
  const headers: Record<string, string> = {};
  const h = o.get('headers');
  if (h !== undefined) {
    if (!(h instanceof RegoObject)) throw new BuiltinError(`invalid type for headers: ${formatValue(h)}`);
    for (const [k, v] of h.entries()) {
      if (typeof v !== 'string') throw new BuiltinError(`invalid type for headers value ${JSON.stringify(formatValue(v))}`);
      headers[String(k)] = v;
    }
  }
  let body: string | undefined;
  const raw = str(o, 'raw_body');
  if (raw !== undefined) body = raw;
  else if (o.has('body') && o.get('body') !== null) {
    body = stringifyJSON(o.get('body') as Value);
  }
  const method = (str(o, 'method') ?? '').toUpperCase();
  const url = str(o, 'url') ?? '';
  const tls: HttpRequest['tls'] = {};
  const ca = str(o, 'tls_ca_cert');
  if (ca !== undefined) tls.ca = ca;
  const cert = str(o, 'tls_client_cert');
  if (cert !== undefined) tls.cert = cert;
  const key = str(o, 'tls_client_key');
  if (key !== undefined) tls.key = key;
  if (bool(o, 'tls_insecure_skip_verify')) tls.insecure = true;
  const sni = str(o, 'tls_server_name');
  if (sni !== undefined) tls.serverName = sni;
  return {
    method,
    url,
    headers,
    ...(body === undefined ? {} : { body }),
    timeoutMs: timeoutMs(o.get('timeout'), ctx),
    followRedirects: bool(o, 'enable_redirect'),
    tls,
  };
}

const STATUS_TEXT: Record<number, string> = { 200: 'OK' };

function decodeBody(raw: string, contentType: string, o: RegoObject, ctx: BuiltinContext): Value {
  const json = bool(o, 'force_json_decode') || /^application\/(.+\+)?json\b/i.test(contentType.trim());
  const yaml = !json && (bool(o, 'force_yaml_decode') || /^(application|text)\/(x-)?yaml\b/i.test(contentType.trim()));
  try {
    if (json) return parseJSON(raw);
    if (yaml) return (yamlUnmarshal.impl([raw], ctx) as Value | undefined) ?? null;
  } catch {
    return null;
  }
  return null;
}

/** Responses kept across queries (`cache` / `force_cache`): key → [expiry ms, response]. */
const interQueryCache = new Map<string, [number, RegoObject]>();
const INTER_QUERY_MAX = 1_000;

function freshFor(headers: Array<[string, string]>, nowMs: number): number {
  const get = (n: string) => headers.find(([k]) => k.toLowerCase() === n)?.[1];
  const cc = get('cache-control') ?? '';
  if (/\b(no-store|no-cache)\b/i.test(cc)) return 0;
  const m = /\bmax-age=(\d+)/i.exec(cc);
  if (m !== null) return Number(m[1]) * 1000;
  const exp = get('expires');
  if (exp !== undefined) {
    const t = Date.parse(exp);
    if (!Number.isNaN(t)) return Math.max(0, t - nowMs);
  }
  return 0;
}

function send(req: Value | undefined, ctx: BuiltinContext): Value {
  const o = asObject(req, 1);
  const missing = REQUIRED.filter((k) => !o.has(k));
  if (missing.length > 0) {
    throw BuiltinError.type(`operand 1 missing required request parameters(s): ${formatValue(RegoSet.of(missing))}`);
  }
  const invalid = o.keys().filter((k) => typeof k !== 'string' || !ALLOWED.has(k));
  if (invalid.length > 0) throw BuiltinError.type(`operand 1 invalid request parameters(s): ${formatValue(RegoSet.of(invalid))}`);
  const raiseError = o.has('raise_error') ? bool(o, 'raise_error') : true;
  const request = toRequest(o, ctx);

  const key = `http.send:${stringifyJSON(o)}`;
  const seen = ctx.cache.get(key) as RegoObject | undefined;
  if (seen !== undefined) return seen;
  const nowMs = Number(ctx.timeNs / 1_000_000n);
  const useCache = bool(o, 'cache') || bool(o, 'force_cache');
  if (useCache) {
    const hit = interQueryCache.get(key);
    if (hit !== undefined && hit[0] > Date.now()) {
      ctx.cache.set(key, hit[1]);
      return hit[1];
    }
  }

  ctx.useNetwork?.('http.send');
  // Never waits past the evaluation budget: the budget bounds network waits too.
  const left = Math.max(0, ctx.budgetLeftMs?.() ?? Infinity);
  const answered = httpRequestSync(request, left);
  if (answered === undefined && left < request.timeoutMs + 5_000) {
    throw new PolicyError({ code: 'eval_cancel_error', detail: 'caller cancelled query execution: the evaluation budget was spent waiting for http.send' });
  }
  const r = answered ?? { ok: false as const, message: `${request.method} "${request.url}": request timed out after ${request.timeoutMs}ms` };
  if (!r.ok) {
    if (raiseError) throw new BuiltinError(r.message);
    return RegoObject.fromEntries([
      ['status_code', 0],
      [
        'error',
        RegoObject.fromEntries([
          ['code', 'eval_http_send_network_error'],
          ['message', r.message],
        ]),
      ],
    ]);
  }
  const headers = new RegoObject();
  let contentType = '';
  for (const [k, v] of r.headers) {
    const name = k.toLowerCase();
    if (name === 'content-type' && contentType === '') contentType = v;
    const cur = headers.get(name);
    headers.set(name, Array.isArray(cur) ? [...cur, v] : [v]);
  }
  const statusText = r.statusText !== '' ? r.statusText : (STATUS_TEXT[r.status] ?? '');
  const response = RegoObject.fromEntries([
    ['status', `${r.status} ${statusText}`.trim()],
    ['status_code', r.status],
    ['body', decodeBody(r.body, contentType, o, ctx)],
    ['raw_body', r.body],
    ['headers', headers],
  ]);
  ctx.cache.set(key, response);
  if (useCache) {
    const forced = bool(o, 'force_cache');
    const secs = o.get('force_cache_duration_seconds');
    if (forced && (typeof secs !== 'number' || secs <= 0)) throw new BuiltinError("'force_cache' set but 'force_cache_duration_seconds' parameter is missing");
    const ttl = forced ? Number(secs) * 1000 : freshFor(r.headers, nowMs);
    if (ttl > 0 && r.status >= 200 && r.status < 300) {
      if (interQueryCache.size >= INTER_QUERY_MAX) interQueryCache.delete(interQueryCache.keys().next().value as string);
      interQueryCache.set(key, [Date.now() + ttl, response]);
    }
  }
  return response;
}

export const httpBuiltins: BuiltinDefinition[] = [
  {
    name: 'http.send',
    args: ['object'],
    result: 'object',
    nondeterministic: true,
    impl: ([req], ctx) => send(req, ctx),
  },
];
