import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { ScriptedLanguageModel } from '../../runtime/testing/scripted-language-model.js';
import { editPlanWithModel } from '../../runtime/planning/edit-plan.js';
import { deleteKeys } from '../support/redis-keys.js';
import { ask, kinds, startPlannerReplica, startSession, texts, uniquePrefix, type PlannerLog, type Turn } from './planner-support.js';

// Issue 38 through the real front door, sessions in Redis, two replicas: steps named by content, lists,
// "between", questions when a content reference is several steps or none (nothing applied, in the
// language of the reply), rejections with a reason, and decisions while a change is awaited.

const prefix = uniquePrefix();
const log: PlannerLog = { planned: [], executed: [] };
let a: RunningAgent;
let b: RunningAgent;
let withModel: RunningAgent;
const model = new ScriptedLanguageModel({ replies: ['{"actions": ["should never be used"]}'] });
const redis = new Redis('redis://127.0.0.1:6379');

const TRIP = 'Book flights; Reserve hotel; Rent a car; Buy travel insurance';
const TWIN = 'Book the hotel in Rome; Book the hotel in Florence; Rent a car';

beforeAll(async () => {
  [a, b, withModel] = await Promise.all([
    startPlannerReplica({ prefix, log }),
    startPlannerReplica({ prefix, log }),
    startPlannerReplica({
      prefix,
      log,
      editPlan: async (input, { signal }) =>
        editPlanWithModel({ ...input, llmConfig: { provider: 'ollama', model: 'scripted' }, languageModel: model, ...(signal ? { signal } : {}) }),
    }),
  ]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close(), withModel?.close()]);
  await deleteKeys(redis, prefix);
  await redis.quit();
});

function tasksOf(turn: Turn): string[] {
  const last = turn.events.at(-1);
  expect(last?.data.action_type).toBe('plan_confirmation');
  const data = last?.data.data as { plan: { tasks: { description: string }[] } };
  return data.plan.tasks.map((task) => task.description);
}

async function propose(agent: RunningAgent, request: string): Promise<string> {
  const token = await startSession(agent);
  tasksOf(await ask(agent, request, token));
  return token;
}

describe('plan conversations v2 through the front door', () => {
  it.each([
    ['remove steps 1 and 4', ['Reserve hotel', 'Rent a car']],
    ['quita lo del coche', ['Book flights', 'Reserve hotel', 'Buy travel insurance']],
    ['skip booking the hotel, then put the insurance first', ['Buy travel insurance', 'Book flights', 'Rent a car']],
    ['add call the agency between steps 1 and 2', ['Book flights', 'Call the agency', 'Reserve hotel', 'Rent a car', 'Buy travel insurance']],
    ['intercambia el primero y el último', ['Buy travel insurance', 'Reserve hotel', 'Rent a car', 'Book flights']],
  ])('%s', async (reply, expected) => {
    const token = await propose(a, TRIP);
    const planned = log.planned.length;
    const revised = await ask(b, reply, token);
    expect(tasksOf(revised)).toEqual(expected);
    expect(log.planned).toHaveLength(planned);
    const approved = await ask(a, 'yes', token);
    expect(approved.result?.actions).toEqual(expected);
  });

  it('asks which step when a content reference matches two, lists them, applies nothing, and takes the answer', async () => {
    const token = await propose(a, TWIN);
    const asked = await ask(b, 'remove step 3 and the hotel', token);
    expect(kinds(asked)).toEqual(['input_required']);
    const question = texts(asked, 'input_required')[0] ?? '';
    expect(question).toContain('Which step do you mean by "the hotel"?');
    expect(question).toContain('1. "Book the hotel in Rome", 2. "Book the hotel in Florence"');
    expect(question).not.toContain('Rent a car');
    // Nothing was applied: not even "remove step 3", which the parser did understand.
    const answered = await ask(a, 'remove step 3 and step 2', token);
    expect(tasksOf(answered)).toEqual(['Book the hotel in Rome']);
  });

  it('asks in the language of the reply, listing every step when none matches, and never asks the model', async () => {
    const token = await propose(withModel, TWIN);
    const asked = await ask(withModel, 'borra lo del barco', token);
    const question = texts(asked, 'input_required')[0] ?? '';
    expect(question).toContain('Ningún paso del plan coincide con "lo del barco"');
    expect(question).toContain('1. "Book the hotel in Rome", 2. "Book the hotel in Florence", 3. "Rent a car"');
    expect(model.requests).toHaveLength(0);
    const ambiguous = await ask(withModel, 'pon lo del hotel al final', token);
    expect(texts(ambiguous, 'input_required')[0]).toContain('¿Qué paso quieres decir con "lo del hotel"?');
    expect(model.requests).toHaveLength(0);
  });

  it('shows the steps in its question without the control characters a step text may carry', async () => {
    const token = await propose(a, 'Book the hotel in Rome \u001b[2J\u001b]0;owned\u0007; Book the hotel in Florence\u202e; Rent a car');
    const asked = await ask(b, 'remove the hotel', token);
    const question = texts(asked, 'input_required')[0] ?? '';
    expect(question).toContain('Which step do you mean by "the hotel"?');
    expect(question).not.toMatch(/[\u001b\u0007\u202e]/u);
  });

  it('cancels on a rejection that gives its reason, running nothing', async () => {
    for (const reply of ['no, we already sorted it out', 'no, ya lo resolví']) {
      const token = await propose(a, TRIP);
      const executed = log.executed.length;
      const planned = log.planned.length;
      const turn = await ask(b, reply, token);
      expect(texts(turn, 'text').join(' ')).toMatch(/cancelled|canceló/);
      expect(log.executed).toHaveLength(executed);
      expect(log.planned).toHaveLength(planned);
    }
  });

  it('while a change is awaited: a dismissal then an approval runs the plan as it was; "no, cancel everything" cancels', async () => {
    const token = await propose(a, TRIP);
    const wish = await ask(b, 'hold on, I want to tweak something', token);
    expect(texts(wish, 'input_required')[0]).toContain('What would you like to change');
    const run = await ask(a, 'never mind, just run it', token);
    expect(run.result?.actions).toEqual(['Book flights', 'Reserve hotel', 'Rent a car', 'Buy travel insurance']);

    const second = await propose(a, TRIP);
    await ask(b, 'espera, quiero cambiar algo', second);
    const executed = log.executed.length;
    const cancelled = await ask(a, 'no, cancel everything', second);
    expect(texts(cancelled, 'text').join(' ')).toContain('cancelled');
    expect(log.executed).toHaveLength(executed);
  });
});
