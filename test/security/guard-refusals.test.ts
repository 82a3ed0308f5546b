/**
 * Permissive mode allows a call only when nobody could be asked. A question
 * that reached the Guardian or the policy and could not be decided (refused
 * as too large, or a policy that fails on this input) is denied in every
 * mode: the caller shaped the question, and must not turn the refusal into
 * an allow. Until 4 Dec both were "unavailable": tool arguments larger than
 * the Guardian's body limit (a 413), or an input that makes a policy raise a
 * conflict (OPA's 500, the Guardian's 503), were allowed in permissive mode.
 *
 * A real policy server, a real Guardian (its body limit lowered to 64 KiB so
 * the oversized call stays small), the gate remote and local, and the A2A
 * validator through the Guardian and straight to the policy engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AValidator } from '../../runtime/a2a/validator.js';
import { GuardianAccessChecker, OpaAccessChecker } from '../../runtime/a2a/access-checker.js';
import { startGuardian, type RunningGuardian } from '../../runtime/guardian/start-guardian.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { ToolGate, type ToolGateOptions } from '../../runtime/tools/tool-gate.js';
import { makeKeys } from '../a2a/support.js';
import { POLICIES_DIR } from '../guardian/stack.js';

let policy: RunningPolicyServer;
let guardian: RunningGuardian;
const { keys, ring } = makeKeys(['guardian']);

// Rules that conflict with the shipped ones for one input (complete rules with two values): OPA's evaluation error.
const CONFLICTS = [
  ['extra/trading_conflict.rego', 'package trading\n\nallow := false if input.metadata.arguments.flip == true\n'],
  ['extra/a2a_conflict.rego', 'package a2a_access\n\nallow := false if contains(input.communication.message_preview, "flip")\n'],
] as const;

beforeAll(async () => {
  policy = await startPolicyServer({ dir: POLICIES_DIR, port: 0, host: '127.0.0.1', watch: false, allowWrites: true });
  for (const [id, text] of CONFLICTS) {
    const put = await fetch(`${policy.url}/v1/policies/${id}`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: text });
    expect(put.status).toBe(200);
  }
  guardian = await startGuardian({ port: 0, opaUrl: policy.url, bundleKey: keys.get('guardian')!, maxBodyBytes: 64 * 1024 });
});

afterAll(async () => {
  await guardian?.close();
  await policy?.close();
});

function gate(options: Partial<ToolGateOptions>): ToolGate {
  return new ToolGate({
    guardianUrl: guardian.url,
    mode: 'permissive',
    agent: { name: 'trader' },
    policies: { place_trade: 'trading' },
    bundleKeys: ring,
    ...options,
  });
}

const trade = (extra: Record<string, unknown>) => ({ id: 'c-1', name: 'place_trade', arguments: { symbol: 'ACME', amount: 100, ...extra } });

describe('the tool gate in permissive mode', () => {
  it('still allows an ordinary call, and allows when the Guardian cannot be reached (what permissive is for)', async () => {
    expect(await gate({}).decide(trade({}))).toMatchObject({ action: 'allow', decidedBy: 'guardian' });
    const down = await gate({ guardianUrl: 'http://127.0.0.1:9' }).decide(trade({}));
    expect(down).toMatchObject({ action: 'allow', decidedBy: 'mode' });
  });

  it('denies a call whose arguments are larger than the Guardian takes (its 413)', async () => {
    const decision = await gate({}).decide(trade({ note: 'x'.repeat(100 * 1024) }));
    expect(decision.action).toBe('deny');
    expect(decision.decidedBy).toBe('guardian');
    expect(decision.reasons[0]).toMatch(/^the Guardian answered HTTP 413: .*; denied in every mode$/);
  });

  it('denies a call the policy fails on, remote (OPA 500, the Guardian 422) and local (the evaluation error)', async () => {
    const remote = await gate({}).decide(trade({ flip: true }));
    expect(remote).toMatchObject({ action: 'deny', decidedBy: 'guardian' });
    expect(remote.reasons[0]).toMatch(/^the Guardian answered HTTP 422: .*complete rules must not produce multiple outputs.*; denied in every mode$/s);
    const local = await gate({ decide: 'local' }).decide(trade({ flip: true }));
    expect(local).toMatchObject({ action: 'deny', decidedBy: 'bundle' });
    expect(local.reasons[0]).toMatch(/^policy trading could not be evaluated for this call \(.*multiple outputs.*\); denied in every mode$/s);
    // The same call without the flip is the policy's to allow.
    expect((await gate({ decide: 'local' }).decide(trade({}))).action).toBe('allow');
  });

  it("denies a call whose policy package is not loaded, remote (the Guardian's 404) and local alike", async () => {
    const policies = { place_trade: 'no_such_package' };
    const remote = await gate({ policies }).decide(trade({}));
    expect(remote).toMatchObject({ action: 'deny', decidedBy: 'guardian' });
    expect(remote.reasons[0]).toMatch(/^the Guardian answered HTTP 404: .*no policy package \\"no_such_package\\" is loaded.*; denied in every mode$/);
    const local = await gate({ policies, decide: 'local' }).decide(trade({}));
    expect(local).toMatchObject({ action: 'deny', decidedBy: 'bundle', reasons: ['the policy bundle has no package no_such_package; denied in every mode'] });
  });
});

describe('the A2A validator in permissive mode', () => {
  const planner = { name: 'planner', description: 'plans', url: 'http://127.0.0.1:1' };
  const executor = { name: 'executor', description: 'executes', url: 'http://127.0.0.1:2' };

  for (const [label, checker] of [
    ['through the Guardian', () => new GuardianAccessChecker({ url: guardian.url })],
    ['straight to the policy engine', () => new OpaAccessChecker({ url: policy.url })],
  ] as const) {
    it(`denies a message the policy fails on, ${label}; allows the same pair otherwise and when nobody answers`, async () => {
      const validator = new A2AValidator({ mode: 'permissive', checker: checker() });
      expect(await validator.validateA2AAccess(planner, executor, 'Book the room')).toEqual([true, 'allowed by policy']);
      const [allowed, reason] = await validator.validateA2AAccess(planner, executor, 'flip the switch');
      expect(allowed).toBe(false);
      expect(reason).toMatch(/^No policy decision from .* for this input: HTTP (422|500): .*; denied in every mode$/s);
      const nobody = new A2AValidator({ mode: 'permissive', checker: new GuardianAccessChecker({ url: 'http://127.0.0.1:9' }) });
      expect((await nobody.validateA2AAccess(planner, executor, 'flip the switch'))[0]).toBe(true);
    });
  }
});
