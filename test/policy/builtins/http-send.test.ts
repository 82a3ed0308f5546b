/**
 * http.send against a real HTTP server on a free loopback port. The server
 * runs in a child process: http.send blocks the evaluating thread, so a
 * server on the test's own thread could not answer. Expected shapes and
 * messages are those OPA v1.20.2 gives for the same requests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { toJS } from '../../../runtime/policy/value-json.js';

const SERVER = String.raw`
const http = require('node:http');
let hits = 0;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    hits++;
    const u = new URL(req.url, 'http://x');
    if (u.pathname === '/json') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Multi': ['1', '2'] });
      return res.end('{"a": 1, "big": 12345678901234567890}');
    }
    if (u.pathname === '/echo') {
      res.writeHead(201, { 'Content-Type': 'text/plain' });
      return res.end(JSON.stringify({ method: req.method, body, ct: req.headers['content-type'] ?? null, auth: req.headers['authorization'] ?? null }));
    }
    if (u.pathname === '/yaml') {
      res.writeHead(200, { 'Content-Type': 'application/yaml' });
      return res.end('a: [1, 2]\n');
    }
    if (u.pathname === '/redirect') {
      res.writeHead(302, { Location: '/json' });
      return res.end();
    }
    if (u.pathname === '/slow') {
      setTimeout(() => { res.writeHead(200); res.end('late'); }, 3000);
      return;
    }
    if (u.pathname === '/cached') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=60' });
      return res.end(JSON.stringify({ hits }));
    }
    if (u.pathname === '/hits') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ hits }));
    }
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found');
  });
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

let child: ChildProcess | undefined;
let base = '';

beforeAll(async () => {
  child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const rl = createInterface({ input: child.stdout! });
  const port = await new Promise<string>((resolve) => rl.once('line', resolve));
  base = `http://127.0.0.1:${port}`;
});

afterAll(() => {
  child?.kill();
});

function send(request: string): unknown {
  const rs = compilePolicy({ modules: {} }).query(`x := http.send(${request})`, { strictBuiltinErrors: true });
  return rs.length === 0 ? undefined : toJS(rs[0]!['x']!);
}

function sendError(request: string): string {
  try {
    send(request);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('http.send', () => {
  it('returns {status, status_code, body, raw_body, headers}, decoding JSON bodies', () => {
    const r = send(`{"method": "get", "url": "${base}/json"}`) as Record<string, unknown>;
    expect(r['status']).toBe('200 OK');
    expect(r['status_code']).toBe(200);
    expect(r['body']).toEqual({ a: 1, big: 12345678901234567890n });
    expect(r['raw_body']).toBe('{"a": 1, "big": 12345678901234567890}');
    expect((r['headers'] as Record<string, unknown>)['content-type']).toEqual(['application/json']);
    expect((r['headers'] as Record<string, unknown>)['x-multi']).toEqual(['1', '2']);
  });

  it('sends body as JSON, raw_body as is, and headers; body stays null for non-JSON responses', () => {
    const r = send(`{"method": "post", "url": "${base}/echo", "body": {"k": [1]}, "headers": {"Authorization": "Bearer t"}}`) as Record<string, unknown>;
    expect(r['status']).toBe('201 Created');
    expect(r['body']).toBeNull();
    expect(JSON.parse(r['raw_body'] as string)).toEqual({ method: 'POST', body: '{"k":[1]}', ct: null, auth: 'Bearer t' });
    const forced = send(`{"method": "put", "url": "${base}/echo", "raw_body": "hi", "force_json_decode": true}`) as Record<string, unknown>;
    expect(forced['body']).toEqual({ method: 'PUT', body: 'hi', ct: null, auth: null });
  });

  it('decodes YAML responses and follows redirects only when enable_redirect is set', () => {
    expect((send(`{"method": "get", "url": "${base}/yaml"}`) as Record<string, unknown>)['body']).toEqual({ a: [1, 2] });
    expect((send(`{"method": "get", "url": "${base}/redirect"}`) as Record<string, unknown>)['status_code']).toBe(302);
    expect((send(`{"method": "get", "url": "${base}/redirect", "enable_redirect": true}`) as Record<string, unknown>)['body']).toEqual({
      a: 1,
      big: 12345678901234567890n,
    });
  });

  it('reports a refused connection as an error, or as a response with raise_error: false', () => {
    expect(sendError('{"method": "get", "url": "http://127.0.0.1:1/"}')).toContain(
      `http.send: Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect: connection refused`,
    );
    const r = send('{"method": "get", "url": "http://127.0.0.1:1/", "raise_error": false}') as Record<string, unknown>;
    expect(r['status_code']).toBe(0);
    expect((r['error'] as Record<string, unknown>)['code']).toBe('eval_http_send_network_error');
  });

  it('gives up after the timeout', () => {
    expect(sendError(`{"method": "get", "url": "${base}/slow", "timeout": "200ms"}`)).toMatch(/timed out/);
  });

  it('sends an identical request once per query, and caches across queries with cache: true', () => {
    const policy = compilePolicy({ modules: {} });
    const hits = () => toJS(policy.query(`x := http.send({"method": "get", "url": "${base}/hits"}).body.hits`)[0]!['x']!) as number;
    const before = hits();
    const twice = policy.query(`a := http.send({"method": "get", "url": "${base}/hits"}); b := http.send({"method": "get", "url": "${base}/hits"})`);
    expect(toJS(twice[0]!['a']!)).toEqual(toJS(twice[0]!['b']!));
    expect(hits()).toBe(before + 2);
    const cached = () => toJS(policy.query(`x := http.send({"method": "get", "url": "${base}/cached", "cache": true}).body.hits`)[0]!['x']!);
    const first = cached();
    expect(cached()).toBe(first);
  });

  it("rejects malformed requests with OPA's messages", () => {
    expect(sendError('{"method": "get"}')).toContain('operand 1 missing required request parameters(s): {"url"}');
    expect(sendError(`{"method": "get", "url": "${base}/", "bad": 1}`)).toContain('operand 1 invalid request parameters(s): {"bad"}');
    expect(sendError(`{"method": "get", "url": "${base}/", "timeout": "x"}`)).toContain('invalid timeout value "x"');
    expect(sendError(`{"method": "get", "url": "${base}/", "headers": {"a": 1}}`)).toContain('invalid type for headers value "1"');
    expect(sendError('{"method": "get", "url": "nope"}')).toContain('unsupported protocol scheme');
  });
});

describe('net.lookup_ip_addr', () => {
  const lookup = (name: string) => {
    const rs = compilePolicy({ modules: {} }).query(`x := net.lookup_ip_addr(${JSON.stringify(name)})`, { strictBuiltinErrors: true });
    return toJS(rs[0]!['x']!);
  };

  it('returns an IP literal as is', () => {
    expect(lookup('10.0.0.0')).toEqual(['10.0.0.0']);
    expect(lookup('::')).toEqual(['::']);
  });

  it('resolves names through the system resolver (/etc/hosts)', () => {
    expect(['127.0.0.1', '::1']).toEqual(expect.arrayContaining(lookup('localhost') as string[]));
  });

  it('fails for a name that does not exist', () => {
    expect(() => lookup('nope.invalid')).toThrow(/net.lookup_ip_addr: lookup nope.invalid: no such host/);
  });
});
