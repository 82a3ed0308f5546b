/**
 * Blocking network I/O for builtins (http.send, net.lookup_ip_addr).
 *
 * The evaluator is synchronous (a simple decision never awaits), so a
 * builtin that needs the network hands the request to one shared worker
 * thread and blocks on `Atomics.wait` until the worker answers; the answer
 * is read with `receiveMessageOnPort`. The worker is started on the first
 * such call only (policies without I/O never start it) and is unref'd so it
 * never keeps the process alive. While a call blocks, the calling thread
 * runs nothing else: a server answering the request must not live on the
 * same thread (it would never get to answer; the call then times out).
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from 'node:worker_threads';

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The whole exchange's limit, as Go's `http.Client.Timeout`; 0: none. */
  timeoutMs: number;
  followRedirects: boolean;
  /** A Unix socket to connect to instead of the URL's host (OPA's `unix://…?socket=` URLs). */
  socketPath?: string;
  tls: { ca?: string[]; cert?: string; key?: string; insecure?: boolean; serverName?: string };
}

/** `timeout` marks the request's own time limit running out (Go's `url.Error.Timeout()`). */
export type HttpResult =
  { ok: true; status: number; statusText: string; headers: Array<[string, string]>; body: string } | { ok: false; message: string; timeout?: boolean };

export type LookupResult = { ok: true; addresses: string[] } | { ok: false; message: string; code?: string };

/**
 * Worker source (CommonJS, plain JS: it runs the same from sources and from
 * dist). Transport errors are worded as Go's net/http words them, since OPA's
 * http.send passes those on (`dial tcp …: connect: connection refused`,
 * `tls: failed to verify certificate: x509: …`, `EOF`); a request that fails
 * on a reused keep-alive connection before any answer is sent once more on a
 * new one when it is idempotent, as Go's Transport does.
 */
const WORKER = String.raw`
const { workerData } = require('node:worker_threads');
const http = require('node:http');
const https = require('node:https');
const dns = require('node:dns');
const net = require('node:net');
const { port, flag } = workerData;
const done = (id, result) => {
  port.postMessage({ id, result });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
};
const UNKNOWN_AUTHORITY = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_UNTRUSTED']);
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
// Go's x509.HostnameError text from the certificate Node rejected.
function hostnameError(e) {
  const host = String(e.host ?? '');
  const sans = String(e.cert?.subjectaltname ?? '').split(', ').filter(Boolean);
  const ips = sans.filter((s) => s.startsWith('IP Address:')).map((s) => s.slice(11));
  const dnsNames = sans.filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4));
  if (sans.length === 0 && e.cert?.subject?.CN === host) return 'x509: certificate relies on legacy Common Name field, use SANs instead';
  let valid;
  if (net.isIP(host)) {
    if (ips.length === 0) return 'x509: cannot validate certificate for ' + host + " because it doesn't contain any IP SANs";
    valid = ips.join(', ');
  } else valid = dnsNames.join(', ');
  if (valid === '') return 'x509: certificate is not valid for any names, but wanted to match ' + host;
  return 'x509: certificate is valid for ' + valid + ', not ' + host;
}
function goMessage(e) {
  const code = e && e.code;
  if (code === 'ECONNREFUSED') return 'dial tcp ' + (e.address && e.port !== undefined ? net.isIPv6(e.address) ? '[' + e.address + ']:' + e.port : e.address + ':' + e.port : '') + ': connect: connection refused';
  if (code === 'ENOENT' && e.syscall === 'connect') return 'dial unix ' + e.address + ': connect: no such file or directory';
  if (code === 'ECONNRESET' || (e && e.message === 'socket hang up')) return 'EOF';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dial tcp: lookup ' + e.hostname + ': no such host';
  if (UNKNOWN_AUTHORITY.has(code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return 'tls: failed to verify certificate: ' + hostnameError(e);
  if (code === 'ERR_SSL_TLSV13_ALERT_CERTIFICATE_REQUIRED') return 'remote error: tls: certificate required';
  if (code === 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE') return 'remote error: tls: bad certificate';
  return e && e.message ? e.message : String(e);
}
function once(req, url, redirects, deadline, cb) {
  let u;
  try { u = new URL(url); } catch { return cb({ ok: false, message: 'unsupported protocol scheme ""' }); }
  const mod = u.protocol === 'https:' ? https : u.protocol === 'http:' ? http : null;
  if (mod === null) return cb({ ok: false, message: 'unsupported protocol scheme "' + u.protocol.replace(/:$/, '') + '"' });
  const opts = { method: req.method, headers: req.headers };
  // A body goes with its length, as Go sends a bytes.Buffer body (not chunked).
  if (req.body !== undefined && !Object.keys(req.headers).some((h) => h.toLowerCase() === 'content-length' || h.toLowerCase() === 'transfer-encoding')) {
    opts.headers = { ...req.headers, 'Content-Length': Buffer.byteLength(req.body) };
  }
  if (req.socketPath !== undefined) opts.socketPath = req.socketPath;
  if (u.protocol === 'https:') {
    if (req.tls.ca) opts.ca = req.tls.ca;
    if (req.tls.cert) opts.cert = req.tls.cert;
    if (req.tls.key) opts.key = req.tls.key;
    if (req.tls.insecure) opts.rejectUnauthorized = false;
    if (req.tls.serverName) opts.servername = req.tls.serverName;
    // A TLS configuration of its own: a connection of its own, as Go's cloned Transport.
    if (req.tls.ca || req.tls.cert || req.tls.insecure || req.tls.serverName) opts.agent = false;
  }
  let finished = false;
  let timer;
  const finish = (r) => { if (!finished) { finished = true; clearTimeout(timer); cb(r); } };
  let r;
  try {
    r = mod.request(u, opts, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('error', (e) => finish({ ok: false, message: goMessage(e) }));
      res.on('end', () => {
        const loc = res.headers.location;
        if (req.followRedirects && loc && [301, 302, 303, 307, 308].includes(res.statusCode)) {
          if (redirects >= 10) return finish({ ok: false, message: 'stopped after 10 redirects' });
          finished = true;
          clearTimeout(timer);
          const next = new URL(loc, u).toString();
          const again = res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && req.method === 'POST')
            ? { ...req, method: 'GET', body: undefined } : req;
          return once(again, next, redirects + 1, deadline, cb);
        }
        const headers = [];
        // Go moves Transfer-Encoding out of the response's headers.
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i].toLowerCase() !== 'transfer-encoding') headers.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
        finish({ ok: true, status: res.statusCode, statusText: res.statusMessage || '', headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
  } catch (e) {
    return finish({ ok: false, message: goMessage(e) });
  }
  if (deadline !== undefined) {
    timer = setTimeout(() => { r.destroy(); finish({ ok: false, timeout: true, message: 'context deadline exceeded (Client.Timeout exceeded while awaiting headers)' }); }, Math.max(0, deadline - Date.now()));
  }
  r.on('error', (e) => {
    if (finished) return;
    // A keep-alive connection the server had closed: Go's Transport sends an idempotent request again on a new one.
    if (r.reusedSocket && IDEMPOTENT.has(req.method) && req.body === undefined && (e.code === 'ECONNRESET' || e.message === 'socket hang up')) {
      finished = true;
      clearTimeout(timer);
      return once(req, url, redirects, deadline, cb);
    }
    finish({ ok: false, message: goMessage(e) });
  });
  if (req.body !== undefined) r.write(req.body);
  r.end();
}
port.on('message', (m) => {
  if (m.kind === 'http') {
    const u = m.req.url;
    const deadline = m.req.timeoutMs > 0 ? Date.now() + m.req.timeoutMs : undefined;
    once(m.req, u, 0, deadline, (r) => {
      if (!r.ok) r.message = m.req.method.charAt(0) + m.req.method.slice(1).toLowerCase() + ' ' + JSON.stringify(u) + ': ' + r.message;
      done(m.id, r);
    });
  } else if (m.kind === 'lookup') {
    dns.lookup(m.name, { all: true, verbatim: true }, (err, addrs) => {
      if (err) done(m.id, { ok: false, message: err.message, code: err.code });
      else done(m.id, { ok: true, addresses: addrs.map((a) => a.address) });
    });
  }
});
`;

interface Bridge {
  port: MessagePort;
  flag: Int32Array;
  nextId: number;
}

let bridge: Bridge | undefined;

function getBridge(): Bridge {
  if (bridge !== undefined) return bridge;
  const { port1, port2 } = new MessageChannel();
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(WORKER, { eval: true, workerData: { port: port2, flag }, transferList: [port2] });
  worker.unref();
  port1.unref();
  worker.on('error', () => {
    bridge = undefined;
  });
  bridge = { port: port1, flag, nextId: 1 };
  return bridge;
}

/** Sends one request to the worker and blocks until it answers (or `waitMs` passes). */
function call<T>(message: Record<string, unknown>, waitMs: number): T | undefined {
  const b = getBridge();
  const id = b.nextId++;
  Atomics.store(b.flag, 0, 0);
  b.port.postMessage({ ...message, id });
  const deadline = Date.now() + waitMs;
  const take = (): T | undefined => {
    // Skips answers to earlier calls that timed out.
    for (let m = receiveMessageOnPort(b.port); m !== undefined; m = receiveMessageOnPort(b.port)) {
      const msg = m.message as { id: number; result: T };
      if (msg.id === id) return msg.result;
    }
    return undefined;
  };
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return take();
    Atomics.wait(b.flag, 0, 0, left);
    const r = take();
    if (r !== undefined) return r;
    // The worker posts before it raises the flag: drain again after lowering it.
    Atomics.store(b.flag, 0, 0);
    const again = take();
    if (again !== undefined) return again;
  }
}

/**
 * Performs an HTTP request synchronously. The wait ends after `maxWaitMs`
 * (default: the request's own timeout plus a margin) whatever the request
 * does; then `undefined` means no answer came in time.
 */
export function httpRequestSync(req: HttpRequest, maxWaitMs = Infinity): HttpResult | undefined {
  // The worker enforces req.timeoutMs on the whole exchange; the wait adds a margin.
  return call<HttpResult>({ kind: 'http', req }, Math.min(req.timeoutMs > 0 ? req.timeoutMs + 5_000 : Infinity, maxWaitMs));
}

/** Resolves a host name to its IP addresses synchronously (the system resolver, as `getaddrinfo`); `undefined` when no answer came within `timeoutMs`. */
export function lookupSync(name: string, timeoutMs = 10_000): LookupResult | undefined {
  return call<LookupResult>({ kind: 'lookup', name }, timeoutMs);
}
