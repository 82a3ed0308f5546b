import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyServer, type RunningPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { waitFor } from '../../support/net.js';
import { REPO_ROOT } from '../../support/processes.js';

let dir: string;
let server: RunningPolicyServer;

const call = (source: string, target: string) => ({
  input: { source_agent: { name: source }, target_agent: { name: target } },
});

async function post(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-policies-'));
  cpSync(join(REPO_ROOT, 'policies'), dir, { recursive: true });
  mkdirSync(join(dir, 'limits'));
  writeFileSync(join(dir, 'limits', 'data.json'), '{"max": 12345678901234567890}');
  server = await startPolicyServer({ dir, port: 0, decisionLog: join(dir, '..', `${dir.split('/').pop()}-decisions.log`), mask: ['/input/secret'] });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("OPA's Data API", () => {
  it('POST /v1/data/<path> answers {result} for the spec rules', async () => {
    expect(await post('/v1/data/a2a_access/allow', call('orchestrator', 'anyone'))).toMatchObject({ status: 200, json: { result: true } });
    expect((await post('/v1/data/a2a_access/allow', call('planner', 'orchestrator'))).json.result).toBe(true);
    expect((await post('/v1/data/a2a_access/allow', call('executor', 'semantic-layer'))).json.result).toBe(true);
    expect((await post('/v1/data/a2a_access/allow', call('planner', 'database'))).json.result).toBe(false);
    expect((await post('/v1/data/a2a_access/deny', call('untrusted', 'database'))).json.result).toEqual(['untrusted agents may not call the database']);
  });

  it('answers 200 {} for an undefined document, and the whole tree at /v1/data', async () => {
    const undefinedDoc = await post('/v1/data/a2a_access/no_such_rule', { input: {} });
    expect(undefinedDoc.status).toBe(200);
    expect(undefinedDoc.json).toMatchObject({});
    expect(undefinedDoc.json.result).toBeUndefined();
    const tree = await post('/v1/data', { input: call('orchestrator', 'x').input });
    expect(tree.json.result.a2a_access.allow).toBe(true);
    expect(tree.json.result.trading.max_amount).toBe(50000);
  });

  it('keeps big integers from data files exact', async () => {
    const response = await fetch(`${server.url}/v1/data/limits/max`);
    expect(await response.text()).toContain('"result":12345678901234567890');
  });

  it('GET /v1/data reads input from the query string; ?metrics adds timings', async () => {
    const input = encodeURIComponent(JSON.stringify({ action: 'trade', amount: 6000 }));
    const response = await fetch(`${server.url}/v1/data/trading/require_approval?input=${input}&metrics`);
    const json = (await response.json()) as { result: boolean; metrics: Record<string, number> };
    expect(json.result).toBe(true);
    expect(json.metrics.timer_rego_query_eval_ns).toBeGreaterThan(0);
    const bad = await fetch(`${server.url}/v1/data/trading/allow?input=%7Bnope`);
    expect(bad.status).toBe(400);
  });

  it('POST /v0/data takes the bare input and answers the bare value, 404 when undefined', async () => {
    const response = await post('/v0/data/trading/deny', { amount: 60000, metadata: { requests_last_minute: 500 } });
    expect(response.json).toEqual(['amount 60000 is at or above the limit of 50000', 'rate limit exceeded: 500 requests in the last minute (at most 100)']);
    const missing = await post('/v0/data/trading/nothing', {});
    expect(missing).toMatchObject({ status: 404, json: { code: 'undefined_document' } });
  });

  it("answers malformed bodies with 400 and OPA's error shape", async () => {
    for (const body of ['{"input":', '[1,2]', 'not json']) {
      const response = await post('/v1/data/a2a_access/allow', body);
      expect(response.status).toBe(400);
      expect(response.json.code).toBe('invalid_parameter');
      expect(typeof response.json.message).toBe('string');
    }
  });

  it('lists policies read-only by default', async () => {
    const list = (await (await fetch(`${server.url}/v1/policies`)).json()) as { result: { id: string; raw: string }[] };
    expect(list.result.map((p) => p.id)).toEqual(['a2a_access.rego', 'a2a_access_test.rego', 'trading.rego', 'trading_test.rego']);
    expect(list.result[0]!.raw).toBe(readFileSync(join(dir, 'a2a_access.rego'), 'utf8'));
    const one = await fetch(`${server.url}/v1/policies/trading.rego`);
    expect(((await one.json()) as { result: { id: string } }).result.id).toBe('trading.rego');
    expect((await fetch(`${server.url}/v1/policies/none.rego`)).status).toBe(404);
    const put = await fetch(`${server.url}/v1/policies/x.rego`, { method: 'PUT', body: 'package x' });
    expect(put.status).toBe(403);
  });

  it('writes one decision log line per decision, with masked fields erased', async () => {
    await post('/v1/data/a2a_access/allow', { input: { ...call('orchestrator', 'x').input, secret: 'hunter2' } });
    const log = join(dir, '..', `${dir.split('/').pop()}-decisions.log`);
    await waitFor(async () => readFileSync(log, 'utf8').includes('"erased"'), 'the decision line');
    const line = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.erased);
    expect(line).toMatchObject({ path: 'a2a_access/allow', result: true, erased: ['/input/secret'] });
    expect(line.input.secret).toBeUndefined();
    expect(typeof line.decision_id).toBe('string');
    expect(Date.parse(line.timestamp)).not.toBeNaN();
  });
});

describe('reloading', () => {
  it('picks up an edit, keeps serving the last good set when an edit breaks, and reports where', async () => {
    const file = join(dir, 'a2a_access.rego');
    const original = readFileSync(file, 'utf8');
    const allowedFor = async (source: string) => (await post('/v1/data/a2a_access/allow', call(source, 'executor'))).json.result;
    expect(await allowedFor('auditor')).toBe(false);

    writeFileSync(file, `${original}\nallow if input.source_agent.name == "auditor"\n`);
    await waitFor(async () => (await allowedFor('auditor')) === true, 'the edit to be served', 10_000);

    writeFileSync(file, `${original}\nallow if { x > 1 }\n`);
    await waitFor(async () => (await fetch(`${server.url}/health?bundles`)).status === 500, 'the broken reload to show', 10_000);
    const health = (await (await fetch(`${server.url}/health?bundles`)).json()) as { errors: { code: string; location: { file: string; row: number } }[] };
    expect(health.errors[0]).toMatchObject({ code: 'rego_unsafe_var_error', location: { file: 'a2a_access.rego' } });
    expect(health.errors[0]!.location.row).toBe(original.split('\n').length + 1);
    // Still the last good set (with the auditor rule), never a half-loaded one.
    expect(await allowedFor('auditor')).toBe(true);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);

    writeFileSync(file, original);
    await waitFor(async () => (await fetch(`${server.url}/health?bundles`)).status === 200, 'the fix to load', 10_000);
    expect(await allowedFor('auditor')).toBe(false);
  });
});

describe('writes, when enabled', () => {
  it('PUT compiles and serves a module; a broken one is refused with its errors; DELETE removes it', async () => {
    const writable = await startPolicyServer({ dir, port: 0, allowWrites: true, watch: false });
    try {
      const put = (body: string) => fetch(`${writable.url}/v1/policies/extra.rego`, { method: 'PUT', body });
      expect((await put('package extra\n\nimport rego.v1\n\nanswer := 42\n')).status).toBe(200);
      const value = await fetch(`${writable.url}/v1/data/extra/answer`, { method: 'POST', body: '{}' });
      expect(await value.json()).toEqual({ result: 42 });
      const broken = await put('package extra\n\nanswer := \n');
      expect(broken.status).toBe(400);
      expect(((await broken.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('rego_parse_error');
      expect(await (await fetch(`${writable.url}/v1/data/extra/answer`, { method: 'POST', body: '{}' })).json()).toEqual({ result: 42 });
      expect((await fetch(`${writable.url}/v1/policies/extra.rego`, { method: 'DELETE' })).status).toBe(200);
      expect(await (await fetch(`${writable.url}/v1/data/extra/answer`, { method: 'POST', body: '{}' })).json()).toEqual({});
    } finally {
      await writable.close();
    }
  });
});
