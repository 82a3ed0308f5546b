import { describe, expect, it } from 'vitest';
import { classifyPlanConfirmationReply } from '../../runtime/planning/classify-plan-confirmation-reply.js';
import { applyPlanEdits, parsePlanEdits } from '../../runtime/planning/plan-edits.js';
import type { PendingPlan } from '../../runtime/planning/plan-records.js';

// The illustrations of issue 38, each tried on the issue's own plan. They are kept out of the
// tables (plan-edit-table.ts, reply-table.ts) so they stay a fair check of what the tables taught.

const ACTIONS = ['Book flights', 'Reserve hotel', 'Rent a car', 'Buy travel insurance'];
const PLAN: PendingPlan = {
  plan_id: 'plan-38',
  created_at: '2026-01-01T10:00:00.000Z',
  original_query: 'Book flights; reserve hotel; rent a car; buy travel insurance',
  actions: ACTIONS,
  methodology: 'WBS',
  methodology_rationale: '',
};
const NOW = Date.parse(PLAN.created_at) + 60_000;

const EDITS: ReadonlyArray<readonly [string, string[]]> = [
  ['remove steps 1 and 4', ['Reserve hotel', 'Rent a car']],
  ['quita los pasos 2 y 3', ['Book flights', 'Buy travel insurance']],
  ['intercambia el primero y el último', ['Buy travel insurance', 'Reserve hotel', 'Rent a car', 'Book flights']],
  ['exchange the first step with the last one', ['Buy travel insurance', 'Reserve hotel', 'Rent a car', 'Book flights']],
  ['delete the flights one', ['Reserve hotel', 'Rent a car', 'Buy travel insurance']],
  ['skip booking the hotel', ['Book flights', 'Rent a car', 'Buy travel insurance']],
  ['quita lo del coche', ['Book flights', 'Reserve hotel', 'Buy travel insurance']],
  ['add call the venue between steps 1 and 2', ['Book flights', 'Call the venue', 'Reserve hotel', 'Rent a car', 'Buy travel insurance']],
];

describe('issue 38 illustrations: plan edits', () => {
  it.each(EDITS)('%s', (reply, expected) => {
    const parsed = parsePlanEdits(reply, { steps: ACTIONS.length, actions: ACTIONS });
    expect(parsed.unplaced).toEqual([]);
    expect(parsed.questions).toEqual([]);
    const applied = applyPlanEdits(ACTIONS, parsed.edits);
    expect(applied.ok ? applied.plan.actions : applied.problem).toEqual(expected);
  });

  it('never appends the instruction as a step', () => {
    const { edits } = parsePlanEdits('add call the venue between steps 1 and 2', { steps: ACTIONS.length, actions: ACTIONS });
    for (const edit of edits) if (edit.op === 'add') expect(edit.text).not.toMatch(/between|steps?\s+\d/i);
  });
});

const REPLIES: ReadonlyArray<readonly [string, boolean, string]> = [
  ["no, I don't need it anymore", false, 'plan_rejected'],
  ['hold on, I want to adjust something', false, 'plan_modify_requested'],
  ['forget it, just go ahead', true, 'plan_confirmed'],
  ['no, we found another way', false, 'plan_rejected'],
  ['no, ya lo resolví', false, 'plan_rejected'],
  ['wait, I want to rework it a little', false, 'plan_modify_requested'],
  ['déjame cambiar algo antes', false, 'plan_modify_requested'],
  ['actually leave it and run it', true, 'plan_confirmed'],
  ['no, cancel all of it', true, 'plan_rejected'],
];

describe('issue 38 illustrations: replies', () => {
  it.each(REPLIES)('%s (awaiting a change: %s)', (reply, awaiting, expected) => {
    const context = { pending_plan: PLAN, ...(awaiting ? { awaiting_plan_modification: true } : {}) };
    expect(classifyPlanConfirmationReply(reply, context, { now: NOW })?.classification ?? 'new_request').toBe(expected);
  });
});
