import { afterAll, describe, expect, it } from 'vitest';
import { classifyPlanConfirmationReply } from '../../runtime/planning/classify-plan-confirmation-reply.js';
import type { PendingPlan } from '../../runtime/planning/plan-records.js';
import { REPLY_FAMILIES } from './reply-families.js';
import { AWAITING_TABLE, REPLY_TABLE, type TableClass } from './reply-table.js';

const PLAN: PendingPlan = {
  plan_id: 'plan-1',
  created_at: '2025-06-01T12:00:00.000Z',
  original_query: 'Organise the team offsite',
  actions: ['Pick a date', 'Book a room', 'Send the invitations', 'Order food'],
  methodology: 'WBS',
  methodology_rationale: 'Break the offsite into deliverables',
};
const NOW = Date.parse(PLAN.created_at) + 60_000;
const FRESH = { pending_plan: PLAN };
const AWAITING = { pending_plan: PLAN, awaiting_plan_modification: true };

const classOf = (reply: string, context: Readonly<Record<string, unknown>>): TableClass =>
  classifyPlanConfirmationReply(reply, context, { now: NOW })?.classification ?? 'new_request';

const tally = new Map<string, { right: number; total: number }>();
function count(key: string, right: boolean): void {
  const entry = tally.get(key) ?? { right: 0, total: 0 };
  entry.right += right ? 1 : 0;
  entry.total += 1;
  tally.set(key, entry);
}

describe('plan replies as people write them', () => {
  const total = Object.values(REPLY_TABLE).reduce((n, { en, es }) => n + en.length + es.length, 0) + Object.values(AWAITING_TABLE).flat().length;

  it('has at least 600 replies, in both languages, for every class', () => {
    expect(total).toBeGreaterThanOrEqual(600);
    for (const { en, es } of Object.values(REPLY_TABLE)) {
      expect(en.length).toBeGreaterThanOrEqual(25);
      expect(es.length).toBeGreaterThanOrEqual(25);
    }
  });

  for (const [expected, byLanguage] of Object.entries(REPLY_TABLE) as [TableClass, { en: string[]; es: string[] }][]) {
    for (const [language, replies] of Object.entries(byLanguage)) {
      it.each(replies)(`${expected} (${language}, pending plan): %s`, (reply) => {
        const got = classOf(reply, FRESH);
        count(`${expected} ${language}`, got === expected);
        expect(got).toBe(expected);
      });
    }
  }
  for (const [expected, replies] of Object.entries(AWAITING_TABLE) as [TableClass, string[]][]) {
    if (replies.length === 0) continue;
    it.each(replies)(`${expected} (awaiting the change): %s`, (reply) => {
      const got = classOf(reply, AWAITING);
      count(`${expected} awaiting`, got === expected);
      expect(got).toBe(expected);
    });
  }

  it('has at least 15 replies per family and language', () => {
    for (const { en, es } of Object.values(REPLY_FAMILIES)) {
      expect(en.length).toBeGreaterThanOrEqual(15);
      expect(es.length).toBeGreaterThanOrEqual(15);
    }
  });

  for (const [family, { expected, awaiting, en, es }] of Object.entries(REPLY_FAMILIES)) {
    for (const [language, replies] of [
      ['en', en],
      ['es', es],
    ] as const) {
      it.each(replies)(`${family} (${language}): %s`, (reply) => {
        const got = classOf(reply, awaiting ? AWAITING : FRESH);
        count(`${family} ${language}`, got === expected);
        expect(got).toBe(expected);
      });
    }
  }

  afterAll(() => {
    const rows = [...tally.entries()].sort(([a], [b]) => a.localeCompare(b));
    const lines = rows.map(
      ([key, { right, total: n }]) => `  ${key.padEnd(44)} ${String(right).padStart(4)}/${String(n).padEnd(4)} ${((100 * right) / n).toFixed(1)}%`,
    );
    console.log(`plan reply accuracy per class:\n${lines.join('\n')}`);
  });
});
