import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { freePort } from '../support/net.js';
import { REPO_ROOT, startService, type Service } from '../support/processes.js';

// Attack: a malformed percent-encoding in the path made the policy server
// answer 500 (decodeURIComponent threw). It is the client's error: 400 in
// OPA's error shape, on every route, and the server stays healthy.

let dir: string;
let server: RunningPolicyServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-sec-policies-'));
  cpSync(join(REPO_ROOT, 'policies'), dir, { recursive: true });
  server = await startPolicyServer({ dir, port: 0, watch: false, allowWrites: true });
});

afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the policy server and malformed percent-encodings', () => {
  it('answers 400 invalid_parameter on every route, never 500', async () => {
    const attempts: Array<[string, string]> = [
      ['POST', '/v1/data/a2a_access/%E0%A4%A'],
      ['GET', '/v1/data/%'],
      ['POST', '/v0/data/a2a_access/%zz'],
      ['GET', '/v1/policies/%E0'],
      ['PUT', '/v1/policies/x%E0.rego'],
      ['DELETE', '/v1/policies/%'],
    ];
    for (const [method, path] of attempts) {
      const response = await fetch(`${server.url}${path}`, { method, ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{"input":{}}' }) });
      expect(response.status, `${method} ${path}`).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid_parameter' });
    }
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const decision = await fetch(`${server.url}/v1/data/a2a_access/allow`, {
      method: 'POST',
      body: '{"input":{"source_agent":{"name":"orchestrator"},"target_agent":{"name":"x"}}}',
    });
    expect(await decision.json()).toEqual({ result: true });
  });
});

// Attack: a policy whose cost grows with its input (here n³ for n items)
// blocked the server: /health and every other decision waited until the
// costly one ended (30 s and more). Now a decision that outgrows a short
// slice on the event loop is evaluated in a worker thread, and one that runs
// past the evaluation budget is stopped with OPA's error shape.
describe('the policy server under a costly decision', () => {
  const SLOW_POLICY = [
    'package slow',
    '',
    '# n^3 steps for n items.',
    'triples := count([1 | some i, j, k; input.items[i]; input.items[j]; input.items[k]])',
    '',
    '# n^3 steps that keep nothing: for 1,500 items (3.4 billion steps) no machine finishes within the budget.',
    'spin if {',
    '  some i, j, k',
    '  input.items[i]; input.items[j]; input.items[k]',
    '  false',
    '}',
    '',
    'allow if input.user == "admin"',
    '',
  ].join('\n');
  let slowDir: string;
  let service: Service;
  const items = (n: number) => JSON.stringify({ input: { items: Array.from({ length: n }, (_, i) => i) } });
  const post = (path: string, body: string) => fetch(`${service.url}${path}`, { method: 'POST', body });

  beforeAll(async () => {
    slowDir = mkdtempSync(join(tmpdir(), 'fw-sec-slow-policies-'));
    writeFileSync(join(slowDir, 'slow.rego'), SLOW_POLICY);
    const port = await freePort();
    service = await startService({
      name: 'policy engine',
      args: ['policy', 'serve', slowDir, '--addr', `127.0.0.1:${port}`, '--eval-timeout', '4000', '--no-watch'],
      port,
    });
  });

  afterAll(async () => {
    await service?.stop();
    rmSync(slowDir, { recursive: true, force: true });
  });

  it('answers /health and cheap decisions while the costly one runs, and stops it at the budget', async () => {
    const finished: string[] = [];
    const costly = post('/v1/data/slow/spin', items(1500)).then(async (r) => {
      finished.push('costly');
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    });
    // Once the costly decision is under way (its body is sent), the server must still answer.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const health = await fetch(`${service.url}/health`);
    finished.push('health');
    const cheap = await post('/v1/data/slow/allow', '{"input":{"user":"admin"}}');
    finished.push('cheap');
    expect(health.status).toBe(200);
    expect(await cheap.json()).toEqual({ result: true });

    const over = await costly;
    expect(finished).toEqual(['health', 'cheap', 'costly']);
    expect(over.status).toBe(500);
    expect(over.body).toMatchObject({
      code: 'internal_error',
      message: expect.stringContaining('evaluation budget of 4000 ms'),
      errors: [{ code: 'eval_cancel_error', message: expect.stringContaining('caller cancelled query execution') }],
    });

    // The server keeps serving: a cheap decision, and a costlier one that fits the budget, in a fresh worker.
    expect(await (await post('/v1/data/slow/allow', '{"input":{"user":"bob"}}')).json()).toEqual({});
    expect(await (await post('/v1/data/slow/triples', items(60))).json()).toEqual({ result: 216000 });
    const metrics = await (await fetch(`${service.url}/metrics`)).text();
    expect(metrics).toMatch(/policy_decisions_total\{where="worker"\} [1-9]/);
    expect(metrics).toMatch(/policy_decisions_over_budget_total 1\b/);
  });

  it('answers every costly decision with eval_cancel_error when there are more of them than workers', async () => {
    const answers = await Promise.all(
      [1, 2, 3].map(() => post('/v1/data/slow/spin', items(1500)).then(async (r) => ({ status: r.status, body: await r.json() }))),
    );
    for (const answer of answers) expect(answer).toMatchObject({ status: 500, body: { errors: [{ code: 'eval_cancel_error' }] } });
    expect(await (await post('/v1/data/slow/triples', items(10))).json()).toEqual({ result: 1000 });
  });
});
