import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyServer, type RunningPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { freePort } from '../../support/net.js';
import { startService, type Service } from '../../support/processes.js';

// OPA's REST API beyond the Data API: the default decision, the Query API,
// data writes, ?pretty / ?instrument, /metrics, /v1/status and the policy
// AST. Shapes follow OPA's REST API reference.

const POLICY = [
  'package example',
  '',
  'allow if input.user == "admin"',
  '',
  'servers := [{"name": "s1", "ports": ["p1"]}, {"name": "s2", "ports": ["p2", "p3"]}]',
  '',
  'triples := count([1 | some i, j, k; input.items[i]; input.items[j]; input.items[k]])',
  '',
  'traced if {',
  '\ttrace(sprintf("user %s", [input.user]))',
  '\tinput.user == "admin"',
  '}',
  '',
  'huge := x if {',
  '\tx := 1e400',
  '\tinput.n > x',
  '}',
  '',
].join('\n');
const SYSTEM = 'package system\n\nmain := {"hello": input.name}\n';

let dir: string;
let server: RunningPolicyServer;
let readOnly: RunningPolicyServer;

const req = async (method: string, path: string, body?: string, on = server) => {
  const response = await fetch(`${on.url}${path}`, { method, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, text, json: text === '' ? undefined : (JSON.parse(text) as any) };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-opa-endpoints-'));
  writeFileSync(join(dir, 'example.rego'), POLICY);
  writeFileSync(join(dir, 'system.rego'), SYSTEM);
  writeFileSync(join(dir, 'data.json'), '{"limits": {"max": 3, "big": 12345678901234567890}}');
  server = await startPolicyServer({ dir, port: 0, watch: false, allowWrites: true, evalTimeoutMs: 300 });
  readOnly = await startPolicyServer({ dir, port: 0, watch: false });
});
afterAll(async () => {
  await server?.close();
  await readOnly?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST / (the default decision)', () => {
  it('evaluates data.system.main with the whole body as input and answers the bare value', async () => {
    expect(await req('POST', '/', '{"name": "alice"}')).toMatchObject({ status: 200, json: { hello: 'alice' } });
  });
});

describe('the Query API', () => {
  it('GET /v1/query?q= answers the bindings of each solution', async () => {
    const q = encodeURIComponent('data.example.servers[i].ports[_] = "p2"; data.example.servers[i].name = name');
    expect(await req('GET', `/v1/query?q=${q}`)).toMatchObject({ status: 200, json: { result: [{ i: 1, name: 's2' }] } });
  });
  it('POST /v1/query takes the query and the input in the body; big numbers stay exact', async () => {
    const r = await req('POST', '/v1/query', JSON.stringify({ query: 'x := data.limits.big; input.user == "admin"', input: { user: 'admin' } }));
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"result":[{"x":12345678901234567890}]}');
    expect((await req('POST', '/v1/query', JSON.stringify({ query: 'input.user == "admin"', input: { user: 'bob' } }))).json).toEqual({});
  });
  it('answers 400 for a missing or broken query', async () => {
    expect(await req('GET', '/v1/query')).toMatchObject({ status: 400, json: { code: 'invalid_parameter' } });
    const broken = await req('GET', `/v1/query?q=${encodeURIComponent('x := ')}`);
    expect(broken).toMatchObject({ status: 400, json: { code: 'invalid_parameter', errors: [{ code: 'rego_parse_error' }] } });
    const badInput = await req('GET', `/v1/query?q=${encodeURIComponent('x := input.a')}&input=%7Bnope`);
    expect(badInput).toMatchObject({ status: 400, json: { code: 'invalid_parameter' } });
  });
});

describe('data writes', () => {
  it('PUT creates a document (and missing parents), PATCH applies a JSON patch, DELETE removes; each answers 204', async () => {
    expect((await req('PUT', '/v1/data/teams/blue', '{"members": ["ann"]}')).status).toBe(204);
    expect((await req('GET', '/v1/data/teams')).json).toEqual({ result: { blue: { members: ['ann'] } } });
    const patch = [
      { op: 'add', path: '/members/-', value: 'bob' },
      { op: 'replace', path: '/members/0', value: 'cid' },
    ];
    expect((await req('PATCH', '/v1/data/teams/blue', JSON.stringify(patch))).status).toBe(204);
    expect((await req('GET', '/v1/data/teams/blue/members')).json).toEqual({ result: ['cid', 'bob'] });
    expect((await req('DELETE', '/v1/data/teams/blue')).status).toBe(204);
    expect((await req('GET', '/v1/data/teams')).json).toEqual({ result: {} });
    // Policies see written data at once.
    expect((await req('POST', '/v1/query', '{"query": "x := data.limits.max"}')).json).toEqual({ result: [{ x: 3 }] });
    expect((await req('PUT', '/v1/data/limits/max', '7')).status).toBe(204);
    expect((await req('POST', '/v1/query', '{"query": "x := data.limits.max"}')).json).toEqual({ result: [{ x: 7 }] });
  });
  it('refuses what cannot apply: 404 for a missing document, 400 for a bad patch or body', async () => {
    expect(await req('DELETE', '/v1/data/nothing/here')).toMatchObject({ status: 404, json: { code: 'resource_not_found' } });
    expect(await req('PATCH', '/v1/data/limits', '{"op": "add"}')).toMatchObject({ status: 400, json: { code: 'invalid_parameter' } });
    expect(await req('PATCH', '/v1/data/limits', '[{"op": "move", "path": "/x"}]')).toMatchObject({ status: 400, json: { code: 'invalid_parameter' } });
    expect(await req('PUT', '/v1/data/limits/x', '{not json')).toMatchObject({ status: 400, json: { code: 'invalid_parameter' } });
    expect(await req('PUT', '/v1/data/a/%E0%A4%A', '1')).toMatchObject({ status: 400, json: { code: 'invalid_parameter' } });
  });
  it('without --allow-writes answers 403 in OPA shape and changes nothing', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const r = await req(method, '/v1/data/limits/max', method === 'PATCH' ? '[]' : '1', readOnly);
      expect(r, method).toMatchObject({ status: 403, json: { code: 'forbidden', message: expect.stringContaining('--allow-writes') } });
    }
    expect((await req('GET', '/v1/data/limits/max', undefined, readOnly)).json).toEqual({ result: 3 });
  });
});

describe('query parameters', () => {
  it('?pretty indents the answer; ?instrument adds timers', async () => {
    const pretty = await req('GET', '/v1/data/limits/max?pretty=true', undefined, readOnly);
    expect(pretty.text).toBe('{\n  "result": 3\n}');
    const big = await req('GET', `/v1/query?pretty&q=${encodeURIComponent('x := data.limits.big; y := {"a": [], "b": ["s, [t]"]}')}`, undefined, readOnly);
    expect(big.text).toBe(
      '{\n  "result": [\n    {\n      "x": 12345678901234567890,\n      "y": {\n        "a": [],\n        "b": [\n          "s, [t]"\n        ]\n      }\n    }\n  ]\n}',
    );
    const instrumented = await req('POST', '/v1/data/example/allow?instrument', '{"input": {"user": "admin"}}');
    expect(instrumented.json.result).toBe(true);
    expect(Object.keys(instrumented.json.metrics).sort()).toEqual(['timer_rego_query_eval_ns', 'timer_server_handler_ns']);
  });

  it('?provenance adds OPA’s provenance object: the server and the revision of the policies the decision read', async () => {
    const revision = (await req('GET', '/v1/status', undefined, readOnly)).json.result.bundles.policies.active_revision as string;
    expect(revision).toMatch(/^[0-9a-f]{64}$/);
    const expected = { version: 'framework_core', build_commit: '', build_timestamp: '', build_hostname: '', bundles: { policies: { revision } } };
    const got = await req('GET', '/v1/data/limits/max?provenance', undefined, readOnly);
    expect(got.json).toEqual({ provenance: expected, result: 3 });
    const posted = await req('POST', '/v1/data/example/allow?provenance=true', '{"input": {"user": "admin"}}', readOnly);
    expect(posted.json).toEqual({ provenance: expected, result: true });
    // An undefined document still carries it, as in OPA.
    expect((await req('GET', '/v1/data/limits/nothing?provenance', undefined, readOnly)).json).toEqual({ provenance: expected });
  });

  it('reads boolean parameters as OPA does: present without a value or `true` in any case; anything else is false', async () => {
    expect((await req('GET', '/v1/data/limits/max?pretty=TRUE', undefined, readOnly)).text).toBe('{\n  "result": 3\n}');
    expect((await req('GET', '/v1/data/limits/max?pretty=1', undefined, readOnly)).text).toBe('{"result":3}');
    expect((await req('GET', '/v1/data/limits/max?pretty=false&pretty=true', undefined, readOnly)).text).toBe('{\n  "result": 3\n}');
    expect((await req('GET', '/v1/data/limits/max?metrics=false', undefined, readOnly)).json).toEqual({ result: 3 });
    expect(Object.keys((await req('GET', '/v1/data/limits/max?metrics', undefined, readOnly)).json.metrics)).toEqual(['timer_rego_query_eval_ns']);
    expect((await req('GET', '/v1/data/limits/max?provenance=no', undefined, readOnly)).json).toEqual({ result: 3 });
  });
});

describe('?explain (the evaluation trace, as OPA gives it)', () => {
  const traced = (q: string, input = '{"input": {"user": "admin"}}') => req('POST', `/v1/data/example/traced?${q}`, input);

  it('explain=notes: each Note after the Enter events of the queries and rules that led to it, in OPA TraceEventV1 shape', async () => {
    const r = await traced('explain=notes');
    expect(r.status).toBe(200);
    expect(r.json.result).toBe(true);
    const ex = r.json.explanation;
    expect(ex.map((e: any) => [e.op, e.query_id, e.parent_id, e.type])).toEqual([
      ['enter', 0, 0, 'body'],
      ['enter', 1, 0, 'rule'],
      ['note', 1, 0, ''],
    ]);
    expect(ex[2]).toEqual({ op: 'note', query_id: 1, parent_id: 0, type: '', node: null, locals: [], message: 'user admin' });
    // The query body and the rule as AST JSON.
    expect(ex[0].node).toEqual([{ index: 0, terms: expect.any(Array) }]);
    expect(ex[1].node).toMatchObject({ head: { name: 'traced', value: { type: 'boolean', value: true } }, body: expect.any(Array) });
  });

  it('explain=fails: each Fail with its lineage; the failing comparison is named', async () => {
    const r = await traced('explain=fails', '{"input": {"user": "bob"}}');
    expect(r.json.result).toBeUndefined();
    const ex = r.json.explanation as any[];
    const fails = ex.filter((e) => e.op === 'fail');
    expect(fails.length).toBeGreaterThan(0);
    expect(fails[0]).toMatchObject({
      query_id: 1,
      parent_id: 0,
      type: 'expr',
      node: { terms: [{ type: 'ref' }, expect.anything(), { type: 'string', value: 'admin' }] },
    });
    expect(ex[0]).toMatchObject({ op: 'enter', query_id: 0, type: 'body' });
    expect(ex[1]).toMatchObject({ op: 'enter', query_id: 1, type: 'rule' });
  });

  it('explain=full: every event but Unify, with the local bindings; explain=debug gives the same events', async () => {
    const full = (await traced('explain=full')).json.explanation as any[];
    const ops = new Set(full.map((e) => e.op));
    expect([...ops].sort()).toEqual(['enter', 'eval', 'exit', 'note', 'redo']);
    expect(full.find((e) => e.op === 'exit' && e.type === 'rule')).toBeDefined();
    const withLocals = full.find((e) => e.locals.length > 0);
    expect(withLocals?.locals[0]).toMatchObject({ key: { type: 'var' }, value: { type: expect.any(String) } });
    const debug = (await traced('explain=debug')).json.explanation;
    expect(debug).toEqual(full);
  });

  it('?pretty gives the explanation as the lines of OPA PrettyTraceWithLocation', async () => {
    const r = await traced('explain=notes&pretty');
    expect(r.json.explanation).toEqual([
      // The location column is as wide as the widest location plus 4, then a space (OPA's traceTable).
      'query:1             Enter data.example.traced = _',
      'example.rego:9      | Enter data.example.traced',
      'example.rego:10     | | Note "user admin"',
    ]);
    expect(r.text).toContain('\n  "explanation": [');
  });

  it('is given by GET /v1/data and by the Query API (GET and POST)', async () => {
    const get = await req('GET', `/v1/data/example/traced?explain=notes&input=${encodeURIComponent('{"user":"eve"}')}`);
    expect(get.json.explanation.at(-1)).toMatchObject({ op: 'note', message: 'user eve' });
    const q = await req('GET', `/v1/query?explain=notes&q=${encodeURIComponent('data.example.traced')}&input=${encodeURIComponent('{"user":"bob"}')}`);
    expect(q.json.explanation.filter((e: any) => e.op === 'note').map((e: any) => e.message)).toEqual(['user bob']);
    const post = await req('POST', '/v1/query?explain=fails', JSON.stringify({ query: 'x := 1; x > 2' }));
    expect(post.json.result).toBeUndefined();
    expect(post.json.explanation.map((e: any) => e.op)).toEqual(['enter', 'fail']);
  });

  it('as in OPA: an unknown mode or off means no explanation, and the bare answers (POST /, /v0/data) carry none', async () => {
    for (const mode of ['off', 'verbose', '']) {
      const r = await traced(`explain=${mode}`);
      expect(r.status, mode).toBe(200);
      expect(r.json, mode).toEqual({ result: true });
    }
    expect((await req('POST', '/?explain=full', '{"name": "alice"}')).json).toEqual({ hello: 'alice' });
    expect((await req('POST', '/v0/data/example/traced?explain=full', '{"user": "admin"}')).json).toBe(true);
  });

  it('keeps numbers a double cannot hold exact in the locals and in node texts, as OPA does', async () => {
    const r = await req('POST', '/v1/data/example/huge?explain=full', '{"input": {"n": 123456789012345678901234567890}}');
    expect(r.status).toBe(200);
    expect(r.text).toContain('"value":123456789012345678901234567890');
    expect(r.text).toContain('"value":1e400');
    expect(r.text).not.toContain('"value":null');
    expect(r.text).not.toContain('1.2345678901234568e+29');
  });

  it('a traced decision stays within the evaluation budget', async () => {
    const items = Array.from({ length: 300 }, (_, i) => i);
    const r = await req('POST', '/v1/data/example/triples?explain=full', JSON.stringify({ input: { items } }));
    expect(r).toMatchObject({ status: 500, json: { code: 'internal_error', errors: [{ code: 'eval_cancel_error' }] } });
  });
});

describe('the evaluation budget without worker threads (running the TypeScript sources)', () => {
  it('stops a decision past the budget with eval_cancel_error, and keeps serving', async () => {
    const items = Array.from({ length: 300 }, (_, i) => i);
    const r = await req('POST', '/v1/data/example/triples', JSON.stringify({ input: { items } }));
    expect(r).toMatchObject({ status: 500, json: { code: 'internal_error', errors: [{ code: 'eval_cancel_error' }] } });
    expect((await req('POST', '/v1/data/example/triples', JSON.stringify({ input: { items: [1, 2] } }))).json).toEqual({ result: 8 });
  });
});

describe('/metrics, /v1/status, and the policy list', () => {
  it('GET /metrics answers Prometheus text with request durations and decision counts', async () => {
    await req('POST', '/v1/data/example/allow', '{"input": {}}', readOnly);
    const r = await fetch(`${readOnly.url}/metrics`);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await r.text();
    expect(text).toMatch(/http_request_duration_seconds_count\{code="200",handler="v1\/data",method="POST"\} [1-9]/);
    expect(text).toMatch(/policy_decisions_total\{where="in_process"\} [1-9]/);
  });
  it('GET /v1/status reports the server and its policies', async () => {
    const r = await req('GET', '/v1/status', undefined, readOnly);
    expect(r.status).toBe(200);
    expect(r.json.result).toMatchObject({
      labels: { id: expect.any(String) },
      plugins: { server: { state: 'OK' } },
      bundles: { policies: { name: 'policies' } },
    });
  });
  it('GET /v1/policies carries each module AST in OPA shape', async () => {
    const r = await req('GET', '/v1/policies/system.rego', undefined, readOnly);
    expect(r.json.result.raw).toBe(SYSTEM);
    expect(r.json.result.ast).toMatchObject({
      package: {
        path: [
          { type: 'var', value: 'data' },
          { type: 'string', value: 'system' },
        ],
      },
      rules: [{ head: { name: 'main', ref: [{ type: 'var', value: 'main' }], value: { type: 'object' } } }],
    });
    const example = await req('GET', '/v1/policies/example.rego', undefined, readOnly);
    expect(example.text).toContain('{"type":"number","value":1e400}');
    const all = await req('GET', '/v1/policies', undefined, readOnly);
    expect(all.json.result.map((p: { id: string }) => p.id)).toEqual(['example.rego', 'system.rego']);
    expect(all.json.result.every((p: { ast?: unknown }) => p.ast !== undefined)).toBe(true);
  });
});

describe('decisions handed to worker threads (the compiled server, as `policy serve` runs it)', () => {
  let workerDir: string;
  let service: Service;
  beforeAll(async () => {
    workerDir = mkdtempSync(join(tmpdir(), 'fw-opa-workers-'));
    writeFileSync(
      join(workerDir, 'scaled.rego'),
      'package scaled\n\nvalue := count([1 | some i, j, k; input.items[i]; input.items[j]; input.items[k]]) * data.factor\n',
    );
    writeFileSync(join(workerDir, 'data.json'), '{"factor": 1}');
    const port = await freePort();
    service = await startService({
      name: 'policy engine',
      args: ['policy', 'serve', workerDir, '--addr', `127.0.0.1:${port}`, '--allow-writes', '--no-watch'],
      port,
    });
  });
  afterAll(async () => {
    await service?.stop();
    rmSync(workerDir, { recursive: true, force: true });
  });

  it('see data written after they started (the workers reload the changed set)', async () => {
    const input = JSON.stringify({ input: { items: Array.from({ length: 60 }, (_, i) => i) } });
    const value = async () => (await (await fetch(`${service.url}/v1/data/scaled/value`, { method: 'POST', body: input })).json()) as unknown;
    expect(await value()).toEqual({ result: 216000 });
    expect((await fetch(`${service.url}/v1/data/factor`, { method: 'PUT', body: '2' })).status).toBe(204);
    expect(await value()).toEqual({ result: 432000 });
    expect((await fetch(`${service.url}/v1/data`, { method: 'PATCH', body: '[{"op": "replace", "path": "/factor", "value": 3}]' })).status).toBe(204);
    expect(await value()).toEqual({ result: 648000 });
    // They were evaluated in workers, not on the event loop.
    expect(await (await fetch(`${service.url}/metrics`)).text()).toMatch(/policy_decisions_total\{where="worker"\} 3\b/);
  });
});
