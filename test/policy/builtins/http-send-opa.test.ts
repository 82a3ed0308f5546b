/**
 * http.send as OPA v1.20.2 answers it, request options included: the same
 * queries go through OPA (the oracle, which performs real requests) and
 * through our engine, against the same servers in a child process (plain
 * HTTP, HTTPS with a CA made here by openssl, HTTPS requiring a client
 * certificate, and a Unix socket). Paths carry the engine's name where the
 * server keeps count, so each engine sees a fresh state. The cache across
 * queries is not in OPA's library build (it has no inter-query cache), so
 * its rules, read from OPA's `topdown/http.go`, are tested on their own.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { stringifyJSON } from '../../../runtime/policy/value-json.js';
import { askOracle, oracleDir } from '../differential/differ.js';

const SERVER = String.raw`
const http = require('node:http');
const https = require('node:https');
const fs = require('node:fs');
const dir = process.argv[1];
const hits = new Map();
const handler = (req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const u = new URL(req.url, 'http://x');
    const parts = u.pathname.split('/').filter(Boolean);
    const n = (hits.get(u.pathname) ?? 0) + 1;
    hits.set(u.pathname, n);
    const json = (code, value, headers = {}) => { res.writeHead(code, { 'Content-Type': 'application/json', ...headers }); res.end(JSON.stringify(value)); };
    switch (parts[0]) {
      case 'json': return json(200, { a: 1 });
      case 'status': return json(Number(parts[1]), { n });
      case 'hits': return json(200, { n: hits.get('/' + parts.slice(1).join('/')) ?? 0 });
      case 'flaky': if (n <= Number(parts[1])) { req.socket.destroy(); return; } return json(200, { n });
      case 'slow': setTimeout(() => { res.writeHead(200); res.end('late'); }, 1500); return;
      case 'redirect': res.writeHead(302, { Location: '/json' }); return res.end();
      case 'echo': {
        const cert = req.socket.getPeerCertificate ? req.socket.getPeerCertificate() : null;
        return json(200, { host: req.headers.host, method: req.method, body, x: req.headers['x-a'] ?? null, cert: cert && cert.subject ? cert.subject.CN : null });
      }
      case 'maxage': return json(200, { n }, { 'Cache-Control': 'max-age=60' });
      case 'nostore': return json(200, { n }, { 'Cache-Control': 'no-store, max-age=60' });
      case 'nodate': res.sendDate = false; return json(200, { n }, { 'Cache-Control': 'max-age=60' });
      case 'etag':
        if (req.headers['if-none-match'] === '"v1"') { res.writeHead(304, { ETag: '"v1"', 'Cache-Control': 'max-age=60', 'X-Revalidated': String(n) }); return res.end(); }
        return json(200, { n }, { ETag: '"v1"', 'Cache-Control': 'max-age=0' });
      default: res.writeHead(404); res.end('nope');
    }
  });
};
const tlsOpts = { key: fs.readFileSync(dir + '/srv.key'), cert: fs.readFileSync(dir + '/srv.pem') };
const servers = {
  plain: http.createServer(handler),
  secure: https.createServer(tlsOpts, handler),
  mtls: https.createServer({ ...tlsOpts, ca: fs.readFileSync(dir + '/ca.pem'), requestCert: true, rejectUnauthorized: true }, handler),
  unix: http.createServer(handler),
};
let ready = 0;
const done = () => {
  if (++ready < 4) return;
  console.log(JSON.stringify({ plain: servers.plain.address().port, secure: servers.secure.address().port, mtls: servers.mtls.address().port }));
};
servers.plain.listen(0, '127.0.0.1', done);
servers.secure.listen(0, '127.0.0.1', done);
servers.mtls.listen(0, '127.0.0.1', done);
servers.unix.listen(dir + '/http.sock', done);
`;

const pylib = oracleDir();
const dir = mkdtempSync(join(tmpdir(), 'fw-http-send-'));
let child: ChildProcess | undefined;
let P = '';
let S = '';
let M = '';

/** A CA, a server certificate for localhost and 127.0.0.1, and a client certificate, by the real openssl. */
function makePki(): void {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=test-ca');
  for (const [name, cn] of [
    ['srv', 'localhost'],
    ['cli', 'client'],
  ] as const) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    execFileSync('sh', ['-c', 'printf "subjectAltName=DNS:localhost,IP:127.0.0.1\\n" > ext'], { cwd: dir });
    openssl(
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      `${name}.pem`,
      '-days',
      '2',
      '-extfile',
      'ext',
    );
  }
}

beforeAll(async () => {
  makePki();
  child = spawn(process.execPath, ['-e', SERVER, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => createInterface({ input: child!.stdout! }).once('line', resolve));
  const ports = JSON.parse(line) as { plain: number; secure: number; mtls: number };
  P = `http://127.0.0.1:${ports.plain}`;
  S = `https://127.0.0.1:${ports.secure}`;
  M = `https://127.0.0.1:${ports.mtls}`;
  process.env.FW_HS_CA = readFileSync(join(dir, 'ca.pem'), 'utf8');
  process.env.FW_HS_CERT = readFileSync(join(dir, 'cli.pem'), 'utf8');
  process.env.FW_HS_KEY = readFileSync(join(dir, 'cli.key'), 'utf8');
  process.env.FW_HS_EMPTY = '';
}, 60_000);

afterAll(() => {
  child?.kill();
});

const j = JSON.stringify;
const file = (name: string) => join(dir, name);

/** The queries, for the engine named `t` (its server paths are its own). Each binds x. */
function cases(t: string): string[] {
  const ca = readFileSync(file('ca.pem'), 'utf8');
  const cert = readFileSync(file('cli.pem'), 'utf8');
  const key = readFileSync(file('cli.key'), 'utf8');
  const get = (url: string, more = '') => `http.send({"method": "get", "url": "${url}"${more === '' ? '' : `, ${more}`}})`;
  return [
    // What Go refuses before sending (before 4 Dec a header with a line break threw inside the worker thread, which died,
    // and every later http.send waited out its timeout: the cases after these would fail).
    `x := ${get(`${P}/json`, '"headers": {"x-a": "a\\nb"}')}`,
    `x := ${get(`${P}/json`, '"headers": {"x a": "b"}')}`,
    `x := http.send({"method": "g et", "url": "${P}/json"})`,
    `x := ${get(`${P}/json`, '"headers": {"x-a": "a\\tb"}')}.body`,
    // CA certificates: inline (with OPA's literal \n), from a file, from an environment variable; and the errors of each.
    `x := ${get(`${S}/json`, `"tls_ca_cert_file": "${file('ca.pem')}"`)}.body`,
    `x := ${get(`${S}/json`, '"tls_ca_cert_env_variable": "FW_HS_CA"')}.body`,
    `x := ${get(`${S}/json`, `"tls_ca_cert": ${j(ca.replaceAll('\n', '\\n'))}`)}.body`,
    `x := ${get(`${S}/json`, `"tls_ca_cert": ${j(ca)}`)}.body`,
    `x := ${get(`${S}/json`, '"tls_ca_cert_env_variable": "FW_HS_NOPE"')}`,
    `x := ${get(`${S}/json`, '"tls_ca_cert_env_variable": "FW_HS_EMPTY"')}`,
    `x := ${get(`${S}/json`, `"tls_ca_cert_file": "${file('nope.pem')}"`)}`,
    `x := ${get(`${S}/json`, `"tls_ca_cert_file": "${file('ext')}"`)}`,
    `x := ${get(`${S}/json`, '"tls_ca_cert": "junk"')}`,
    `x := ${get(`${S}/json`)}`,
    `x := ${get(`${S}/json`, '"raise_error": false')}`,
    `x := ${get(`${S}/json`, `"tls_use_system_certs": true, "tls_ca_cert_file": "${file('ca.pem')}"`)}.body`,
    `x := ${get(`${S}/json`, `"tls_use_system_certs": false, "tls_ca_cert_file": "${file('ca.pem')}"`)}.body`,
    `x := ${get(`${S}/json`, '"tls_use_system_certs": "yes"')}`,
    `x := ${get(`${S}/json`, '"tls_insecure_skip_verify": true')}.body`,
    `x := ${get(`${P}/json`, '"tls_insecure_skip_verify": "x"')}`,
    // Client certificates: a pair from files, from variables, inline; a missing or mismatched half; none at all.
    `x := ${get(`${M}/echo`, `"tls_ca_cert_file": "${file('ca.pem')}", "tls_client_cert_file": "${file('cli.pem')}", "tls_client_key_file": "${file('cli.key')}"`)}.body.cert`,
    `x := ${get(`${M}/echo`, `"tls_ca_cert_file": "${file('ca.pem')}", "tls_client_cert_env_variable": "FW_HS_CERT", "tls_client_key_env_variable": "FW_HS_KEY"`)}.body.cert`,
    `x := ${get(`${M}/echo`, `"tls_ca_cert_file": "${file('ca.pem')}", "tls_client_cert": ${j(cert)}, "tls_client_key": ${j(key)}`)}.body.cert`,
    `x := ${get(`${M}/echo`, `"tls_ca_cert_file": "${file('ca.pem')}", "tls_client_cert_file": "${file('cli.pem')}", "tls_client_key_file": "${file('nope.key')}"`)}`,
    `x := ${get(`${M}/echo`, `"tls_ca_cert_file": "${file('ca.pem')}", "tls_client_cert_env_variable": "FW_HS_CERT", "tls_client_key_env_variable": "FW_HS_CA"`)}`,
    `x := ${get(`${M}/echo`, `"tls_ca_cert_file": "${file('ca.pem')}", "tls_client_cert": ${j(cert)}, "tls_client_key": "junk"`)}`,
    `x := ${get(`${M}/echo`, `"tls_ca_cert_file": "${file('ca.pem')}", "tls_client_cert_file": "${file('cli.pem')}", "tls_client_key_file": "${file('srv.key')}"`)}`,
    `x := ${get(`${P}/json`, `"tls_client_cert": ${j(cert)}`)}.body`,
    // A Host header: the request's host and the TLS server's name.
    `x := ${get(`${P}/echo`, '"headers": {"host": "example.com", "x-a": "z"}')}.body`,
    `x := ${get(`${S}/echo`, `"tls_ca_cert_file": "${file('ca.pem')}", "headers": {"Host": "localhost"}`)}.body.host`,
    `x := ${get(`${S}/echo`, `"tls_ca_cert_file": "${file('ca.pem')}", "headers": {"Host": "example.com"}`)}`,
    // Retries, and Go's own second try of an idempotent request on a keep-alive connection the server closed.
    `x := ${get(`${P}/flaky/1/${t}a`, '"max_retry_attempts": 1')}.body`,
    `x := ${get(`${P}/flaky/2/${t}b`, '"max_retry_attempts": 2')}.body`,
    `x := ${get(`${P}/flaky/1/${t}c`)}.body`,
    `x := http.send({"method": "post", "url": "${P}/flaky/1/${t}d", "body": {"a": 1}})`,
    `x := ${get(`${P}/json`, '"max_retry_attempts": -1')}`,
    `x := ${get(`${P}/json`, '"max_retry_attempts": 1.5')}`,
    `x := ${get(`${P}/json`, '"max_retry_attempts": "2"')}`,
    `x := ${get(`${P}/json`, '"max_retry_attempts": "2", "raise_error": false')}`,
    // The per-query cache: cacheable codes only, errors too, keyed without the ignored headers.
    `a := ${get(`${P}/status/500/${t}`)}.body; b := ${get(`${P}/status/500/${t}`)}.body; c := ${get(`${P}/hits/status/500/${t}`)}.body; x := [a, b, c]`,
    `a := ${get(`${P}/status/404/${t}`)}.body; b := ${get(`${P}/status/404/${t}`)}.body; c := ${get(`${P}/hits/status/404/${t}`)}.body; x := [a, b, c]`,
    `a := ${get(`${P}/status/201/${t}`)}.body; b := ${get(`${P}/status/201/${t}`)}.body; x := [a, b]`,
    `a := ${get(`${P}/status/200/${t}i`, '"headers": {"x-a": "1"}, "cache_ignored_headers": ["x-a"]')}.body; b := ${get(`${P}/status/200/${t}i`, '"headers": {"x-a": "2"}, "cache_ignored_headers": ["x-a"]')}.body; x := [a, b]`,
    `a := ${get(`${P}/status/200/${t}j`, '"headers": {"x-a": "1"}')}.body; b := ${get(`${P}/status/200/${t}j`, '"headers": {"x-a": "2"}')}.body; x := [a, b]`,
    `a := ${get('http://127.0.0.1:1/', '"raise_error": false')}; b := ${get('http://127.0.0.1:1/', '"raise_error": false')}; x := [a, b]`,
    `x := ${get(`${P}/json`, '"cache_ignored_headers": "x", "headers": {"a": "b"}')}`,
    `x := ${get(`${P}/json`, '"cache_ignored_headers": [1], "headers": {"a": "b"}, "raise_error": false')}`,
    `x := ${get(`${P}/json`, '"cache_ignored_headers": "x"')}.body`,
    // Options of the wrong type or form, each in OPA's words; with raise_error false as OPA's error object.
    `x := ${get(`${P}/json`, '"tls_ca_cert": 1')}`,
    `x := ${get(`${P}/json`, '"tls_server_name": 1')}`,
    `x := ${get(`${P}/json`, '"enable_redirect": "x"')}`,
    `x := ${get(`${P}/redirect`, '"enable_redirect": 1')}.body`,
    `x := ${get(`${P}/redirect`, '"enable_redirect": 0')}.status_code`,
    `x := ${get(`${P}/json`, '"raise_error": "x"')}`,
    `x := ${get(`${P}/json`, '"force_json_decode": "x"')}`,
    `x := ${get(`${P}/json`, '"force_json_decode": 1, "raise_error": false')}`,
    `x := ${get(`${P}/json`, '"force_yaml_decode": 1')}`,
    `x := ${get(`${P}/json`, '"timeout": true')}`,
    `x := ${get(`${P}/json`, '"timeout": true, "raise_error": false')}`,
    `x := ${get(`${P}/json`, '"timeout": 1.5')}`,
    `x := ${get(`${P}/json`, '"timeout": "100000000"')}.body`,
    `x := ${get(`${P}/json`, '"timeout": "5x"')}`,
    `x := ${get(`${P}/json`, '"timeout": 0')}.body`,
    `x := ${get(`${P}/slow/${t}`, '"timeout": "100ms", "raise_error": false')}`,
    `x := ${get(`${P}/slow/${t}2`, '"timeout": "100ms"')}`,
    `x := ${get(`${P}/json`, '"headers": {"a": 1}')}`,
    `x := ${get(`${P}/json`, '"headers": "a"')}`,
    `x := ${get(`${P}/json`, '"cache": "x"')}`,
    `x := ${get(`${P}/json`, '"cache": 1, "raise_error": false')}`,
    `x := ${get(`${P}/json`, '"force_cache": true')}`,
    `x := ${get(`${P}/json`, '"force_cache": true, "force_cache_duration_seconds": 1.5')}`,
    `x := ${get(`${P}/json`, '"caching_mode": 1')}.body`,
    `x := ${get(`${P}/json`, '"bad": 1, "raise_error": false')}`,
    `x := http.send({"method": "get", "raise_error": false})`,
    `x := ${get(`${S}/json`, `"tls_ca_cert_file": "${file('nope.pem')}", "raise_error": false`)}`,
    `x := http.send({"method": 1, "url": "${P}/json"})`,
    `x := http.send({"method": "get", "url": 1})`,
    `x := ${get('ftp://x/')}`,
    // Bodies: Go's JSON (HTML-safe, sets as arrays), raw_body first.
    `x := http.send({"method": "post", "url": "${P}/echo", "body": {"a": "<&>", "s": {2, 1}}}).body.body`,
    `x := http.send({"method": "post", "url": "${P}/echo", "body": {"a": 1}, "raw_body": "r"}).body.body`,
    // A Unix socket, and one that is not there.
    `x := ${get(`unix://localhost/echo?socket=${encodeURIComponent(file('http.sock'))}&q=1`)}.body`,
    `x := ${get(`unix://localhost/echo?socket=${encodeURIComponent(file('nope.sock'))}`)}`,
  ];
}

type Answer = { error: string } | { value: string } | 'undefined';

/** Our answer as OPA's envelope would read (the value as JSON text), errors by their message without location. */
function ours(query: string): Answer {
  try {
    const rows = compilePolicy({ modules: {} }).query(query, { strictBuiltinErrors: true });
    return rows.length === 0 ? 'undefined' : { value: stringifyJSON(rows[0]!['x']!) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function opa(line: string): Answer {
  const env = JSON.parse(line) as { error?: { message: string }; result?: Array<{ bindings: { x: unknown } }> };
  if (env.error !== undefined) return { error: env.error.message };
  return env.result === undefined || env.result.length === 0 ? 'undefined' : { value: JSON.stringify(env.result[0]!.bindings.x) };
}

/** What may differ: the engine's name in paths, the Date header, an error's location label (OPA: the call's text; here row:col). */
function comparable(a: Answer, t: string): string {
  const text = a === 'undefined' ? 'undefined' : 'error' in a ? `error ${a.error.replace(/^(?:http\.send\(.*?\)(?:\.[a-z_.]+)?: |\d+:\d+: )/s, '')}` : a.value;
  return text
    .replaceAll(new RegExp(`/${t}([a-z0-9]?)\\b`, 'g'), '/T$1')
    .replaceAll(/"date":\["[^"]*"\]/g, '"date":[]')
    .replaceAll(/"keep-alive":\["[^"]*"\],?/g, '')
    .replaceAll(/"connection":\["[^"]*"\],?/g, '');
}

describe('http.send against OPA v1.20.2', () => {
  it.skipIf(pylib === undefined)(
    'answers every request option as OPA does, errors word for word',
    () => {
      const theirs = askOracle([{ modules: [['p.rego', 'package p\n']], evals: cases('opa').map((query) => ({ query, input: null })) }], pylib!);
      const mine = cases('ours').map(ours);
      const differ = mine
        .map((a, i) => ({ query: cases('ours')[i], ours: comparable(a, 'ours'), opa: comparable(opa(theirs[i]!), 'opa') }))
        .filter((d) => d.ours !== d.opa);
      expect(differ).toEqual([]);
      expect(mine.length).toBe(82);
    },
    120_000,
  );
});

describe('http.send across queries (cache: true), as OPA topdown/http.go keeps responses', () => {
  const q = (query: string) => ours(query);
  const value = (a: Answer) => JSON.parse((a as { value: string }).value) as unknown;
  const hits = (path: string) => value(q(`x := http.send({"method": "get", "url": "${P}/hits${path}"}).body.n`)) as number;

  it('keeps a response for max-age after its Date, and not one marked no-store or without a Date', () => {
    for (const [path, kept] of [
      ['/maxage/a', true],
      ['/nostore/a', false],
      ['/nodate/a', false],
    ] as const) {
      const first = value(q(`x := http.send({"method": "get", "url": "${P}${path}", "cache": true}).body.n`));
      const second = value(q(`x := http.send({"method": "get", "url": "${P}${path}", "cache": true}).body.n`));
      expect([path, second]).toEqual([path, kept ? first : 2]);
      expect(hits(path)).toBe(kept ? 1 : 2);
    }
  });

  it('revalidates a stale response that has an ETag, keeping its body on 304', () => {
    const first = q(`x := http.send({"method": "get", "url": "${P}/etag/a", "cache": true})`);
    expect((value(first) as { body: unknown }).body).toEqual({ n: 1 });
    const second = value(q(`x := http.send({"method": "get", "url": "${P}/etag/a", "cache": true})`)) as { body: unknown; headers: Record<string, string[]> };
    expect(second.body).toEqual({ n: 1 });
    expect(second.headers['x-revalidated']).toEqual(['2']);
    // Now fresh for 60 s (the 304's max-age): no third request.
    q(`x := http.send({"method": "get", "url": "${P}/etag/a", "cache": true})`);
    expect(hits('/etag/a')).toBe(2);
  });

  it('keys the cache without cache_ignored_headers, keeps force_cache responses, and stores nothing for a bad caching_mode', () => {
    const send = (path: string, more: string) => value(q(`x := http.send({"method": "get", "url": "${P}${path}", "cache": true, ${more}}).body.n`));
    expect(send('/maxage/b', '"headers": {"x-a": "1"}, "cache_ignored_headers": ["x-a"]')).toBe(1);
    expect(send('/maxage/b', '"headers": {"x-a": "2"}, "cache_ignored_headers": ["x-a"]')).toBe(1);
    expect(send('/status/200/forced', '"force_cache": true, "force_cache_duration_seconds": 60')).toBe(1);
    expect(send('/status/200/forced', '"force_cache": true, "force_cache_duration_seconds": 60')).toBe(1);
    expect(send('/maxage/c', '"caching_mode": "bogus"')).toBe(1);
    expect(send('/maxage/c', '"caching_mode": "bogus"')).toBe(2);
  });
});
