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
  timeoutMs: number;
  followRedirects: boolean;
  tls: { ca?: string; cert?: string; key?: string; insecure?: boolean; serverName?: string };
}

export type HttpResult = { ok: true; status: number; statusText: string; headers: Array<[string, string]>; body: string } | { ok: false; message: string };

export type LookupResult = { ok: true; addresses: string[] } | { ok: false; message: string; code?: string };

/** Worker source (CommonJS, plain JS: it runs the same from sources and from dist). */
const WORKER = String.raw`
const { workerData } = require('node:worker_threads');
const http = require('node:http');
const https = require('node:https');
const dns = require('node:dns');
const { port, flag } = workerData;
const done = (id, result) => {
  port.postMessage({ id, result });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
};
function once(req, url, redirects, cb) {
  let u;
  try { u = new URL(url); } catch { return cb({ ok: false, message: 'unsupported protocol scheme ""' }); }
  const mod = u.protocol === 'https:' ? https : u.protocol === 'http:' ? http : null;
  if (mod === null) return cb({ ok: false, message: 'unsupported protocol scheme "' + u.protocol.replace(/:$/, '') + '"' });
  const opts = { method: req.method, headers: req.headers, timeout: req.timeoutMs };
  if (u.protocol === 'https:') {
    if (req.tls.ca) opts.ca = req.tls.ca;
    if (req.tls.cert) opts.cert = req.tls.cert;
    if (req.tls.key) opts.key = req.tls.key;
    if (req.tls.insecure) opts.rejectUnauthorized = false;
    if (req.tls.serverName) opts.servername = req.tls.serverName;
  }
  let finished = false;
  const finish = (r) => { if (!finished) { finished = true; cb(r); } };
  const r = mod.request(u, opts, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('error', (e) => finish({ ok: false, message: e.message }));
    res.on('end', () => {
      const loc = res.headers.location;
      if (req.followRedirects && loc && [301, 302, 303, 307, 308].includes(res.statusCode)) {
        if (redirects >= 10) return finish({ ok: false, message: 'stopped after 10 redirects' });
        const next = new URL(loc, u).toString();
        const again = res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && req.method === 'POST')
          ? { ...req, method: 'GET', body: undefined } : req;
        return once(again, next, redirects + 1, finish);
      }
      const headers = [];
      for (let i = 0; i < res.rawHeaders.length; i += 2) headers.push([res.rawHeaders[i], res.rawHeaders[i + 1]]);
      finish({ ok: true, status: res.statusCode, statusText: res.statusMessage || '', headers, body: Buffer.concat(chunks).toString('utf8') });
    });
  });
  r.on('timeout', () => { r.destroy(new Error('request timed out after ' + req.timeoutMs + 'ms')); });
  r.on('error', (e) => finish({ ok: false, message: e.message }));
  if (req.body !== undefined) r.write(req.body);
  r.end();
}
port.on('message', (m) => {
  if (m.kind === 'http') {
    const u = m.req.url;
    once(m.req, u, 0, (r) => {
      if (!r.ok) r.message = m.req.method.charAt(0) + m.req.method.slice(1).toLowerCase() + ' "' + u + '": ' + r.message;
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
  // The worker enforces req.timeoutMs on the connection; the wait adds a margin.
  return call<HttpResult>({ kind: 'http', req }, Math.min(req.timeoutMs + 5_000, maxWaitMs));
}

/** Resolves a host name to its IP addresses synchronously (the system resolver, as `getaddrinfo`); `undefined` when no answer came within `timeoutMs`. */
export function lookupSync(name: string, timeoutMs = 10_000): LookupResult | undefined {
  return call<LookupResult>({ kind: 'lookup', name }, timeoutMs);
}
