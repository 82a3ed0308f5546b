import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGuardian, type RunningGuardian } from '../../runtime/guardian/start-guardian.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { ToolGate, type ToolGateOptions } from '../../runtime/tools/tool-gate.js';
import { makeKeys } from '../a2a/support.js';
import { POLICIES_DIR } from '../guardian/stack.js';

// Local decisions: the gate evaluates the Guardian's own policy bundle in
// process (no HTTP hop per call) and must decide exactly as the Guardian does,
// follow a policy change, and fail closed when the bundle cannot be had or
// grows stale.

let policy: RunningPolicyServer;
let guardian: RunningGuardian;
// The Guardian signs its bundles with the key of the agent "guardian"; the gate verifies them with the same key.
const { keys, ring } = makeKeys(['guardian']);
const bundleKey = keys.get('guardian')!;

beforeAll(async () => {
  policy = await startPolicyServer({ dir: POLICIES_DIR, port: 0, host: '127.0.0.1', watch: false, allowWrites: true });
  guardian = await startGuardian({ port: 0, opaUrl: policy.url, bundleKey });
});

afterAll(async () => {
  await guardian?.close();
  await policy?.close();
});

function gate(options: Partial<ToolGateOptions> = {}): ToolGate {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  return new ToolGate({
    guardianUrl: guardian.url,
    mode: 'strict',
    agent: { name: 'trader' },
    policies: { place_trade: 'trading', '*': 'trading' },
    bundleKeys: ring,
    now: () => (clock += 1000),
    ...options,
  });
}

const call = (amount: unknown, name = 'place_trade') => ({ id: `c-${String(amount)}`, name, arguments: { symbol: 'ACME', amount } });

describe('GET /v1/bundles/policies', () => {
  it('serves the engine policies with a revision, and 304 for the same ETag', async () => {
    const response = await fetch(`${guardian.url}/v1/bundles/policies`);
    expect(response.status).toBe(200);
    const bundle = (await response.json()) as { revision: number; digest: string; modules: { id: string; raw: string }[] };
    expect(bundle.modules.map((m) => m.id).some((id) => id.endsWith('trading.rego'))).toBe(true);
    expect(Number.isSafeInteger(bundle.revision)).toBe(true);
    expect(response.headers.get('etag')).toBe(`"${bundle.digest}"`);
    const again = await fetch(`${guardian.url}/v1/bundles/policies`, { headers: { 'if-none-match': `"${bundle.digest}"` } });
    expect(again.status).toBe(304);
  });
});

describe('a ToolGate deciding locally', () => {
  it('decides every call as the Guardian does', async () => {
    const remote = gate();
    const local = gate({ decide: 'local' });
    const calls = [call(100), call(9_999), call(10_000), call(49_999), call(50_000), call(60_000), call(-5), call('lots'), call(null), call(100, 'get_quote')];
    for (const c of calls) {
      const [a, b] = [await remote.decide(c), await local.decide(c)];
      expect({ action: b.action, reasons: b.reasons }, JSON.stringify(c)).toEqual({ action: a.action, reasons: a.reasons });
      // An amount that is not a number never reaches the policy: both gates deny it themselves, alike.
      expect(b.decidedBy).toBe(typeof c.arguments.amount === 'number' ? 'bundle' : 'unreadable');
    }
    // And the decisions are the policy's, not a default.
    expect((await local.decide(call(100))).action).toBe('allow');
    expect((await local.decide(call(10_000))).action).toBe('require_approval');
    expect(await local.decide(call(60_000))).toMatchObject({ action: 'deny', reasons: ['amount 60000 is at or above the limit of 50000'] });
  });

  it('denies, in every mode and alike remote and local, a call whose arguments nest deeper than the Guardian reads (a hostile argument)', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const hostile = { id: 'c-deep', name: 'place_trade', arguments: { symbol: 'ACME', amount: 100, note: deep } };
    for (const mode of ['strict', 'permissive'] as const) {
      for (const decide of ['remote', 'local'] as const) {
        const decision = await gate({ mode, ...(decide === 'local' ? { decide } : {}) }).decide(hostile);
        expect(decision.action, `${mode} ${decide}`).toBe('deny');
        expect(decision.decidedBy).toBe('unreadable');
        expect(decision.reasons).toEqual([
          'the arguments nest arrays and objects more than 62 deep, deeper than the Guardian reads, so the policy cannot judge this call',
        ]);
      }
    }
    // Arguments as deep as the Guardian reads are judged by the policy, remote and local alike.
    let fine: unknown = 'x';
    for (let i = 0; i < 61; i++) fine = [fine];
    const ok = { id: 'c-fine', name: 'place_trade', arguments: { symbol: 'ACME', amount: 100, note: fine } };
    expect((await gate().decide(ok)).action).toBe('allow');
    expect((await gate({ decide: 'local' }).decide(ok)).action).toBe('allow');
  });

  it('follows a policy change at its next refresh', async () => {
    const local = gate({ decide: 'local', bundleRefreshMs: 0 });
    expect((await local.decide(call(100, 'wire_money'))).action).toBe('allow');
    const id = 'extra/tools_deny.rego';
    const put = await fetch(`${policy.url}/v1/policies/${id}`, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: 'package trading\n\ndeny contains "wire transfers are off today" if input.action == "wire_money"\n',
    });
    expect(put.status).toBe(200);
    try {
      // The refresh runs in the background: the call after it sees the new policy.
      let decision = await local.decide(call(100, 'wire_money'));
      for (let i = 0; i < 50 && decision.action !== 'deny'; i++) {
        await new Promise((r) => setTimeout(r, 20));
        decision = await local.decide(call(100, 'wire_money'));
      }
      expect(decision).toMatchObject({ action: 'deny', reasons: ['wire transfers are off today'] });
    } finally {
      await fetch(`${policy.url}/v1/policies/${id}`, { method: 'DELETE' });
    }
  });

  it('fails closed in strict mode when the bundle cannot be fetched, and permissive allows', async () => {
    const nowhere = 'http://127.0.0.1:9';
    const strict = gate({ decide: 'local', guardianUrl: nowhere });
    const refused = await strict.decide(call(100));
    expect(refused.action).toBe('deny');
    expect(refused.reasons[0]).toMatch(/^strict mode: no policy bundle from the Guardian/);
    const permissive = gate({ decide: 'local', guardianUrl: nowhere, mode: 'permissive' });
    expect((await permissive.decide(call(100))).action).toBe('allow');
  });

  it('treats a bundle the Guardian stopped confirming as unavailable once it was signed more than bundleMaxAgeMs ago', async () => {
    const own = await startGuardian({ port: 0, opaUrl: policy.url, bundleKey });
    const local = gate({ decide: 'local', guardianUrl: own.url, bundleRefreshMs: 0, bundleMaxAgeMs: 1000 });
    expect((await local.decide(call(100))).action).toBe('allow');
    await own.close();
    await new Promise((r) => setTimeout(r, 1100));
    await local.decide(call(100)); // starts a refresh that fails
    await new Promise((r) => setTimeout(r, 100));
    const stale = await local.decide(call(100));
    expect(stale.action).toBe('deny');
    expect(stale.reasons[0]).toMatch(/^strict mode: the policy bundle is stale/);
  });
});
