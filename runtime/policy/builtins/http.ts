/**
 * http.send: real HTTP(S) requests with OPA's request object and response
 * shape `{status, status_code, body, raw_body, headers}` (header names
 * lower-cased, values as lists). The request runs on a worker thread while
 * the evaluation blocks (see sync-io.ts), so queries stay synchronous and
 * policies that never call http.send pay nothing.
 *
 * It follows OPA v1.20.2's `topdown/http.go` step by step, so options are
 * read, checked and refused in its order and words (compared with OPA in
 * test/policy/builtins/http-send-opa.test.ts): every request option
 * (`tls_*` inline, from files and from environment variables,
 * `tls_use_system_certs`, `max_retry_attempts` with OPA's backoff,
 * `cache_ignored_headers`, `caching_mode`, `unix://…?socket=` URLs, a
 * `Host` header naming the TLS server), the per-query cache (responses of
 * cacheable status codes and errors, keyed without the ignored headers) and
 * the cache across queries (`cache` / `force_cache`: expiry from `max-age`
 * after `Date`, or `Expires`; `no-store` honoured; a stale response with an
 * `ETag` or `Last-Modified` revalidated with a conditional request).
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { PolicyError } from '../errors.js';
import { formatValue, goQuote } from '../value-format.js';
import { goJSON } from '../value-gojson.js';
import { parseJSON, stringifyJSON } from '../value-json.js';
import { RegoObject, RegoSet, typeName, type Value } from '../value.js';
import { asObject, type BuiltinContext, type BuiltinDefinition, BuiltinError } from './registry.js';
import { httpRequestSync, type HttpRequest, type HttpResult } from './sync-io.js';
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

/** The options OPA requires to be strings (`"tls_ca_cert" must be a string`): the TLS ones but its two switches, and three more. */
const STRING_OPTIONS = new Set([
  'method',
  'url',
  'raw_body',
  ...[...ALLOWED].filter((k) => k.startsWith('tls_') && k !== 'tls_use_system_certs' && k !== 'tls_insecure_skip_verify'),
]);

const DEFAULT_TIMEOUT_MS = 5_000;
/** RFC 7231's cacheable status codes, as OPA's list. */
const CACHEABLE = new Set([200, 203, 204, 206, 300, 301, 404, 405, 410, 414, 501]);
/** OPA's retry backoff: 100 ms doubling to 60 s, ±20% jitter (the first retry at once). */
const MIN_RETRY_DELAY_MS = 100;
const MAX_RETRY_DELAY_MS = 60_000;

function builtin(family: readonly BuiltinDefinition[], name: string): BuiltinDefinition {
  const d = family.find((x) => x.name === name);
  if (d === undefined) throw new Error(`missing builtin ${name}`);
  return d;
}
const parseDuration = builtin(timeBuiltins, 'time.parse_duration_ns');
const yamlUnmarshal = builtin(yamlBuiltins, 'yaml.unmarshal');

/**
 * An error of the request itself (not a `url.Error`): `eval_http_send_internal_error` when `raise_error` is false,
 * its message then as OPA's topdown error prints it (`eval_builtin_error: http.send: …`), except for the two
 * checks whose errors OPA hands on unwrapped (`cache_ignored_headers`, `max_retry_attempts`).
 */
class SendError extends Error {
  constructor(
    message: string,
    readonly form: 'builtin' | 'type' | 'raw' = 'builtin',
  ) {
    super(message);
  }

  /** The message of OPA's error object when `raise_error` is false: its topdown error's text, location first. */
  reported(ctx: BuiltinContext): string {
    return this.form === 'raw' ? this.message : topdownText(this.form, this.message, ctx);
  }
}

/** A transport error (Go's `url.Error`): `eval_http_send_network_error` when `raise_error` is false. */
class NetworkError extends Error {
  constructor(
    message: string,
    readonly timeout: { op: string; url: string } | undefined,
  ) {
    super(message);
  }
}

/** Go's `strconv.ParseBool` of the option's Rego text, as OPA reads `enable_redirect` and the `tls_*` switches. */
function parseBool(v: Value): boolean {
  const text = formatValue(v);
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  throw new SendError(`strconv.ParseBool: parsing ${goQuote(text)}: invalid syntax`);
}

/** OPA's `getBoolValFromReqObj`: absent is false, anything but a boolean an error. */
function boolField(o: RegoObject, key: string): boolean {
  const v = o.get(key);
  if (v === undefined) return false;
  if (typeof v !== 'boolean') throw new SendError(`invalid value for ${goQuote(key)} field`);
  return v;
}

const INT64 = /^-?\d+$/;
const inInt64 = (text: string): boolean => INT64.test(text) && BigInt(text) >= -(2n ** 63n) && BigInt(text) < 2n ** 63n;

/** Go's `strconv.ParseInt(text, 10, bits)` error text, or the value. */
function parseGoInt(text: string, bits: 32 | 64): bigint {
  if (!INT64.test(text.replace(/^\+/, ''))) throw new SendError(`strconv.ParseInt: parsing ${goQuote(text)}: invalid syntax`);
  const n = BigInt(text.replace(/^\+/, ''));
  const limit = 2n ** BigInt(bits - 1);
  if (n < -limit || n >= limit) throw new SendError(`strconv.ParseInt: parsing ${goQuote(text)}: value out of range`);
  return n;
}

/** OPA's `parseTimeout`: nanoseconds as a number or an integer string, or a Go duration; 0 or less is no limit. */
function timeoutMs(v: Value, ctx: BuiltinContext): number {
  let ns: bigint;
  if (typeof v === 'number' || typeof v === 'bigint' || typeName(v) === 'number') {
    const text = formatValue(v);
    if (!inInt64(text)) throw new SendError(`invalid timeout number value ${text}, must be int64`);
    ns = BigInt(text);
  } else if (typeof v === 'string') {
    if (inInt64(v.replace(/^\+/, ''))) ns = BigInt(v.replace(/^\+/, ''));
    else {
      try {
        ns = BigInt(parseDuration.impl([v], ctx) as number | bigint);
      } catch (e) {
        throw new SendError(`invalid timeout value ${formatValue(v)}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  } else {
    throw new SendError(`operand 1 'timeout' must be one of {string, number} but got ${typeName(v)}`, 'type');
  }
  if (ns <= 0n) return 0;
  return Math.max(1, Number((ns + 999_999n) / 1_000_000n));
}

/** OPA's `getNumberValFromReqObj` for `max_retry_attempts`. */
function retryAttempts(o: RegoObject): number {
  const v = o.get('max_retry_attempts');
  if (v === undefined) return 0;
  const text = formatValue(v);
  if (typeName(v) !== 'number' || !inInt64(text) || text.startsWith('-')) throw new SendError(`invalid value ${text} for field "max_retry_attempts"`, 'raw');
  return Number(text);
}

/** The cache key: the request without the headers `cache_ignored_headers` names, that option itself null (OPA's `getKeyFromRequest`). */
function cacheKey(o: RegoObject): RegoObject {
  const key = RegoObject.fromEntries([...o.entries()]);
  const ignored = o.get('cache_ignored_headers');
  const headers = o.get('headers');
  key.set('cache_ignored_headers', null);
  if (ignored === undefined || headers === undefined) return key;
  if (!Array.isArray(ignored) || ignored.some((h) => typeof h !== 'string')) throw new SendError('cache_ignored_headers must be an array of strings', 'raw');
  if (!(headers instanceof RegoObject)) return key;
  key.set('headers', RegoObject.fromEntries(headers.entries().filter(([k]) => !ignored.includes(k))));
  return key;
}

/** The response's cache lifetime as OPA's inter-query cache reads it. */
interface ForceCache {
  seconds: number;
}

/** OPA's `useInterQueryCache`: whether `cache` or `force_cache` is set, and `force_cache_duration_seconds`. */
function interQuery(o: RegoObject): { use: boolean; force?: ForceCache } {
  const cache = boolField(o, 'cache');
  if (!boolField(o, 'force_cache')) return { use: cache };
  const secs = o.get('force_cache_duration_seconds');
  if (secs === undefined) throw new SendError("'force_cache' set but 'force_cache_duration_seconds' parameter is missing");
  return { use: true, force: { seconds: Number(parseGoInt(formatValue(secs), 32)) } };
}

// ---- certificates and keys, as Go's crypto/tls and crypto/x509 read them ----

interface PemBlock {
  type: string;
  text: string;
}

function pemBlocks(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(/-----BEGIN ([^\r\n-]+)-----\r?\n[\s\S]*?-----END \1-----/g)) out.push({ type: m[1] as string, text: m[0] });
  return out;
}

/** Go's `CertPool.AppendCertsFromPEM`: the certificates of `text` that parse; none is a failure. */
function appendCerts(text: string): string[] | undefined {
  const certs: string[] = [];
  for (const b of pemBlocks(text)) {
    if (b.type !== 'CERTIFICATE') continue;
    try {
      new X509Certificate(b.text);
      certs.push(b.text);
    } catch {
      // skipped, as Go skips a block that does not parse
    }
  }
  return certs.length === 0 ? undefined : certs;
}

/** `open <path>: <reason>` as Go's `os.ReadFile` words it. */
function readGoFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const reason: Record<string, string> = {
      ENOENT: 'no such file or directory',
      EACCES: 'permission denied',
      ENOTDIR: 'not a directory',
      ELOOP: 'too many levels of symbolic links',
      ENAMETOOLONG: 'file name too long',
    };
    if (code === 'EISDIR') throw new SendError(`read ${path}: is a directory`);
    throw new SendError(`open ${path}: ${reason[code ?? ''] ?? (e as Error).message}`);
  }
}

/** Go's `tls.X509KeyPair`: the errors it gives for a pair that cannot be used. */
function keyPair(certPem: string, keyPem: string): { cert: string; key: string } {
  const certs = pemBlocks(certPem);
  if (certs.length === 0) throw new SendError('tls: failed to find any PEM data in certificate input');
  const leaf = certs.find((b) => b.type === 'CERTIFICATE');
  if (leaf === undefined) {
    throw new SendError(
      `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [${certs.map((b) => b.type).join(' ')}]`,
    );
  }
  const keys = pemBlocks(keyPem);
  if (keys.length === 0) throw new SendError('tls: failed to find any PEM data in key input');
  const key = keys.find((b) => b.type === 'PRIVATE KEY' || b.type.endsWith(' PRIVATE KEY'));
  if (key === undefined) {
    if (keys.some((b) => b.type === 'CERTIFICATE')) throw new SendError('tls: found a certificate rather than a key in the PEM for the private key');
    throw new SendError(
      `tls: failed to find "PRIVATE KEY" PEM block in key input after skipping PEM blocks of the following types: [${keys.map((b) => b.type).join(' ')}]`,
    );
  }
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(leaf.text);
  } catch {
    throw new SendError('x509: malformed certificate');
  }
  let privateKey;
  try {
    privateKey = createPrivateKey(key.text);
  } catch {
    throw new SendError('tls: failed to parse private key');
  }
  if (!x509.checkPrivateKey(privateKey)) throw new SendError('tls: private key does not match public key');
  return { cert: certPem, key: keyPem };
}

const SYSTEM_CERT_FILES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/tls/cacert.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
];
let systemCerts: string[] | undefined;

/** Go's `x509.SystemCertPool` on Linux: `SSL_CERT_FILE` or the first bundle found; Node's own roots when there is none. */
function systemPool(): string[] {
  if (systemCerts !== undefined) return systemCerts;
  for (const file of [process.env.SSL_CERT_FILE, ...SYSTEM_CERT_FILES]) {
    if (file === undefined || file === '') continue;
    try {
      const certs = appendCerts(readFileSync(file, 'utf8'));
      if (certs !== undefined) return (systemCerts = certs);
    } catch {
      // the next candidate
    }
  }
  return (systemCerts = [...rootCertificates]);
}

/** Go's `url.Values.Encode`: keys sorted, `QueryEscape`d. */
function encodeQuery(params: URLSearchParams): string {
  const keys = [...new Set(params.keys())].sort();
  const esc = (s: string) =>
    encodeURIComponent(s)
      .replace(/%20/g, '+')
      .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keys.flatMap((k) => params.getAll(k).map((v) => `${esc(k)}=${esc(v)}`)).join('&');
}

/** OPA's `useSocket`: `unix://host/path?socket=/path/to.sock` goes to the socket as `http://host/path`. */
function unixSocket(url: string): { url: string; socketPath: string } | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'unix:' || u.search === '' || u.search === '?') return undefined;
  const params = new URLSearchParams(u.search);
  const socketPath = params.get('socket') ?? '';
  params.delete('socket');
  const query = encodeQuery(params);
  return { url: `http://${u.host}${u.pathname}${query === '' ? '' : `?${query}`}`, socketPath };
}

/** OPA's `createHTTPRequest`: the options in key order, each read and checked as it does. */
function createRequest(o: RegoObject, ctx: BuiltinContext): HttpRequest {
  // Before any file or environment variable is read: an evaluation refused the network learns nothing of them either.
  ctx.useNetwork?.('http.send');
  let method = '';
  let url = '';
  let body: string | undefined;
  let followRedirects = false;
  let useSystemCerts = false;
  let insecure = false;
  let serverName = '';
  let timeout = DEFAULT_TIMEOUT_MS;
  let headers: Record<string, string> | undefined;
  const text: Record<string, string> = {};
  const keys = [...o.keys()].sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
  for (const k of keys) {
    const key = String(k);
    const v = o.get(k) as Value;
    let s = '';
    if (typeof v === 'string') s = v.replace(/^"+|"+$/g, '');
    else if (STRING_OPTIONS.has(key)) throw new SendError(`${goQuote(key)} must be a string`);
    switch (key) {
      case 'method':
        method = s.toUpperCase();
        break;
      case 'url':
        url = s;
        break;
      case 'enable_redirect':
        followRedirects = parseBool(v);
        break;
      case 'body':
        if (body === undefined) body = goJSON(v);
        break;
      case 'raw_body':
        body = s;
        break;
      case 'tls_use_system_certs':
        useSystemCerts = parseBool(v);
        break;
      case 'tls_insecure_skip_verify':
        insecure = parseBool(v);
        break;
      case 'tls_server_name':
        serverName = s;
        break;
      case 'headers':
        if (!(v instanceof RegoObject) || v.keys().some((h) => typeof h !== 'string')) throw new SendError('invalid type for headers key');
        headers = {};
        for (const [h, x] of v.entries()) {
          if (typeof x !== 'string') throw new SendError(`invalid type for headers value ${goQuote(formatValue(x))}`);
          headers[String(h)] = x;
        }
        break;
      case 'timeout':
        timeout = timeoutMs(v, ctx);
        break;
      default:
        if (key.startsWith('tls_')) text[key] = s;
    }
  }
  const tls: HttpRequest['tls'] = {};
  const has = (k: string): boolean => (text[k] ?? '') !== '';
  const pairs: Array<{ cert: string; key: string }> = [];
  if (has('tls_client_cert') && has('tls_client_key')) pairs.push(keyPair(text.tls_client_cert as string, text.tls_client_key as string));
  if (has('tls_client_cert_file') && has('tls_client_key_file')) {
    pairs.push(keyPair(readGoFile(text.tls_client_cert_file as string), readGoFile(text.tls_client_key_file as string)));
  }
  if (has('tls_client_cert_env_variable') && has('tls_client_key_env_variable')) {
    const certVar = text.tls_client_cert_env_variable as string;
    const keyVar = text.tls_client_key_env_variable as string;
    try {
      pairs.push(keyPair(process.env[certVar] ?? '', process.env[keyVar] ?? ''));
    } catch (e) {
      throw new SendError(`cannot extract public/private key pair from envvars ${goQuote(certVar)}, ${goQuote(keyVar)}: ${(e as Error).message}`);
    }
  }
  // Go's tls.Config offers its first certificate to a server that asks.
  const pair = pairs[0];
  if (pair !== undefined) Object.assign(tls, pair);

  let pool: string[] | undefined = useSystemCerts ? [...systemPool()] : undefined;
  const add = (pem: string, error: string): void => {
    const certs = appendCerts(pem);
    if (certs === undefined) throw new SendError(error);
    pool = [...(pool ?? []), ...certs];
  };
  // OPA reads a literal `\n` in an inline CA as a line break.
  if (has('tls_ca_cert')) add((text.tls_ca_cert as string).replaceAll('\\n', '\n'), 'could not append certificates');
  if (has('tls_ca_cert_file')) {
    const file = text.tls_ca_cert_file as string;
    add(readGoFile(file), `could not append CA certificates from ${goQuote(file)}`);
  }
  if (has('tls_ca_cert_env_variable')) {
    const name = text.tls_ca_cert_env_variable as string;
    add(process.env[name] ?? '', `could not add CA certificates from envvar ${goQuote(name)}: could not append certificates`);
  }
  if (pool !== undefined) tls.ca = pool;
  if (insecure) tls.insecure = true;
  // A Host header names the TLS server too, unless tls_server_name does.
  const hostHeader = headers === undefined ? undefined : Object.entries(headers).find(([h]) => h.toLowerCase() === 'host')?.[1];
  if (serverName === '' && hostHeader !== undefined) serverName = hostHeader;
  if (serverName !== '') tls.serverName = serverName;

  checkMethodAndHeaders(method, url, headers ?? {});
  const socket = unixSocket(url);
  return {
    method,
    url: socket?.url ?? url,
    headers: headers ?? {},
    ...(body === undefined ? {} : { body }),
    ...(socket === undefined ? {} : { socketPath: socket.socketPath }),
    timeoutMs: timeout,
    followRedirects,
    tls,
  };
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Go's `http.CanonicalHeaderKey`: a key with a character outside a token stays as it is. */
function canonicalHeaderKey(name: string): string {
  if (!TOKEN.test(name)) return name;
  return name.toLowerCase().replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());
}

/** What Go's net/http refuses before sending: a method that is not a token, a header name that is not one, a control character in a value. */
function checkMethodAndHeaders(method: string, url: string, headers: Record<string, string>): void {
  if (method !== '' && !TOKEN.test(method)) throw new SendError(`net/http: invalid method ${goQuote(method)}`);
  const op = method === '' ? 'Get' : method.charAt(0) + method.slice(1).toLowerCase();
  for (const [name, value] of Object.entries(headers)) {
    const canonical = canonicalHeaderKey(name);
    if (!TOKEN.test(name)) throw new NetworkError(`${op} ${JSON.stringify(url)}: net/http: invalid header field name ${goQuote(canonical)}`, undefined);
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) {
      throw new NetworkError(`${op} ${JSON.stringify(url)}: net/http: invalid header field value for ${goQuote(canonical)}`, undefined);
    }
  }
}

/** `Get "url": …` failures become NetworkErrors; a request that never came back within the evaluation budget cancels it. */
function execute(request: HttpRequest, retries: number, ctx: BuiltinContext): Extract<HttpResult, { ok: true }> {
  // Leave to use the network was asked for when the request was made (createRequest).
  for (let attempt = 0; ; attempt++) {
    // Never waits past the evaluation budget: the budget bounds network waits too.
    const left = Math.max(0, ctx.budgetLeftMs?.() ?? Infinity);
    const answered = httpRequestSync(request, left);
    if (answered === undefined && (request.timeoutMs === 0 || left < request.timeoutMs + 5_000)) {
      throw new PolicyError({ code: 'eval_cancel_error', detail: 'caller cancelled query execution: the evaluation budget was spent waiting for http.send' });
    }
    const op = request.method.charAt(0) + request.method.slice(1).toLowerCase();
    const r: HttpResult = answered ?? {
      ok: false,
      timeout: true,
      message: `${op} ${JSON.stringify(request.url)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    };
    if (r.ok) return r;
    if (attempt >= retries) throw new NetworkError(r.message, r.timeout === true ? { op, url: request.url } : undefined);
    pause(backoffMs(attempt), ctx);
  }
}

/** OPA's `util.DefaultBackoff(100ms, 60s, i)`. */
function backoffMs(retries: number): number {
  if (retries === 0) return 0;
  let delay = MIN_RETRY_DELAY_MS;
  for (let i = retries; delay < MAX_RETRY_DELAY_MS && i > 0; i--) delay *= 2;
  delay = Math.min(delay, MAX_RETRY_DELAY_MS);
  return delay * (1 + 0.2 * (Math.random() * 2 - 1));
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks between attempts, never past the evaluation budget. */
function pause(ms: number, ctx: BuiltinContext): void {
  const left = ctx.budgetLeftMs?.() ?? Infinity;
  if (ms >= left)
    throw new PolicyError({
      code: 'eval_cancel_error',
      detail: 'caller cancelled query execution: the evaluation budget was spent waiting to retry http.send',
    });
  if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
}

/** A response as stored across queries (OPA's `interQueryCacheData`). */
interface StoredResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: string;
  /** ms since the epoch; 0 when the response gave no lifetime (stale at once). */
  expiresAt: number;
}

/** Responses kept across queries (`cache` / `force_cache`), keyed by the request's cache key. */
const interQueryCache = new Map<string, StoredResponse>();
const INTER_QUERY_MAX = 1_000;

function header(headers: ReadonlyArray<[string, string]>, name: string): string | undefined {
  return headers.find(([k]) => k.toLowerCase() === name)?.[1];
}

/** OPA's `parseCacheControlHeader`. */
function cacheControl(headers: ReadonlyArray<[string, string]>): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of (header(headers, 'cache-control') ?? '').split(',')) {
    const part = raw.replace(/^ +| +$/g, '');
    if (part === '') continue;
    if (!part.includes('=')) out.set(part, '');
    else if (part.split('=').length === 2) {
      const [l, r] = part.split('=') as [string, string];
      out.set(l.replace(/^ +| +$/g, ''), r.replace(/^,+|,+$/g, ''));
    }
  }
  return out;
}

/** Go's `http.ParseTime`: RFC 1123 (GMT), RFC 850 or ANSI C's asctime; NaN otherwise. */
function parseHttpTime(text: string): number {
  if (/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return Date.parse(text);
  if (/^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return Date.parse(text.replace(/-/g, ' '));
  if (/^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/.test(text)) return Date.parse(`${text} GMT`);
  return Number.NaN;
}

/** OPA's `expiryFromHeaders`: `max-age` after `Date`, else `Expires`; undefined where OPA's insert fails (and so stores nothing). */
function expiryFromHeaders(headers: ReadonlyArray<[string, string]>): number | undefined {
  const maxAge = cacheControl(headers).get('max-age');
  if (maxAge !== undefined) {
    if (!/^\d+$/.test(maxAge)) return undefined;
    const seconds = Math.min(Number(maxAge), 2 ** 31 - 1);
    const date = parseHttpTime(header(headers, 'date') ?? '');
    return Number.isNaN(date) ? undefined : date + seconds * 1000;
  }
  const expires = parseHttpTime(header(headers, 'expires') ?? '');
  return Number.isNaN(expires) ? 0 : expires;
}

/** OPA's `getCachingMode`; a bad value makes OPA's insert fail, so nothing is stored. */
function cachingModeOk(o: RegoObject): boolean {
  const v = o.get('caching_mode');
  return v === undefined || v === 'serialized' || v === 'deserialized';
}

function storeAcross(keyText: string, o: RegoObject, r: Extract<HttpResult, { ok: true }>, nowMs: number, force: ForceCache | undefined): void {
  if (!CACHEABLE.has(r.status)) return;
  if (force === undefined && cacheControl(r.headers).has('no-store')) return;
  if (!cachingModeOk(o)) return;
  const expiresAt = force !== undefined && force.seconds > 0 ? nowMs + force.seconds * 1000 : expiryFromHeaders(r.headers);
  if (expiresAt === undefined) return;
  if (interQueryCache.size >= INTER_QUERY_MAX && !interQueryCache.has(keyText)) interQueryCache.delete(interQueryCache.keys().next().value as string);
  interQueryCache.set(keyText, { status: r.status, statusText: r.statusText, headers: r.headers, body: r.body, expiresAt });
}

function decodeBody(raw: string, contentType: string, forceJson: boolean, forceYaml: boolean, ctx: BuiltinContext): Value {
  // OPA's isJSONType (the media type application/json or application/*+json) and isContentType (a substring).
  const media = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const json = forceJson || /^application\/([^/]+\+)?json$/.test(media);
  const yaml = !json && (forceYaml || contentType.includes('application/yaml') || contentType.includes('application/x-yaml'));
  try {
    if (json) return parseJSON(raw);
    if (yaml) return (yamlUnmarshal.impl([raw], ctx) as Value | undefined) ?? null;
  } catch {
    return null;
  }
  return null;
}

function responseValue(
  r: { status: number; statusText: string; headers: ReadonlyArray<[string, string]>; body: string },
  o: RegoObject,
  ctx: BuiltinContext,
): RegoObject {
  const forceJson = boolField(o, 'force_json_decode');
  const forceYaml = boolField(o, 'force_yaml_decode');
  const headers = new RegoObject();
  let contentType: string | undefined;
  for (const [k, v] of r.headers) {
    const name = k.toLowerCase();
    if (name === 'content-type' && contentType === undefined) contentType = v;
    const cur = headers.get(name);
    headers.set(name, Array.isArray(cur) ? [...cur, v] : [v]);
  }
  return RegoObject.fromEntries([
    ['status', `${r.status} ${r.statusText}`.trim()],
    ['status_code', r.status],
    ['body', decodeBody(r.body, contentType ?? '', forceJson, forceYaml, ctx)],
    ['raw_body', r.body],
    ['headers', headers],
  ]);
}

/** Per query: a response, or the error the same request met. */
type Cached = { response: RegoObject } | { error: Error };

/** OPA's `getHTTPResponse`: the caches, then the request, then the caches again. */
function respond(o: RegoObject, ctx: BuiltinContext): RegoObject {
  const key = cacheKey(o);
  const keyText = `http.send:${stringifyJSON(key)}`;
  const across = interQuery(o);
  const seen = ctx.cache.get(keyText) as Cached | undefined;
  if (seen !== undefined) {
    if ('error' in seen) throw seen.error;
    return seen.response;
  }
  const nowMs = Number(ctx.timeNs / 1_000_000n);
  try {
    if (across.use) {
      // OPA's inter-query path reads these before it looks up or sends anything.
      boolField(key, 'force_json_decode');
      boolField(key, 'force_yaml_decode');
      const stored = interQueryCache.get(keyText);
      if (stored !== undefined) {
        const fresh = fromStore(stored, { key, keyText }, o, nowMs, across.force, ctx);
        if (fresh !== undefined) {
          ctx.cache.set(keyText, { response: fresh } satisfies Cached);
          return fresh;
        }
      }
    }
    const request = createRequest(o, ctx);
    const r = execute(request, retryAttempts(o), ctx);
    const response = responseValue(r, key, ctx);
    if (across.use) {
      ctx.cache.set(keyText, { response } satisfies Cached);
      storeAcross(keyText, o, r, nowMs, across.force);
    } else if (CACHEABLE.has(r.status)) ctx.cache.set(keyText, { response } satisfies Cached);
    return response;
  } catch (e) {
    if (e instanceof SendError || e instanceof NetworkError) ctx.cache.set(keyText, { error: e } satisfies Cached);
    throw e;
  }
}

/** A stored response: as is while fresh; when stale, revalidated with the server if it gave an `ETag` or `Last-Modified` (OPA's `checkHTTPSendInterQueryCache`). */
function fromStore(
  stored: StoredResponse,
  { key, keyText }: { key: RegoObject; keyText: string },
  o: RegoObject,
  nowMs: number,
  force: ForceCache | undefined,
  ctx: BuiltinContext,
): RegoObject | undefined {
  if (nowMs < stored.expiresAt) return responseValue(stored, key, ctx);
  const request = createRequest(key, ctx);
  const etag = header(stored.headers, 'etag') ?? '';
  const lastModified = header(stored.headers, 'last-modified') ?? '';
  interQueryCache.delete(keyText);
  if (etag === '' && lastModified === '') return undefined;
  const conditional = { ...request, headers: { ...request.headers } };
  if (etag !== '') conditional.headers['if-none-match'] = etag;
  if (lastModified !== '') conditional.headers['if-modified-since'] = lastModified;
  const r = execute(conditional, retryAttempts(o), ctx);
  if (r.status === 200) {
    storeAcross(keyText, o, r, nowMs, force);
    return responseValue(r, key, ctx);
  }
  if (r.status !== 304) return undefined;
  // 304: the stored body with the headers the server sent now.
  const names = new Set(r.headers.map(([k]) => k.toLowerCase()));
  const headers: Array<[string, string]> = [...stored.headers.filter(([k]) => !names.has(k.toLowerCase())), ...r.headers];
  const expiresAt = force !== undefined && force.seconds > 0 ? nowMs + force.seconds * 1000 : expiryFromHeaders(r.headers);
  if (expiresAt === undefined) return undefined;
  if (!cachingModeOk(o)) throw new SendError(`invalid value specified for "caching_mode" field: ${formatValue(o.get('caching_mode') as Value)}`);
  const renewed = { ...stored, headers, expiresAt };
  interQueryCache.set(keyText, renewed);
  return responseValue(renewed, key, ctx);
}

/** An error as OPA's topdown `Error.Error()` prints it: `<location>: eval_builtin_error: http.send: <message>`. */
function topdownText(form: 'builtin' | 'type', message: string, ctx: BuiltinContext): string {
  return new PolicyError({ code: form === 'type' ? 'eval_type_error' : 'eval_builtin_error', detail: `http.send: ${message}`, location: ctx.location }).message;
}

/** `{status_code: 0, error: {code, message}}`, OPA's answer when `raise_error` is false. */
function errorResult(code: string, message: string): RegoObject {
  return RegoObject.fromEntries([
    ['status_code', 0],
    [
      'error',
      RegoObject.fromEntries([
        ['code', code],
        ['message', message],
      ]),
    ],
  ]);
}

function send(req: Value | undefined, ctx: BuiltinContext): Value {
  const o = asObject(req, 1);
  const raise = o.get('raise_error');
  if (raise !== undefined && typeof raise !== 'boolean') throw new BuiltinError('invalid value for raise_error field');
  const raiseError = raise !== false;
  const missing = REQUIRED.filter((k) => !o.has(k));
  const invalid = o.keys().filter((k) => typeof k !== 'string' || !ALLOWED.has(k));
  const operandError =
    invalid.length > 0
      ? `operand 1 invalid request parameters(s): ${formatValue(RegoSet.of(invalid))}`
      : missing.length > 0
        ? `operand 1 missing required request parameters(s): ${formatValue(RegoSet.of(missing))}`
        : undefined;
  if (operandError !== undefined) {
    if (raiseError) throw BuiltinError.type(operandError);
    return errorResult('eval_http_send_internal_error', topdownText('type', operandError, ctx));
  }
  try {
    return respond(o, ctx);
  } catch (e) {
    if (e instanceof NetworkError) {
      // OPA words a request that ran out of its own time this way (handleHTTPSendErr).
      if (raiseError) throw new BuiltinError(e.timeout === undefined ? e.message : `${e.timeout.op} ${e.timeout.url}: request timed out`);
      return errorResult('eval_http_send_network_error', e.message);
    }
    if (e instanceof SendError) {
      if (raiseError) throw new BuiltinError(e.message, e.form === 'type' ? 'type' : 'builtin');
      return errorResult('eval_http_send_internal_error', e.reported(ctx));
    }
    throw e;
  }
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
