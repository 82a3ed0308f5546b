import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { createTraderAgent } from '../../runtime/examples/trader-agent.js';
import { startGuardian, type RunningGuardian } from '../../runtime/guardian/start-guardian.js';
import { startPolicyServer, type RunningPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { POLICIES_DIR } from '../guardian/stack.js';
import { ask, startSession, texts, uniquePrefix, type Turn } from '../planning/planner-support.js';
import { deleteKeys, scanKeys } from '../support/redis-keys.js';

// Issue 33, time: a call waiting for approval was approved after the policy
// had been tightened to deny it, and it ran: the decision taken when the
// call was asked was trusted at the moment of approval. An approval is now
// decided again with the policy in force; a deny (a rate limit too) wins,
// and the person is told why.

let policy: RunningPolicyServer;
let guardian: RunningGuardian;
let trader: RunningAgent;
let kvTrader: RunningAgent; // sessions in Redis, where the waiting call can be seen and changed
const prefix = uniquePrefix();
const redis = new Redis('redis://127.0.0.1:6379');

/** Adds a module to the running policy engine (OPA's PUT /v1/policies), as an operator tightening the policy does. */
async function putPolicy(id: string, source: string): Promise<void> {
  const response = await fetch(`${policy.url}/v1/policies/${id}`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: source });
  expect(response.status).toBe(200);
}

beforeAll(async () => {
  policy = await startPolicyServer({ dir: POLICIES_DIR, port: 0, host: '127.0.0.1', watch: false, allowWrites: true });
  guardian = await startGuardian({ port: 0, opaUrl: policy.url });
  const { core, agent } = createTraderAgent({ env: { LOG_LEVEL: 'error', GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict' } });
  trader = await runAgent(core, agent, { port: 0, a2a: false, env: { LOG_LEVEL: 'error' } });
  const kv = createTraderAgent({ env: { LOG_LEVEL: 'error', GUARDIAN_URL: guardian.url, A2A_VALIDATION_MODE: 'strict' } });
  kvTrader = await runAgent(kv.core, kv.agent, {
    port: 0,
    a2a: false,
    env: { LOG_LEVEL: 'error', SESSION_BACKEND: 'kv', SESSION_KV_URL: 'redis://127.0.0.1:6379', KV_PREFIX: prefix },
  });
});

afterEach(async () => {
  for (const id of ['halt.rego', 'rate.rego']) await fetch(`${policy.url}/v1/policies/${id}`, { method: 'DELETE' });
});

afterAll(async () => {
  await kvTrader?.close();
  await deleteKeys(redis, prefix);
  await redis.quit();
  await trader?.close();
  await guardian?.close();
  await policy?.close();
});

const answer = (turn: Turn) => texts(turn, 'text').join('\n');

describe('an approval is decided again with the policy in force (issue 33)', () => {
  it('refuses an approved call that the policy, tightened while it waited, now denies, and says why', async () => {
    const token = await startSession(trader);
    const asked = await ask(trader, 'buy 10000 of ACME', token);
    expect(asked.events.at(-1)?.event).toBe('input_required');
    await putPolicy('halt.rego', 'package trading\n\nimport rego.v1\n\ndeny contains "trading is halted by the operator" if input.action == "place_trade"\n');
    const approved = await ask(trader, 'yes, go ahead', token);
    expect(answer(approved)).not.toMatch(/Placed order/);
    expect(texts(approved, 'status')).toContain('Approved, but place_trade did not run: the policy in force now refuses it: trading is halted by the operator');
    expect(answer(approved)).toContain('trading is halted by the operator');
    // Nothing is left waiting: another "yes" places nothing either.
    expect(answer(await ask(trader, 'yes', token))).not.toMatch(/Placed order/);
  });

  it('refuses an approved call when a rate limit is reached while it waited', async () => {
    const token = await startSession(trader);
    expect((await ask(trader, 'buy 12000 of ACME', token)).events.at(-1)?.event).toBe('input_required');
    // Stands for a burst of calls while the person reads the question: at most one gated call a minute.
    await putPolicy(
      'rate.rego',
      'package trading\n\nimport rego.v1\n\ndeny contains "rate limit: one trade a minute" if input.metadata.requests_last_minute > 1\n',
    );
    const approved = await ask(trader, 'yes', token);
    expect(answer(approved)).not.toMatch(/Placed order/);
    expect(texts(approved, 'status').join('\n')).toContain('the policy in force now refuses it: rate limit: one trade a minute');
  });

  it('still runs an approved call the policy in force allows (or still asks about), exactly as shown', async () => {
    const token = await startSession(trader);
    const asked = await ask(trader, 'buy 11000 of ACME', token);
    expect(asked.events.at(-1)?.data.data).toMatchObject({ tool: 'place_trade', arguments: { symbol: 'ACME', amount: 11000 } });
    const approved = await ask(trader, 'yes', token);
    expect(answer(approved)).toMatch(/Placed order-\d+: 11000 USD of ACME\./);
  });

  it('an approval runs only the call it showed: a waiting call changed behind the question does not run', async () => {
    const token = await startSession(kvTrader);
    const asked = await ask(kvTrader, 'buy 10000 of ACME', token);
    expect(asked.events.at(-1)?.data.data).toMatchObject({ arguments: { symbol: 'ACME', amount: 10000 } });
    // Someone with write access to the session store swaps the call the approval will run.
    const keys = await scanKeys(redis, prefix);
    let swapped = 0;
    for (const key of keys) {
      if ((await redis.type(key)) !== 'hash') continue;
      const raw = await redis.hget(key, 'pending_tool_approval');
      if (raw === null) continue;
      const pending = JSON.parse(raw) as { state: { pending: { call: { arguments: Record<string, unknown> } }[] } };
      pending.state.pending[0]!.call.arguments = { symbol: 'EVIL', amount: 40000 };
      await redis.hset(key, 'pending_tool_approval', JSON.stringify(pending));
      swapped++;
    }
    expect(swapped).toBe(1);
    const approved = await ask(kvTrader, 'yes', token);
    expect(answer(approved)).not.toMatch(/Placed order/);
    expect(texts(approved, 'status').join('\n')).toContain('the call waiting is not the one you were asked about');
  });
});
