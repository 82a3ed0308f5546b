import { afterAll, describe, expect, it } from 'vitest';
import { AuditListResponseSchema, GuardianHealthSchema } from '../../runtime/guardian/guardian-responses.js';
import { startGuardian, type RunningGuardian } from '../../runtime/guardian/start-guardian.js';
import { freePort } from '../support/net.js';
import { post, startStack, validationInput } from './stack.js';

const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe('Guardian health', () => {
  it('is ok while the policy engine answers and degraded (503) once it stops', async () => {
    const stack = await startStack();
    closers.push(() => stack.guardian.close());
    const up = await fetch(`${stack.guardian.url}/health`);
    expect(up.status).toBe(200);
    expect(GuardianHealthSchema.parse(await up.json())).toEqual({ status: 'ok', policy_engine: 'up' });
    await stack.policy.close();
    const down = await fetch(`${stack.guardian.url}/health`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'degraded', policy_engine: 'down', policy_url: stack.policy.url });
  });
});

describe('Guardian with the policy engine down', () => {
  let guardian: RunningGuardian;
  let opaUrl: string;

  it('answers 503 policy_unavailable and never a decision', async () => {
    opaUrl = `http://127.0.0.1:${await freePort()}`;
    guardian = await startGuardian({ port: 0, opaUrl });
    closers.push(() => guardian.close());
    const res = await post(`${guardian.url}/v1/a2a/validate`, validationInput('orchestrator', 'planner'));
    expect(res.status).toBe(503);
    const body = (await res.json()) as { code: string; message: string };
    expect(body.code).toBe('policy_unavailable');
    expect(body.message).toContain(opaUrl);
    const domain = await post(`${guardian.url}/v1/policies/trading/evaluate`, {
      source_agent: { name: 'planner' },
      target_agent: { name: 'executor' },
      action: 'trade',
      amount: 1,
    });
    expect(domain.status).toBe(503);
    expect(((await domain.json()) as { code: string }).code).toBe('policy_unavailable');
  });

  it('audits the unavailability as a denial with the reason', async () => {
    const { events } = AuditListResponseSchema.parse(await (await fetch(`${guardian.url}/v1/audit`)).json());
    expect(events).toEqual([
      expect.objectContaining({
        source: 'orchestrator',
        target: 'planner',
        decision: 'denied',
        checked_by: 'guardian',
        reason: expect.stringContaining(opaUrl),
      }),
    ]);
  });
});
