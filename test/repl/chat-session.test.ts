import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import type { ChatEvent } from '../../repl/chat-event.js';
import { ChatSession } from '../../repl/chat-session.js';
import { runChatScript } from '../../repl/run-chat-script.js';
import type { SessionTokenStore } from '../../repl/session-token-store.js';
import { startPlannerReplica, type PlannerLog } from '../planning/planner-support.js';
import { redisScope } from '../support/redis-scope.js';
import { fixtureAgentServer, tempTokenStores } from './chat-support.js';

// ChatSession against real agents: a planner with its sessions in Redis, and the fixture agent.

const tokenStore = tempTokenStores();

async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const out: ChatEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** Makes the saved token one the agent does not know, as after it forgot its sessions. */
async function expire(store: SessionTokenStore, url: string): Promise<void> {
  const saved = (await store.get(url))!;
  await store.save(url, { ...saved, token: 'expired-or-unknown-token' });
}

describe('ChatSession with a planner (sessions in Redis)', () => {
  const scope = redisScope();
  const log: PlannerLog = { planned: [], executed: [] };
  let planner: RunningAgent;
  beforeAll(async () => {
    planner = await startPlannerReplica({ prefix: scope.prefix, log });
  });
  afterAll(async () => {
    await planner?.close();
  });

  it('after an expired token, sends a new request again but not a reply to the plan the agent no longer has', async () => {
    const store = await tokenStore();
    const first = new ChatSession({ agentUrl: planner.url, store });
    await first.open();
    const proposed = await collect(first.send('Book the venue; invite the team'));
    expect(proposed.at(-1)).toMatchObject({ type: 'input_required', actionType: 'plan_confirmation' });
    expect(await store.get(planner.url)).toMatchObject({ awaiting_input: true, plan_id: first.planId });

    // The next run resumes the saved session, whose token the agent no longer knows, and replies to the plan.
    await expire(store, planner.url);
    const second = new ChatSession({ agentUrl: planner.url, store });
    await second.open();
    const reply = await collect(second.send('yes, go ahead'));
    expect(reply).toEqual([expect.objectContaining({ type: 'session', status: 'renewed', unsent: true })]);
    expect((reply[0] as { text: string }).text).toMatch(/was not sent.*Send your request again/);
    expect(log.planned).toEqual(['Book the venue; invite the team']);
    expect(log.executed).toEqual([]);

    // A plan decision is never sent again on a new session either, and a script run says it failed.
    await collect(second.send('Wash the car; dry the car'));
    await expire(store, planner.url);
    const third = new ChatSession({ agentUrl: planner.url, store });
    const outcome = await runChatScript({ session: third, action: { kind: 'approve' }, onEvent: () => undefined });
    expect(outcome.error).toMatchObject({ code: 'session_expired' });
    expect(log.executed).toEqual([]);
  });

  it('a new request on an expired token is sent again on the new session', async () => {
    const store = await tokenStore();
    const session = new ChatSession({ agentUrl: planner.url, store });
    await session.open();
    await expire(store, planner.url);
    const again = new ChatSession({ agentUrl: planner.url, store });
    await again.open();
    const events = await collect(again.send('Paint the fence'));
    expect(events[0]).toMatchObject({ type: 'session', status: 'renewed' });
    expect(events[0]).not.toHaveProperty('unsent');
    expect(events.at(-1)).toMatchObject({ type: 'input_required', actionType: 'plan_confirmation' });
    expect(log.planned).toContain('Paint the fence');
  });
});

describe('ChatSession with the fixture agent', () => {
  const fixture = fixtureAgentServer();

  it('a decision on a session not yet opened names the saved plan', async () => {
    const store = await tokenStore();
    const first = new ChatSession({ agentUrl: fixture.url(), store });
    await first.open();
    await collect(first.send('lateplan'));
    const later = new ChatSession({ agentUrl: fixture.url(), store });
    const controller = new AbortController();
    const events: ChatEvent[] = [];
    for await (const event of later.decide({ kind: 'approve' }, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'status') controller.abort(); // the fixture's approval is slow: its first status says it began
    }
    expect(events[0]).toMatchObject({ type: 'session', status: 'resumed' });
    expect(fixture.probe().started.at(-1)).toBe('PLAN_CONFIRM_APPROVE');
    expect(fixture.probe().signals.has('PLAN_CONFIRM_APPROVE late-1')).toBe(true);
  });

  it('forgets the last plan id when a plan comes without one, so a decision never names an older plan', async () => {
    const store = await tokenStore();
    const session = new ChatSession({ agentUrl: fixture.url(), store });
    await session.open();
    await collect(session.send('lateplan'));
    expect(session.planId).toBe('late-1');
    expect((await store.get(fixture.url()))!.plan_id).toBe('late-1');
    await collect(session.send('multi')); // a plan with text only
    expect(session.planId).toBeUndefined();
    expect((await store.get(fixture.url()))!.plan_id).toBeUndefined();
  });
});
