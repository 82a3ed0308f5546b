/**
 * The compile API's answers to what clients get wrong, and its shapes, on a
 * real policy server: every bad request is a 400 (or OPA's 501-style refusal
 * for what is not built) with a message that names the problem, never a 500.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPolicyServer, type RunningPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';

const POLICY = `package filters

include if input.fruits.price < input.max
include if input.fruits.owner == input.user

default guarded := false
guarded if input.fruits.price > 1

tiered := 1 if input.fruits.price > 1
else := 2

# METADATA
# custom:
#   unknowns: [fruits.name]
badly_annotated if input.fruits.name == "x"

${Array.from({ length: 14 }, (_, i) => `blowup_h if {\n  input.fruits.a == ${i}\n  input.fruits.b == ${i}\n}`).join('\n')}
blowup if not blowup_h

slow if {
  some a in numbers.range(1, 100000)
  some b in numbers.range(1, 100000)
  a + b < 0
  input.fruits.price > 1
}
`;

let dir: string;
let server: RunningPolicyServer;

const post = async (path: string, body: unknown, accept = 'application/vnd.opa.sql.postgresql+json') => {
  const r = await fetch(`${server.url}${path}`, { method: 'POST', headers: { Accept: accept }, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: r.status, type: r.headers.get('content-type'), body: (await r.json()) as any };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'fw-compile-api-'));
  writeFileSync(join(dir, 'filters.rego'), POLICY);
  server = await startPolicyServer({ dir, port: 0, watch: false });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('POST /v1/compile/{path}', () => {
  it('answers the filter with the Accept type as its Content-Type', async () => {
    const r = await post('/v1/compile/filters/include', { input: { max: 3, user: 'bob' }, unknowns: ['input.fruits'] }, 'application/vnd.opa.sql.sqlite+json');
    expect(r.status).toBe(200);
    expect(r.type).toBe('application/vnd.opa.sql.sqlite+json');
    expect(r.body.result.query).toMatch(/^WHERE \(/);
  });

  it('answers {} when no row can pass, and an empty query when every row can', async () => {
    expect((await post('/v1/compile/filters/nothing/here', { unknowns: ['input.fruits'] })).body).toEqual({});
    const ucast = await post(
      '/v1/compile/filters/include',
      { input: { max: 3, user: 'bob' }, unknowns: ['input.other'] },
      'application/vnd.opa.ucast.all+json',
    );
    expect(ucast.body).toEqual({});
  });

  it('takes the multitarget form with targetDialects', async () => {
    const r = await post(
      '/v1/compile/filters/include',
      { input: { max: 3, user: 'bob' }, unknowns: ['input.fruits'], options: { targetDialects: ['ucast+all', 'sql+mysql'] } },
      'application/vnd.opa.multitarget+json',
    );
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.result).sort()).toEqual(['mysql', 'ucast']);
    const bad = await post('/v1/compile/filters/include', { options: { targetDialects: ['sql+oracle'] } }, 'application/vnd.opa.multitarget+json');
    expect(bad).toMatchObject({ status: 400, body: { code: 'invalid_parameter', message: 'unsupported variant for sql: oracle' } });
    const none = await post('/v1/compile/filters/include', {}, 'application/vnd.opa.multitarget+json');
    expect(none).toMatchObject({ status: 400, body: { code: 'invalid_parameter' } });
  });

  it('refuses bad bodies, unknowns, mappings and mask rules with 400s that say what is wrong', async () => {
    expect(await post('/v1/compile/filters/include', '{not json')).toMatchObject({ status: 400, body: { code: 'invalid_parameter' } });
    expect(await post('/v1/compile/filters/include', '[1]')).toMatchObject({ status: 400, body: { message: expect.stringContaining('JSON object') } });
    expect(await post('/v1/compile/filters/include', { unknowns: 'input.fruits' })).toMatchObject({
      status: 400,
      body: { message: expect.stringContaining('unknowns must be an array of strings') },
    });
    expect(await post('/v1/compile/filters/include', { unknowns: ['fruits.name'] })).toMatchObject({
      status: 400,
      body: { code: 'evaluation_error', errors: [{ code: 'invalid_unknown', message: 'unknowns must be prefixed with `input` or `data`: fruits.name' }] },
    });
    const mappings = await post('/v1/compile/filters/include', {
      input: { max: 3, user: 'bob' },
      unknowns: ['input.fruits'],
      options: { targetSQLTableMappings: { fruits: { price: 7 } } },
    });
    expect(mappings).toMatchObject({
      status: 400,
      body: { code: 'invalid_parameter', message: expect.stringContaining('"price" must name a table or column with a string') },
    });
    expect(await post('/v1/compile/filters/include', { unknowns: ['input.fruits'], options: { maskRule: 'no such rule' } })).toMatchObject({
      status: 400,
      body: { code: 'evaluation_error' },
    });
  });

  it('refuses a residual that would grow past 10,000 alternatives (not 14 De Morgan products of 2)', async () => {
    const r = await post('/v1/compile/filters/blowup', { unknowns: ['input.fruits'] });
    expect(r).toMatchObject({ status: 400, body: { errors: [{ code: 'pe_fragment_error', message: 'the residual has more than 10000 alternatives' }] } });
  });

  it('reports a bad METADATA annotation at its place', async () => {
    const r = await post('/v1/compile/filters/badly_annotated', {});
    expect(r).toMatchObject({
      status: 400,
      body: { errors: [{ code: 'invalid_unknown', location: { file: expect.stringContaining('filters.rego'), row: 12 } }] },
    });
  });

  it('stops a partial evaluation that runs too long instead of hanging the server', async () => {
    const slow = await startPolicyServer({ dir, port: 0, watch: false, evalTimeoutMs: 200 });
    try {
      const started = Date.now();
      const r = await fetch(`${slow.url}/v1/compile/filters/slow`, {
        method: 'POST',
        headers: { Accept: 'application/vnd.opa.ucast.all+json' },
        body: '{"unknowns": ["input.fruits"]}',
      });
      expect(r.status).toBe(500);
      expect(((await r.json()) as { message: string }).message).toContain('eval_cancel_error');
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      await slow.close();
    }
  });
});

describe('POST /v1/compile (partial evaluation as Rego AST)', () => {
  it('answers the residual queries', async () => {
    const r = await post('/v1/compile', { query: 'data.filters.include', input: { max: 3, user: 'bob' }, unknowns: ['input.fruits'] }, 'application/json');
    expect(r.status).toBe(200);
    expect(r.body.result.queries).toHaveLength(2);
    expect(r.body.result.queries[0][0].terms[0]).toEqual({ type: 'ref', value: [{ type: 'var', value: 'lt' }] });
  });

  it('saves a default rule and an else chain as support, refuses a query that does not parse (400)', async () => {
    const r = await post('/v1/compile', { query: 'data.filters.guarded', unknowns: ['input.fruits'] }, 'application/json');
    expect(r.status).toBe(200);
    expect(r.body.result.support[0].rules.map((x: { default?: boolean }) => x.default === true)).toEqual([false, true]);
    const tiered = await post('/v1/compile', { query: 'data.filters.tiered == 1', unknowns: ['input.fruits'] }, 'application/json');
    expect(tiered.status).toBe(200);
    const [chain] = tiered.body.result.support[0].rules;
    expect(chain.head.value).toEqual({ type: 'number', value: 1 });
    expect(chain.else.head.value).toEqual({ type: 'number', value: 2 });
    expect(chain.else.else).toBeUndefined();
    expect(await post('/v1/compile', { query: 'data.filters.[' }, 'application/json')).toMatchObject({ status: 400, body: { code: 'invalid_parameter' } });
    expect(await post('/v1/compile', {}, 'application/json')).toMatchObject({ status: 400, body: { message: 'missing required query' } });
  });
});
