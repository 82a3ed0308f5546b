import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainDecisionSchema } from '../../runtime/guardian/domain-decision.js';
import { post, startStack } from './stack.js';

let stack: Awaited<ReturnType<typeof startStack>>;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.close());

function tradeInput(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    source_agent: { name: 'planner', description: 'plans' },
    target_agent: { name: 'executor' },
    action: 'trade',
    context: { context_id: 'ctx-1', timestamp: '2026-01-01T00:00:00Z' },
    metadata: { requests_last_minute: 3 },
    ...fields,
  };
}

async function evaluate(input: Record<string, unknown>, pkg = 'trading') {
  const res = await post(`${stack.guardian.url}/v1/policies/${pkg}/evaluate`, input);
  expect(res.status).toBe(200);
  return DomainDecisionSchema.parse(await res.json());
}

describe('POST /v1/policies/{package}/evaluate with the example trading policy', () => {
  it('allows a small trade', async () => {
    expect(await evaluate(tradeInput({ amount: 100 }))).toEqual({ allow: true, deny: [], require_approval: false });
  });

  it('needs approval for a trade from 5000 up to below 50000', async () => {
    expect(await evaluate(tradeInput({ amount: 6000 }))).toEqual({ allow: false, deny: [], require_approval: true });
  });

  it('denies 50000 and more with the "exceeds" reason', async () => {
    const decision = await evaluate(tradeInput({ amount: 50000 }));
    expect(decision.allow).toBe(false);
    expect(decision.require_approval).toBe(false);
    expect(decision.deny).toEqual(['amount 50000 is at or above the limit of 50000']);
  });

  it('denies past the rate limit, with the rate reason', async () => {
    const decision = await evaluate(tradeInput({ amount: 100, metadata: { requests_last_minute: 150 } }));
    expect(decision).toEqual({ allow: false, deny: ['rate limit exceeded: 150 requests in the last minute (at most 100)'], require_approval: false });
  });

  it('passes extra keys through and evaluates any loaded package', async () => {
    const access = await evaluate(tradeInput({ source_agent: { name: 'untrusted', extra: true }, target_agent: { name: 'database' } }), 'a2a_access');
    expect(access).toEqual({ allow: false, deny: ['untrusted agents may not call the database'], require_approval: false });
  });
});

describe('POST /v1/policies/{package}/evaluate errors', () => {
  it('404 for a package that is not loaded, also with several segments', async () => {
    for (const pkg of ['nope', 'acme/trading']) {
      const res = await post(`${stack.guardian.url}/v1/policies/${pkg}/evaluate`, tradeInput({ amount: 1 }));
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ code: 'not_found', message: `no policy package "${pkg.replace('/', '.')}" is loaded` });
    }
  });

  it('400 for a path segment that is not a package name', async () => {
    for (const pkg of ['trad-ing', '1trading', 'acme/trad.ing', 'a//b']) {
      const res = await post(`${stack.guardian.url}/v1/policies/${pkg}/evaluate`, tradeInput({ amount: 1 }));
      expect(res.status, pkg).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('invalid_request');
    }
  });

  it('400 for a rule path rather than a package', async () => {
    const res = await post(`${stack.guardian.url}/v1/policies/trading/max_amount/evaluate`, tradeInput({ amount: 1 }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('not a policy package');
  });

  it('400 naming the field for a bad input', async () => {
    const res = await post(`${stack.guardian.url}/v1/policies/trading/evaluate`, tradeInput({ amount: 'lots', target_agent: {} }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('invalid_request');
    expect(body.message).toContain('amount: must be a finite number');
    expect(body.message).toContain('target_agent.name: is required');
  });

  it('405 for another method, 404 for a path that is not an evaluate route', async () => {
    const get = await fetch(`${stack.guardian.url}/v1/policies/trading/evaluate`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    expect((await post(`${stack.guardian.url}/v1/policies/trading`, tradeInput({}))).status).toBe(404);
    expect((await fetch(`${stack.guardian.url}/v1/policies/trading`)).status).toBe(404);
  });
});
