import { afterAll, describe, expect, it } from 'vitest';
import { classifyPlanConfirmationReply } from '../../runtime/planning/classify-plan-confirmation-reply.js';
import { applyPlanEdits, parsePlanEdits } from '../../runtime/planning/plan-edits.js';
import { EDIT_TABLE, PLAN_TWIN, type EditFamily } from './plan-edit-table.js';

/** What a case gives, in the table's notation (see plan-edit-table.ts). */
function outcome(reply: string, plan: readonly string[]): string {
  const parsed = parsePlanEdits(reply, { steps: plan.length, actions: plan });
  const [question] = parsed.questions;
  if (question !== undefined) return ['ASK', ...question.candidates].join(' ');
  if (parsed.unplaced.length > 0) return parsed.edits.length === 0 ? 'UNPLACED' : `PARTLY UNPLACED: ${parsed.unplaced.join('; ')}`;
  const applied = applyPlanEdits(plan, parsed.edits);
  if (!applied.ok) return 'ERR';
  return applied.plan.actions
    .map((action) => {
      const at = plan.indexOf(action);
      return at === -1 ? `"${action}"` : String.fromCharCode(65 + at);
    })
    .join(' ');
}

const tally = new Map<string, { right: number; total: number }>();

describe('plan edits as people write them', () => {
  it('has at least 15 edits per family and language', () => {
    for (const { en, es } of Object.values(EDIT_TABLE)) {
      expect(en.length).toBeGreaterThanOrEqual(15);
      expect(es.length).toBeGreaterThanOrEqual(15);
    }
  });

  for (const [family, { plan, en, es }] of Object.entries(EDIT_TABLE) as [EditFamily, (typeof EDIT_TABLE)[EditFamily]][]) {
    for (const [language, rows] of [
      ['en', en],
      ['es', es],
    ] as const) {
      it.each(rows)(`${family} (${language}): %s`, (reply, expected) => {
        const got = outcome(reply, plan);
        const key = `${family} ${language}`;
        const entry = tally.get(key) ?? { right: 0, total: 0 };
        entry.right += got === expected ? 1 : 0;
        entry.total += 1;
        tally.set(key, entry);
        expect(got).toBe(expected);
      });
    }
  }

  it('reaches the parser: every edit of the table that names steps is a change to the pending plan, not a new request', () => {
    const asNewRequest: string[] = [];
    for (const { plan, en, es } of Object.values(EDIT_TABLE)) {
      const pending_plan = {
        plan_id: 'p',
        created_at: '2026-01-01T10:00:00Z',
        original_query: 'x',
        actions: plan,
        methodology: 'WBS',
        methodology_rationale: '',
      };
      for (const [reply, expected] of [...en, ...es]) {
        if (expected === 'ASK' || expected === 'UNPLACED') continue;
        const got = classifyPlanConfirmationReply(reply, { pending_plan }, { now: Date.parse('2026-01-01T10:01:00Z') })?.classification;
        if (got !== 'plan_modify_feedback') asNewRequest.push(`${reply} => ${got ?? 'new request'}`);
      }
    }
    expect(asNewRequest).toEqual([]);
  });

  it('reads a reference that matches no step as a change only when it can only mean a step', () => {
    const pending_plan = {
      plan_id: 'p',
      created_at: '2026-01-01T10:00:00Z',
      original_query: 'x',
      actions: PLAN_TWIN,
      methodology: 'WBS',
      methodology_rationale: '',
    };
    const classOf = (reply: string) =>
      classifyPlanConfirmationReply(reply, { pending_plan }, { now: Date.parse('2026-01-01T10:01:00Z') })?.classification ?? 'new request';
    expect(classOf('delete the boat')).toBe('plan_modify_feedback');
    expect(classOf('put the boat first')).toBe('plan_modify_feedback');
    expect(classOf('quita lo del barco')).toBe('plan_modify_feedback');
    expect(classOf('cancel my gym membership')).toBe('new request');
  });

  afterAll(() => {
    const lines = [...tally.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, { right, total }]) => `  ${key.padEnd(32)} ${String(right).padStart(4)}/${String(total).padEnd(4)} ${((100 * right) / total).toFixed(1)}%`);
    console.log(`plan edit accuracy per family:\n${lines.join('\n')}`);
  });
});
