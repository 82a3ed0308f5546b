import { beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { FrameworkCore } from '../../runtime/core/framework-core.js';
import { InProcessSessionStore } from '../../runtime/sessions/in-process-session-store.js';
import { KvSessionStore } from '../../runtime/sessions/kv-session-store.js';
import { ask, plannerPair, startSession, texts, uniquePrefix } from '../planning/planner-support.js';

// Attack (or bad luck): two approvals of the same plan arriving at the same
// instant on two replicas both ran it. A decision now claims the pending plan
// atomically in the session store (a compare-and-delete script in Redis), so
// a plan runs at most once.

const pair = plannerPair();
const log = pair.log;
const prefix = uniquePrefix();
let a: RunningAgent;
let b: RunningAgent;
beforeAll(() => {
  [a, b] = [pair.a(), pair.b()];
});

describe('two approvals of one plan at the same instant', () => {
  it('run it once, on two replicas sharing Redis, over many rounds', async () => {
    for (let round = 0; round < 20; round++) {
      log.executed.length = 0;
      const token = await startSession(a);
      await ask(a, `Book room ${round}; send invitations`, token);
      const [first, second] = await Promise.all([ask(a, 'yes, go ahead', token), ask(b, 'sí, adelante', token)]);
      expect(log.executed, `round ${round}`).toEqual([`Book room ${round}`, 'send invitations']);
      const ran = [first, second].filter((turn) => turn.result !== null);
      expect(ran).toHaveLength(1);
      // The other reply either found the plan claimed under it ("no longer waiting") or, arriving a moment
      // later, no plan at all; either way it ran no step.
      const refused = [first, second].find((turn) => turn.result === null)!;
      expect(texts(refused, 'status').filter((text) => text.startsWith('Step'))).toEqual([]);
    }
  });
});

describe('claimContextValue', () => {
  const stores = () => [
    new InProcessSessionStore({ ttlSeconds: 60 }),
    new KvSessionStore({ url: 'redis://127.0.0.1:6379', keyPrefix: prefix, ttlSeconds: 60 }),
  ];

  it('gives the value to exactly one of many concurrent claimers, and only while it is unchanged', async () => {
    for (const store of stores()) {
      const plan = { plan_id: 'p1', actions: ['a'] };
      await store.updateContext('c1', { pending_plan: plan, other: 1 });
      const claims = await Promise.all(Array.from({ length: 10 }, () => store.claimContextValue('c1', 'pending_plan', plan)));
      expect(claims.filter(Boolean), store.backend).toHaveLength(1);
      expect(await store.getContext('c1')).toEqual({ other: 1 });
      await store.updateContext('c1', { pending_plan: { plan_id: 'p2', actions: ['b'] } });
      expect(await store.claimContextValue('c1', 'pending_plan', plan)).toBe(false);
      expect(await store.claimContextValue('c9', 'pending_plan', plan)).toBe(false);
      await store.close();
    }
    const core = new FrameworkCore();
    await core.updateSessionContext('c', { k: [1] });
    expect(await Promise.all([core.claimSessionContextValue('c', 'k', [1]), core.claimSessionContextValue('c', 'k', [1])])).toEqual([true, false]);
  });
});
