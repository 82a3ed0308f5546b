import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, type Listening } from '../../../runtime/core/server/listen.js';
import { DecisionLog } from '../../../runtime/policy/server/decision-log.js';
import { createPolicyServer, type PolicyServerApp } from '../../../runtime/policy/server/opa-server.js';
import { PolicyStore } from '../../../runtime/policy/server/policy-store.js';

// `POST /v1/data/{path}` is answered below Hono on Node's own objects (the
// policy server's hot route). The same policies served twice, once with the
// direct route and once through the app only, must answer every request
// alike: status, body, content type, metrics and decision log.

const POLICY = [
  'package example',
  '',
  'allow if input.user == "admin"',
  '',
  'echo := input',
  '',
  'triples := count([1 | some i, j, k; input.items[i]; input.items[j]; input.items[k]])',
  '',
].join('\n');
const MAX_BODY = 2048;

interface Served {
  app: PolicyServerApp;
  listening: Listening;
  log: string[];
  /** Requests the direct route answered. */
  readonly direct: number;
}

let dir: string;
let store: PolicyStore;
let withDirect: Served;
let appOnly: Served;

async function serve(direct: boolean): Promise<Served> {
  const log: string[] = [];
  const app = createPolicyServer({
    store,
    pool: false,
    evalTimeoutMs: 200,
    maxBodyBytes: MAX_BODY,
    decisionLog: new DecisionLog({ write: (line) => log.push(line), mask: [] }),
  });
  const counted = { direct: 0 };
  const listening = await listen(app, {
    host: '127.0.0.1',
    port: 0,
    ...(direct
      ? {
          direct: (request, response) => {
            const taken = app.direct(request, response);
            if (taken) counted.direct++;
            return taken;
          },
        }
      : {}),
  });
  return {
    app,
    listening,
    log,
    get direct() {
      return counted.direct;
    },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-direct-route-'));
  writeFileSync(join(dir, 'example.rego'), POLICY);
  writeFileSync(join(dir, 'data.json'), '{"limits": {"max": 3}}');
  store = new PolicyStore({ dir });
  expect(await store.reload()).toBe(true);
  withDirect = await serve(true);
  appOnly = await serve(false);
});

afterAll(async () => {
  for (const s of [withDirect, appOnly]) {
    await s.listening.close();
    await s.app.close();
  }
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The answer with its decision id (random per decision) replaced. */
async function ask(on: Served, path: string, init: RequestInit = {}) {
  const response = await fetch(`${on.listening.url}${path}`, { method: 'POST', ...init });
  const text = (await response.text()).replace(/"decision_id":\s*"[0-9a-f-]{36}"/, '"decision_id":"ID"');
  return { status: response.status, type: response.headers.get('content-type'), text };
}

/** A body sent in chunks with no Content-Length. */
function chunked(...parts: string[]): RequestInit {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of parts) controller.enqueue(new TextEncoder().encode(p));
      controller.close();
    },
  });
  return { body: stream, duplex: 'half' } as RequestInit;
}

const DIRECT_CASES: Array<[string, string, () => RequestInit]> = [
  ['a decision', '/v1/data/example/allow', () => ({ body: '{"input": {"user": "admin"}}' })],
  ['a false decision', '/v1/data/example/allow', () => ({ body: '{"input": {"user": "guest"}}' })],
  ['an undefined document', '/v1/data/example/nothing', () => ({ body: '{"input": {}}' })],
  ['the whole tree, trailing slash', '/v1/data/', () => ({ body: '{}' })],
  ['the whole tree', '/v1/data', () => ({ body: '' })],
  ['doubled slashes', '/v1/data//example//echo', () => ({ body: '{"input": [1, "a"]}' })],
  ['numbers kept exact', '/v1/data/example/echo', () => ({ body: '{"input": {"big": 123456789012345678901234567890, "n": 1e400, "f": 1.50}}' })],
  ['malformed JSON', '/v1/data/example/allow', () => ({ body: '{"input": ' })],
  ['a body that is not an object', '/v1/data/example/allow', () => ({ body: '[1, 2]' })],
  ['a declared body over the limit', '/v1/data/example/allow', () => ({ body: `{"input": "${'x'.repeat(MAX_BODY)}"}` })],
  ['a chunked body over the limit', '/v1/data/example/allow', () => chunked('{"input": "', 'x'.repeat(MAX_BODY), '"}')],
  ['a chunked body', '/v1/data/example/allow', () => chunked('{"input": ', '{"user": "admin"}}')],
  [
    'a decision over the evaluation budget',
    '/v1/data/example/triples',
    () => ({ body: JSON.stringify({ input: { items: Array.from({ length: 400 }, (_, i) => i) } }) }),
  ],
];

const APP_CASES: Array<[string, string, () => RequestInit]> = [
  ['a query string', '/v1/data/example/allow?pretty', () => ({ body: '{"input": {"user": "admin"}}' })],
  ['a percent-encoded path', '/v1/data/exa%6Dple/allow', () => ({ body: '{"input": {"user": "admin"}}' })],
  ['a malformed percent-encoding', '/v1/data/%E0%A4%A', () => ({ body: '{}' })],
  ['another route', '/v1/dataset', () => ({ body: '{}' })],
  ['a GET', '/v1/data/example/allow', () => ({ method: 'GET' })],
];

describe('the direct route of POST /v1/data', () => {
  it('answers as the app does, and takes only plain POST /v1/data requests', async () => {
    for (const [what, path, init] of [...DIRECT_CASES, ...APP_CASES]) {
      const before = withDirect.direct;
      const direct = await ask(withDirect, path, init());
      expect(direct, what).toEqual(await ask(appOnly, path, init()));
      expect(withDirect.direct - before, what).toBe(DIRECT_CASES.some(([w]) => w === what) ? 1 : 0);
    }
    expect(appOnly.direct).toBe(0);
  });

  it('leaves to the app the paths and hosts the URL parser would change, and answers them as it does', async () => {
    const body = '{"input": {"user": "admin"}}';
    const cases: Array<[string, string, string]> = [
      ['a dot segment', '/v1/data/example/../example/allow', '127.0.0.1'],
      ['a single-dot segment', '/v1/data/./example/allow', '127.0.0.1'],
      ['a backslash', '/v1/data/example\\allow', '127.0.0.1'],
      ['raw UTF-8 in the path', '/v1/data/ex\u00e4mple/allow', '127.0.0.1'],
      ['a host the adapter refuses', '/v1/data/example/allow', 'user@127.0.0.1'],
      ['a host with an IPv4 number the parser rewrites', '/v1/data/example/allow', '0x7f.1'],
      ['a plain request (control)', '/v1/data/example/allow', 'localhost:8181'],
    ];
    for (const [what, target, host] of cases) {
      const before = withDirect.direct;
      const direct = await raw(withDirect, target, host, body);
      expect(direct, what).toEqual(await raw(appOnly, target, host, body));
      expect(withDirect.direct - before, what).toBe(what.endsWith('(control)') ? 1 : 0);
    }
  });

  it('counts its requests in /metrics and logs its decisions as the app does', async () => {
    const count = async (on: Served): Promise<string[]> => {
      const text = await (await fetch(`${on.listening.url}/metrics`)).text();
      return text.split('\n').filter((l) => l.startsWith('http_request_duration_seconds_count{') && l.includes('handler="v1/data"'));
    };
    const directCounts = await count(withDirect);
    expect(directCounts).toEqual(await count(appOnly));
    expect(directCounts.some((l) => l.includes('code="200"') && l.includes('method="POST"'))).toBe(true);
    expect(directCounts.some((l) => l.includes('code="413"'))).toBe(true);
    // Paths that name no route share one label: random paths must not grow /metrics.
    for (const i of [1, 2, 3]) expect((await fetch(`${withDirect.listening.url}/random-${i}/x`)).status).toBe(404);
    const scraped = await (await fetch(`${withDirect.listening.url}/metrics`)).text();
    expect(scraped).not.toContain('random');
    expect(scraped).toMatch(/http_request_duration_seconds_count\{code="404",handler="other",method="GET"\} 3\n/);
    expect(scraped).toMatch(/# TYPE http_request_duration_seconds histogram\n/);
    expect(scraped).toMatch(/http_request_duration_seconds_bucket\{le="\+Inf",code="200",handler="v1\/data",method="POST"\} [1-9]/);
    const decisions = (log: string[]) => log.map((line) => JSON.parse(line) as { path: string; result?: unknown }).map((d) => [d.path, d.result]);
    expect(decisions(withDirect.log)).toEqual(decisions(appOnly.log));
    expect(withDirect.log.length).toBeGreaterThan(5);
  });

  it("answers OPA's shapes, numbers kept exact in the answer and the decision log", async () => {
    expect((await ask(withDirect, '/v1/data/example/allow', { body: '{"input": {"user": "admin"}}' })).text).toBe('{"decision_id":"ID","result":true}');
    expect((await ask(withDirect, '/v1/data/example/echo', { body: '{"input": {"n": 1e400, "f": 1.50}}' })).text).toBe(
      '{"decision_id":"ID","result":{"f":1.50,"n":1e400}}',
    );
    // The decision log keeps those numbers too (it once failed the decision with a 500).
    expect(withDirect.log.at(-1)).toContain('"input":{"f":1.50,"n":1e400}');
    const tooBig = await ask(withDirect, '/v1/data/example/allow', { body: `{"input": "${'x'.repeat(MAX_BODY)}"}` });
    expect(tooBig.status).toBe(413);
    const budget = await ask(withDirect, '/v1/data/example/triples', { body: JSON.stringify({ input: { items: Array.from({ length: 400 }, (_, i) => i) } }) });
    expect(budget.status).toBe(500);
    expect(JSON.parse(budget.text).errors[0].code).toBe('eval_cancel_error');
  });
});

/** A request written byte for byte on a socket (fetch would normalise the path); the status line and body of the answer. */
function raw(on: Served, target: string, host: string, body: string): Promise<{ status: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(on.listening.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      resolve({ status: text.slice(0, text.indexOf('\r\n')), body: text.slice(split + 4).replace(/"decision_id":"[0-9a-f-]{36}"/, '"decision_id":"ID"') });
    });
    const head = `POST ${target} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    socket.end(Buffer.concat([Buffer.from(head, 'utf8'), Buffer.from(body)]));
  });
}
