import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { deleteKeys } from '../support/redis-keys.js';
import { ask, kinds, startPlannerReplica, startSession, texts, uniquePrefix, type PlannerLog } from './planner-support.js';

// The spec's plan-confirmation table, row by row, through the real front door,
// with sessions in Redis and two planner replicas on different ports.

const prefix = uniquePrefix();
const log: PlannerLog = { planned: [], executed: [] };
let a: RunningAgent;
let b: RunningAgent;
const redis = new Redis('redis://127.0.0.1:6379');

beforeAll(async () => {
  [a, b] = await Promise.all([startPlannerReplica({ prefix, log }), startPlannerReplica({ prefix, log })]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await deleteKeys(redis, prefix);
  await redis.quit();
});

function reset(): void {
  log.planned.length = 0;
  log.executed.length = 0;
}

describe('plan confirmation through the front door', () => {
  it('proposes on one replica (nothing runs), and the approval on the other replica runs it', async () => {
    reset();
    const token = await startSession(a);
    const proposal = await ask(a, 'Book a venue; invite the team; order lunch', token);
    expect(kinds(proposal)).toEqual(['status', 'input_required']);
    expect(texts(proposal, 'status')).toEqual(['Planning...']);
    const question = proposal.events[1]!.data;
    expect(question.action_type).toBe('plan_confirmation');
    expect(String(question.text)).toContain('Objective: Book a venue; invite the team; order lunch');
    expect(String(question.text)).toMatch(/1\. Book a venue\n {2}2\. invite the team\n {2}3\. order lunch/);
    expect(String(question.text)).toMatch(/approve/);
    // The json event format also carries the plan itself, for clients that draw it (the chat REPL).
    expect(question.data).toEqual({
      plan_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      plan: {
        objective: 'Book a venue; invite the team; order lunch',
        methodology: expect.any(String),
        methodology_rationale: expect.any(String),
        tasks: [
          { task_id: 'action_1', description: 'Book a venue' },
          { task_id: 'action_2', description: 'invite the team' },
          { task_id: 'action_3', description: 'order lunch' },
        ],
      },
    });
    expect(log.executed).toEqual([]);

    const approval = await ask(b, 'Sure, go ahead!', token);
    expect(texts(approval, 'status')).toEqual(['Step 1/3: Book a venue', 'Step 2/3: invite the team', 'Step 3/3: order lunch']);
    expect(approval.result).toEqual({
      actions: ['Book a venue', 'invite the team', 'order lunch'],
      outcomes: ['Done: Book a venue', 'Done: invite the team', 'Done: order lunch'],
    });
    expect(log.executed).toEqual(['Book a venue', 'invite the team', 'order lunch']);

    // The plan is gone: a second "yes" is a new request, not a second run.
    reset();
    const again = await ask(a, 'yes', token);
    expect(kinds(again)).toEqual(['status', 'input_required']);
    expect(log.executed).toEqual([]);
  });

  it('rejects: the plan is cleared, a text says it is cancelled, nothing runs', async () => {
    reset();
    const token = await startSession(a);
    await ask(a, 'Migrate the database; switch traffic', token);
    const rejected = await ask(b, 'no thanks', token);
    expect(rejected.events).toEqual([{ event: 'text', data: { text: 'The plan was cancelled. Nothing was executed.' } }]);
    expect(log.executed).toEqual([]);
    const after = await ask(a, 'PLAN_CONFIRM_APPROVE', token);
    expect(after.events).toEqual([{ event: 'text', data: { text: 'There is no plan waiting for a decision in this conversation. Nothing was executed.' } }]);
    expect(log.executed).toEqual([]);
  });

  it('modify without details asks what to change; the details edit the pending plan, without planning again', async () => {
    reset();
    const token = await startSession(a);
    await ask(a, 'Write the report; send it to the board', token);
    const question = await ask(b, 'I want to change it', token);
    expect(question.events).toEqual([{ event: 'input_required', data: { text: expect.stringContaining('What would you like to change') } }]);
    const revised = await ask(a, 'Add a step to proofread it', token);
    expect(log.planned).toEqual(['Write the report; send it to the board']);
    expect(kinds(revised)).toEqual(['input_required']);
    expect(revised.events.at(-1)?.data.action_type).toBe('plan_confirmation');
    const approved = await ask(b, 'PLAN_CONFIRM_APPROVE', token);
    expect(approved.result?.actions).toEqual(['Write the report', 'send it to the board', 'proofread it']);
    expect(log.executed).toHaveLength(3);
  });

  it('feedback with details in one reply edits the plan at once', async () => {
    reset();
    const token = await startSession(b);
    await ask(b, 'Call the supplier; sign the contract', token);
    const revised = await ask(a, 'change step 2 to email the contract instead', token);
    expect(kinds(revised)).toEqual(['input_required']);
    expect(revised.events[0]?.data.data).toMatchObject({
      plan: { tasks: [{ description: 'Call the supplier' }, { description: 'email the contract', change: 'changed' }] },
    });
    expect(log.planned).toEqual(['Call the supplier; sign the contract']);
    expect(log.executed).toEqual([]);
  });

  it('plans and runs at once when there is no conversation to reply in (no bearer token)', async () => {
    reset();
    const turn = await ask(a, 'Water the plants; feed the cat');
    expect(kinds(turn)).toEqual(['status', 'status', 'status', 'result']);
    expect(turn.result).toEqual({ actions: ['Water the plants', 'feed the cat'], outcomes: ['Done: Water the plants', 'Done: feed the cat'] });
  });

  it('speaks Spanish to a Spanish request and understands a Spanish approval', async () => {
    reset();
    const token = await startSession(a);
    const proposal = await ask(a, 'Organiza la reunión con el equipo; envía las invitaciones', token);
    expect(texts(proposal, 'status')).toEqual(['Planificando...']);
    expect(String(proposal.events.at(-1)?.data.text)).toMatch(/^Plan propuesto\nObjetivo: /);
    const approval = await ask(b, '¡Sí, adelante!', token);
    expect(approval.result?.outcomes).toEqual(['Done: Organiza la reunión con el equipo', 'Done: envía las invitaciones']);
  });
});

describe('a stale plan', () => {
  let stale: RunningAgent;
  const staleLog: PlannerLog = { planned: [], executed: [] };
  beforeAll(async () => {
    stale = await startPlannerReplica({ prefix, log: staleLog, maxPlanAgeMs: 300 });
  });
  afterAll(async () => {
    await stale?.close();
  });

  it('is gone once older than the allowed age: approving it runs nothing', async () => {
    const token = await startSession(stale);
    await ask(stale, 'Renew the certificates', token);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const late = await ask(stale, 'yes', token);
    expect(late.events).toEqual([{ event: 'text', data: { text: expect.stringContaining('expired') } }]);
    expect(staleLog.executed).toEqual([]);
  });
});

describe('with the real local model', () => {
  it('plans with SmolLM2 through the model runtime, proposes, and runs the approved plan', async () => {
    const { startModelServer } = await import('../../runtime/model/start-model-server.js');
    const { defaultModelStore } = await import('../model/support/default-model.js');
    const { generatePlan } = await import('../../runtime/planning/generate-plan.js');
    const { store } = await defaultModelStore();
    const models = await startModelServer({ store, host: '127.0.0.1', port: 0 });
    const realLog: PlannerLog = { planned: [], executed: [] };
    const llmConfig = { provider: 'ollama' as const, model: 'smollm2', base_url: models.url, temperature: 0 };
    const real = await startPlannerReplica({ prefix, log: realLog, plan: (query) => generatePlan({ query, llmConfig }) });
    try {
      const token = await startSession(real);
      const proposal = await ask(real, 'Organise a team offsite', token);
      expect(kinds(proposal)).toEqual(['status', 'input_required']);
      expect(proposal.events[1]?.data.action_type).toBe('plan_confirmation');
      const approval = await ask(real, 'approve', token);
      const actions = approval.result?.actions as string[];
      expect(actions.length).toBeGreaterThan(0);
      expect(realLog.executed).toEqual(actions);
      expect(approval.result?.outcomes).toEqual(actions.map((action) => `Done: ${action}`));
    } finally {
      await real.close();
      await models.close();
    }
  }, 240_000);
});
