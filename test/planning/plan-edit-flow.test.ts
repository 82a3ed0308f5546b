import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { editPlanWithModel } from '../../runtime/planning/edit-plan.js';
import { ScriptedLanguageModel, type ScriptedReply } from '../../runtime/testing/scripted-language-model.js';
import { deleteKeys } from '../support/redis-keys.js';
import { ask, kinds, startPlannerReplica, startSession, texts, uniquePrefix, type PlannerLog, type Turn } from './planner-support.js';

// Plan edits through the real front door, sessions in Redis, two replicas: without a model (the parser's edits
// only) and with a scripted model behind `editPlan` for what the parser cannot place.

const prefix = uniquePrefix();
const log: PlannerLog = { planned: [], executed: [] };
let a: RunningAgent;
let b: RunningAgent;
let withModel: RunningAgent;
let script: ScriptedReply[] = [];
let model = new ScriptedLanguageModel({ replies: ['{}'] });
const redis = new Redis('redis://127.0.0.1:6379');

const REQUEST_EN = 'Pick a date; Book a room; Send the invitations; Order food';
const REQUEST_ES = 'Elige una fecha; Reserva una sala; Envía las invitaciones; Pide comida';

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

function useScript(replies: ScriptedReply[]): void {
  script = replies;
  model = new ScriptedLanguageModel({ replies: script });
}

/** The plan card of the last event of a turn. */
function card(turn: Turn): {
  plan_id: string;
  previous_plan_id?: string;
  plan: { objective: string; tasks: { description: string; change?: string }[]; removed?: string[] };
} {
  const last = turn.events.at(-1);
  expect(last?.event).toBe('input_required');
  expect(last?.data.action_type).toBe('plan_confirmation');
  return last?.data.data as ReturnType<typeof card>;
}

async function propose(agent: RunningAgent, request: string): Promise<{ token: string; planId: string }> {
  const token = await startSession(agent);
  return { token, planId: card(await ask(agent, request, token)).plan_id };
}

describe('plan edits without a model', () => {
  const cases: ReadonlyArray<readonly [string, string, string[], (string | undefined)[]]> = [
    [
      REQUEST_EN,
      'change step 2 to book a big hall',
      ['Pick a date', 'Book a big hall', 'Send the invitations', 'Order food'],
      [undefined, 'changed', undefined, undefined],
    ],
    [REQUEST_EN, 'remove step 3', ['Pick a date', 'Book a room', 'Order food'], [undefined, undefined, undefined]],
    [REQUEST_EN, 'skip the first step', ['Book a room', 'Send the invitations', 'Order food'], [undefined, undefined, undefined]],
    [
      REQUEST_EN,
      'add a review at the end',
      ['Pick a date', 'Book a room', 'Send the invitations', 'Order food', 'A review'],
      [undefined, undefined, undefined, undefined, 'added'],
    ],
    [
      REQUEST_EN,
      'add a budget check before step 2',
      ['Pick a date', 'A budget check', 'Book a room', 'Send the invitations', 'Order food'],
      [undefined, 'added', undefined, undefined, undefined],
    ],
    [
      REQUEST_EN,
      'add a call after step 1',
      ['Pick a date', 'A call', 'Book a room', 'Send the invitations', 'Order food'],
      [undefined, 'added', undefined, undefined, undefined],
    ],
    [
      REQUEST_EN,
      'add a kickoff at the start',
      ['A kickoff', 'Pick a date', 'Book a room', 'Send the invitations', 'Order food'],
      ['added', undefined, undefined, undefined, undefined],
    ],
    [REQUEST_EN, 'move step 4 before step 1', ['Order food', 'Pick a date', 'Book a room', 'Send the invitations'], ['moved', undefined, undefined, undefined]],
    [REQUEST_EN, 'swap steps 1 and 2', ['Book a room', 'Pick a date', 'Send the invitations', 'Order food'], ['moved', 'moved', undefined, undefined]],
    [
      REQUEST_EN,
      'remove step 3 and add a review at the end',
      ['Pick a date', 'Book a room', 'Order food', 'A review'],
      [undefined, undefined, undefined, 'added'],
    ],
    [
      REQUEST_ES,
      'cambia el paso 2 por reservar un salón grande',
      ['Elige una fecha', 'Reservar un salón grande', 'Envía las invitaciones', 'Pide comida'],
      [undefined, 'changed', undefined, undefined],
    ],
    [REQUEST_ES, 'quita el paso 3', ['Elige una fecha', 'Reserva una sala', 'Pide comida'], [undefined, undefined, undefined]],
    [
      REQUEST_ES,
      'añade una revisión al final',
      ['Elige una fecha', 'Reserva una sala', 'Envía las invitaciones', 'Pide comida', 'Una revisión'],
      [undefined, undefined, undefined, undefined, 'added'],
    ],
    [
      REQUEST_ES,
      'añade un presupuesto antes del paso 2',
      ['Elige una fecha', 'Un presupuesto', 'Reserva una sala', 'Envía las invitaciones', 'Pide comida'],
      [undefined, 'added', undefined, undefined, undefined],
    ],
    [
      REQUEST_ES,
      'mueve el paso 4 antes del paso 1',
      ['Pide comida', 'Elige una fecha', 'Reserva una sala', 'Envía las invitaciones'],
      ['moved', undefined, undefined, undefined],
    ],
    [
      REQUEST_ES,
      'intercambia los pasos 1 y 2',
      ['Reserva una sala', 'Elige una fecha', 'Envía las invitaciones', 'Pide comida'],
      ['moved', 'moved', undefined, undefined],
    ],
    [
      REQUEST_ES,
      'quita el paso 3 y añade una revisión al final',
      ['Elige una fecha', 'Reserva una sala', 'Pide comida', 'Una revisión'],
      [undefined, undefined, undefined, 'added'],
    ],
  ];

  it.each(cases)('%s ← %s', async (request, reply, actions, changes) => {
    const { token, planId } = await propose(a, request);
    const planned = log.planned.length;
    const revised = await ask(b, reply, token);
    expect(kinds(revised)).toEqual(['input_required']);
    const edited = card(revised);
    expect(edited.plan.tasks.map((task) => task.description)).toEqual(actions);
    expect(edited.plan.tasks.map((task) => task.change)).toEqual(changes);
    expect(edited.previous_plan_id).toBe(planId);
    expect(edited.plan_id).not.toBe(planId);
    // The parser's edits never plan again.
    expect(log.planned).toHaveLength(planned);
    const approved = await ask(a, `PLAN_CONFIRM_APPROVE ${edited.plan_id}`, token);
    expect(approved.result?.actions).toEqual(actions);
  });

  it('shows the revised plan card with the changes marked, and refuses an approval of the plan it replaced', async () => {
    const { token, planId } = await propose(a, REQUEST_EN);
    const revised = await ask(b, 'change step 2 to book a big hall, remove step 3 and rename the objective to Summer offsite', token);
    const text = String(revised.events.at(-1)?.data.text);
    expect(text).toBe(
      [
        'Revised plan',
        'Objective: Summer offsite [changed]',
        `Methodology: WBS (No model is configured, so the request is split into its own steps (one per line, ";" or "then").)`,
        'Tasks:',
        '  1. Pick a date',
        '  2. Book a big hall [changed]',
        '  3. Order food',
        'Removed:',
        '  - Send the invitations',
        '',
        'Reply "yes" to approve and run it, "no" to cancel it, or say what to change (for example "change step 2 to ...").',
      ].join('\n'),
    );
    const executed = log.executed.length;
    const stale = await ask(a, `PLAN_CONFIRM_APPROVE ${planId}`, token);
    expect(texts(stale, 'text')[0]).toContain('no longer waiting');
    expect(log.executed).toHaveLength(executed);
    const approved = await ask(a, 'yes', token);
    expect(approved.result?.actions).toEqual(['Pick a date', 'Book a big hall', 'Order food']);
  });

  it('speaks Spanish on a Spanish plan', async () => {
    const { token } = await propose(a, REQUEST_ES);
    const revised = await ask(b, 'cambia el paso 2 por reservar un salón grande y quita el paso 4', token);
    const text = String(revised.events.at(-1)?.data.text);
    expect(text).toMatch(/^Plan revisado\n/);
    expect(text).toContain('  2. Reservar un salón grande [cambiado]');
    expect(text).toContain('Quitado:\n  - Pide comida');
  });

  it('asks to rephrase what it cannot place, keeps the plan, and reads the next reply as the change', async () => {
    const { token, planId } = await propose(a, REQUEST_EN);
    const unclear = await ask(b, 'make it cheaper', token);
    expect(kinds(unclear)).toEqual(['input_required']);
    expect(String(unclear.events[0]?.data.text)).toContain('I could not tell how to change the plan for: "make it cheaper"');
    expect(String(unclear.events[0]?.data.text)).toContain('remove step 3');
    const revised = await ask(a, 'take out step 1', token);
    expect(card(revised).previous_plan_id).toBe(planId);
    expect(card(revised).plan.removed).toEqual(['Pick a date']);
  });

  it('asks what to change when the awaited change is only politeness, and changes nothing', async () => {
    const { token, planId } = await propose(a, REQUEST_EN);
    await ask(b, 'I want to make a few changes', token);
    const again = await ask(a, 'hmm, please', token);
    expect(again.events).toEqual([{ event: 'input_required', data: { text: expect.stringContaining('What would you like to change') } }]);
    const approved = await ask(b, `PLAN_CONFIRM_APPROVE ${planId}`, token);
    expect(approved.result?.actions).toEqual(REQUEST_EN.split('; '));
  });

  it('says why a change cannot be made, and the plan stays as it was', async () => {
    const { token, planId } = await propose(a, REQUEST_EN);
    const refused = await ask(b, 'remove step 7', token);
    expect(String(refused.events[0]?.data.text)).toContain('There is no step 7: the plan has 4 steps.');
    const approved = await ask(a, `PLAN_CONFIRM_APPROVE ${planId}`, token);
    expect(approved.result?.actions).toEqual(REQUEST_EN.split('; '));
  });

  it('asks again on a reply that decides nothing, and the plan stays pending', async () => {
    const { token, planId } = await propose(a, REQUEST_EN);
    const waiting = await ask(b, 'not yet', token);
    expect(card(waiting).plan_id).toBe(planId);
    expect(String(waiting.events[0]?.data.text)).toContain('the plan is still waiting');
    const approved = await ask(a, 'ok, go ahead', token);
    expect(approved.result?.actions).toHaveLength(4);
  });

  it('an edit and an approval of the same plan at the same instant: one of them wins, never both', async () => {
    const { token, planId } = await propose(a, REQUEST_EN);
    const executed = log.executed.length;
    const [edit, approval] = await Promise.all([ask(a, 'remove step 1', token), ask(b, `PLAN_CONFIRM_APPROVE ${planId}`, token)]);
    const edited = edit.events.at(-1)?.data.action_type === 'plan_confirmation';
    const ran = approval.result !== null;
    expect(edited !== ran).toBe(true);
    expect(log.executed.length - executed).toBe(ran ? 4 : 0);
  });
});

describe('plan edits with a model', () => {
  it('applies the parsed edits itself and sends only the rest, with the current plan, to the model', async () => {
    useScript(['{"actions": ["Book a room", "Send the invitations", "Order vegan food"]}']);
    const { token, planId } = await propose(withModel, REQUEST_EN);
    const revised = await ask(withModel, 'remove step 1 and make the food vegan', token);
    expect(texts(revised, 'status')).toEqual(['Revising the plan...']);
    const edited = card(revised);
    expect(edited.previous_plan_id).toBe(planId);
    expect(edited.plan.tasks).toEqual([
      { task_id: 'action_1', description: 'Book a room' },
      { task_id: 'action_2', description: 'Send the invitations' },
      { task_id: 'action_3', description: 'Order vegan food', change: 'added' },
    ]);
    expect(edited.plan.removed).toEqual(['Pick a date', 'Order food']);
    expect(model.requests).toHaveLength(1);
    const prompt = String(model.requests[0]?.messages.at(-1)?.content);
    expect(prompt).toContain('1. Book a room\n2. Send the invitations\n3. Order food');
    expect(prompt).toContain('make the food vegan');
    expect(prompt).not.toContain('remove step 1');
    expect(model.requests[0]?.format).toMatchObject({ type: 'object', required: ['actions'] });
  });

  it('a parsed edit never reaches the model', async () => {
    useScript(['{"actions": ["should not be used"]}']);
    const { token } = await propose(withModel, REQUEST_EN);
    const revised = await ask(withModel, 'swap steps 1 and 2', token);
    expect(card(revised).plan.tasks[0]?.description).toBe('Book a room');
    expect(model.requests).toHaveLength(0);
  });

  it('refuses a model edit that drops a step nobody mentioned, and asks the model once more', async () => {
    useScript([
      '{"actions": ["Pick a date", "Book a cheap room", "Order food"]}',
      '{"actions": ["Pick a date", "Book a cheap room", "Send the invitations", "Order food"]}',
    ]);
    const { token } = await propose(withModel, REQUEST_EN);
    const revised = await ask(withModel, 'make the room cheaper', token);
    expect(card(revised).plan.tasks.map((task) => task.description)).toEqual(['Pick a date', 'Book a cheap room', 'Send the invitations', 'Order food']);
    expect(model.requests).toHaveLength(2);
    expect(String(model.requests[1]?.messages.at(-1)?.content)).toContain('"Send the invitations"');
  });

  it('an answer that is not a plan is asked for again, then the person is asked to rephrase; the task does not fail', async () => {
    useScript(['Sure! I made it cheaper.']);
    const { token, planId } = await propose(withModel, REQUEST_EN);
    const refused = await ask(withModel, 'make the room cheaper', token);
    expect(kinds(refused)).toEqual(['status', 'input_required']);
    expect(String(refused.events.at(-1)?.data.text)).toContain('did not give a usable revised plan');
    expect(model.requests).toHaveLength(2);
    expect(String(model.requests[1]?.messages.at(-1)?.content)).toContain('the answer was not a plan');
    const approved = await ask(withModel, `PLAN_CONFIRM_APPROVE ${planId}`, token);
    expect(approved.result?.actions).toEqual(REQUEST_EN.split('; '));
  });

  it('after a second bad edit, asks the person to rephrase and keeps the plan', async () => {
    useScript(['{"actions": ["Book a cheap room"]}']);
    const { token, planId } = await propose(withModel, REQUEST_EN);
    const refused = await ask(withModel, 'make the room cheaper', token);
    expect(kinds(refused)).toEqual(['status', 'input_required']);
    expect(String(refused.events.at(-1)?.data.text)).toContain('left out or rewrote steps you did not mention');
    expect(model.requests).toHaveLength(2);
    const approved = await ask(withModel, `PLAN_CONFIRM_APPROVE ${planId}`, token);
    expect(approved.result?.actions).toEqual(REQUEST_EN.split('; '));
  });
});
