import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_POLICY, Upstream } from '../../bench/support/guard-attacks/policy-budget.js';
import { runCli } from '../support/cli.js';
import { freePort, waitFor } from '../support/net.js';
import { startService, type Service } from '../support/processes.js';

// Attacks on the policy server's budget (issue 33): an http.send to a
// server that hangs (timeout 30s) held /health for 29 s; {"amount":
// 1e100000} held it for 6.9 s; sprintf("%0100000000d") for 16 s; a POST
// followed by more than 5 ms of work was sent twice (inline, then again in
// the worker); deep bodies and query text were a 500; ad-hoc queries could
// reach the network; policy serve and serve guardian listened on 0.0.0.0
// when asked, with no word from the operator.

let upstream: Upstream;
let upstreamUrl: string;
let dir: string;
let service: Service;

const post = async (path: string, body: string) => {
  const response = await fetch(`${service.url}${path}`, { method: 'POST', body });
  return { status: response.status, body: (await response.json()) as any };
};

beforeAll(async () => {
  upstream = new Upstream();
  upstreamUrl = await upstream.start();
  dir = mkdtempSync(join(tmpdir(), 'fw-sec-policy-budget-'));
  writeFileSync(join(dir, 'budget.rego'), BUDGET_POLICY);
  const port = await freePort();
  service = await startService({
    name: 'policy serve',
    args: ['policy', 'serve', dir, '--addr', `127.0.0.1:${port}`, '--eval-timeout', '3000', '--no-watch'],
    port,
  });
});

afterAll(async () => {
  await service?.stop();
  await upstream?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the policy server under an http.send that hangs', () => {
  it('answers /health while the upstream still holds the request, and ends the decision at the budget, not the 30 s timeout', async () => {
    let settled = false;
    const hanging = post('/v1/data/budget/hang', JSON.stringify({ input: { url: `${upstreamUrl}/hang` } })).finally(() => (settled = true));
    await waitFor(async () => upstream.open > 0, 'the upstream to receive the request');
    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);
    // Answered while the http.send was still waiting: the upstream holds the connection, the decision is pending.
    expect(upstream.open).toBeGreaterThan(0);
    expect(settled).toBe(false);
    const cheap = await post('/v1/data/budget/cheap', '{}');
    expect(cheap.body).toEqual({ result: true });
    expect(settled).toBe(false);

    const over = await hanging;
    expect(over).toMatchObject({ status: 500, body: { code: 'internal_error', errors: [{ code: 'eval_cancel_error' }] } });
    expect(over.body.message).toContain('evaluation budget of 3000 ms');
  });
});

describe('side effects', () => {
  it('sends an http.send POST once per decision, however long the decision works after it', async () => {
    const before = upstream.posts;
    const answer = await post('/v1/data/budget/post', JSON.stringify({ input: { url: `${upstreamUrl}/post` } }));
    expect(answer).toEqual({ status: 200, body: { result: 42857 } });
    expect(upstream.posts - before).toBe(1);
  });
});

describe('costly values', () => {
  it('refuses {"amount": 1e100000} with a 400 rather than building a 100,001-digit integer', async () => {
    const answer = await post('/v1/data/budget/small', '{"input": {"amount": 1e100000}}');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('numbers too large') });
    // A number beyond a double that fits the allowance is still taken exactly.
    expect(await post('/v1/data/budget/small', '{"input": {"amount": 1e400}}')).toEqual({ status: 200, body: {} });
  });

  it('answers sprintf("%0100000000d") as Go and OPA do, without building 100 MB', async () => {
    const answer = await post('/v1/data/budget/padded', '{}');
    expect(answer.status).toBe(200);
    expect(answer.body.result).toMatch(/^%!\(NOVERB\)/);
  });
});

describe('text nested too deep', () => {
  it('evaluates a body nested 3,000 deep as OPA does, answers one past 10,000 deep and a query 3,000 deep with a 400, never a 500', async () => {
    // OPA reads JSON 10,000 deep (Go's encoding/json) and evaluates over it; until 4 Dec anything past 256 was a 400 here.
    const body = await post('/v1/data/budget/walked', `{"input": ${'['.repeat(3_000)}1${']'.repeat(3_000)}}`);
    expect(body).toEqual({ status: 200, body: { result: 3_001 } });
    const tooDeep = await post('/v1/data/budget/walked', `{"input": ${'['.repeat(10_000)}1${']'.repeat(10_000)}}`);
    expect(tooDeep).toMatchObject({ status: 400, body: { message: expect.stringContaining("invalid character '[' exceeded max depth") } });
    const direct = await fetch(`${service.url}/v1/data/budget/walked?input=${encodeURIComponent(`${'['.repeat(300)}1${']'.repeat(300)}`)}`);
    expect(await direct.json()).toEqual({ result: 301 });
    const sum = await post('/v1/query', JSON.stringify({ query: `x := ${Array.from({ length: 30_000 }, () => '1').join(' + ')}` }));
    expect(sum.status).toBe(400);
    const brackets = await post('/v1/query', JSON.stringify({ query: `x := ${'['.repeat(3_000)}1${']'.repeat(3_000)}` }));
    expect(brackets).toMatchObject({
      status: 400,
      body: { errors: [{ code: 'rego_parse_error', message: expect.stringContaining('nested more than 256 deep') }] },
    });
    expect(await post('/v1/data/budget/walked', '{"input": [[1]]}')).toEqual({ status: 200, body: { result: 3 } });
  });
});

describe('ad-hoc queries and the network', () => {
  it('refuses http.send and net.lookup_ip_addr in /v1/query with a 403 naming the flag, and sends nothing', async () => {
    const before = upstream.posts;
    const sent = await post('/v1/query', JSON.stringify({ query: `r := http.send({"method": "POST", "url": "${upstreamUrl}/query"})` }));
    expect(sent).toMatchObject({ status: 403, body: { code: 'forbidden', message: expect.stringContaining('--allow-query-network') } });
    expect(upstream.posts).toBe(before);
    // Through a rule of the policy too: the query, not the rule, decides.
    const viaRule = await post('/v1/query', JSON.stringify({ query: 'x := data.budget.post', input: { url: `${upstreamUrl}/query` } }));
    expect(viaRule.status).toBe(403);
    expect(upstream.posts).toBe(before);
    const lookup = await fetch(`${service.url}/v1/query?q=${encodeURIComponent('r := net.lookup_ip_addr("localhost")')}`);
    expect(lookup.status).toBe(403);
    // Decisions of the Data API keep the network: the operator's policies call it.
    expect((await post('/v1/data/budget/post', JSON.stringify({ input: { url: `${upstreamUrl}/post` } }))).status).toBe(200);
  });

  it('lets ad-hoc queries reach the network with --allow-query-network', async () => {
    const port = await freePort();
    const open = await startService({
      name: 'policy serve --allow-query-network',
      args: ['policy', 'serve', dir, '--addr', `127.0.0.1:${port}`, '--no-watch', '--allow-query-network'],
      port,
    });
    try {
      const before = upstream.posts;
      const response = await fetch(`${open.url}/v1/query`, {
        method: 'POST',
        body: JSON.stringify({ query: `r := http.send({"method": "POST", "url": "${upstreamUrl}/query"}).status_code` }),
      });
      expect(await response.json()).toEqual({ result: [{ r: 200 }] });
      expect(upstream.posts - before).toBe(1);
    } finally {
      await open.stop();
    }
  });
});

describe('listening beyond loopback', () => {
  it('policy serve and serve guardian refuse 0.0.0.0 without --allow-remote, saying which flag allows it', async () => {
    const policy = await runCli(['policy', 'serve', dir, '--addr', `0.0.0.0:${await freePort()}`, '--no-watch']);
    expect(policy.code).not.toBe(0);
    expect(policy.stderr).toMatch(/refuses to listen beyond loopback[\s\S]*--allow-remote/);
    const guardian = await runCli(['serve', 'guardian', '--addr', `0.0.0.0:${await freePort()}`, '--opa-url', service.url]);
    expect(guardian.code).not.toBe(0);
    expect(guardian.stderr).toMatch(/refuses to listen beyond loopback[\s\S]*--allow-remote/);
    const allowed = await runCli(['policy', 'serve', dir, '--addr', `0.0.0.0:${await freePort()}`, '--no-watch', '--allow-remote', '--json'], {
      stopWhen: /listening/,
    });
    expect(allowed.stdout).toContain('"listening"');
  });
});
