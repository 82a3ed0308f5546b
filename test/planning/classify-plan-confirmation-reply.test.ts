import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PLAN_AGE_MS, classifyPlanConfirmationReply } from '../../runtime/planning/classify-plan-confirmation-reply.js';
import { CONFIRMATION_VOCABULARY } from '../../runtime/planning/confirmation-vocabulary.js';
import { normalizeReplyText } from '../../runtime/planning/normalize-reply-text.js';
import type { PendingPlan } from '../../runtime/planning/plan-records.js';
import { CONFIRMATION_CASES, type CaseContext } from './confirmation-cases.js';
import { randomClassifierInput, seededRandom } from './random-classifier-input.js';

const PLAN: PendingPlan = {
  plan_id: 'plan-1',
  created_at: '2025-06-01T12:00:00.000Z',
  original_query: 'Plan a trip to Rome',
  actions: ['Book flights', 'Book a hotel'],
  methodology: 'WBS',
  methodology_rationale: 'Break the trip into deliverables',
};
const CREATED = Date.parse(PLAN.created_at);
const NOW = CREATED + 5 * 60 * 1000;

const CONTEXTS: Record<CaseContext, Readonly<Record<string, unknown>>> = {
  fresh: { pending_plan: PLAN },
  awaiting: { pending_plan: PLAN, awaiting_plan_modification: true },
  stale: { pending_plan: { ...PLAN, created_at: new Date(NOW - DEFAULT_MAX_PLAN_AGE_MS - 1).toISOString() } },
  malformed: { pending_plan: { ...PLAN, actions: [] } },
  none: {},
  'bad-date': { pending_plan: { ...PLAN, created_at: 'yesterday' } },
};

describe('classifyPlanConfirmationReply: reply table', () => {
  it('has at least 80 cases', () => {
    expect(CONFIRMATION_CASES.length).toBeGreaterThanOrEqual(80);
  });

  it.each(CONFIRMATION_CASES.map((c) => [JSON.stringify(c.reply) ?? String(c.reply), c.context ?? 'fresh', c] as const))('%s (%s)', (_label, context, c) => {
    const result = classifyPlanConfirmationReply(c.reply, CONTEXTS[context], { now: NOW });
    if (c.expected === null) {
      expect(result).toBeNull();
      return;
    }
    const replyText = typeof c.reply === 'string' ? c.reply.trim() : String(c.reply);
    expect(result).toEqual({
      classification: c.expected,
      pending_plan: PLAN,
      original_query: PLAN.original_query,
      ...(c.expected === 'plan_modify_feedback' ? { feedback: c.feedback ?? replyText } : {}),
      ...(c.referencedPlanId === undefined ? {} : { referenced_plan_id: c.referencedPlanId }),
    });
  });
});

describe('classifyPlanConfirmationReply: plan age and context', () => {
  const ask = (context: Readonly<Record<string, unknown>>, options: { now?: number; maxPlanAgeMs?: number }) =>
    classifyPlanConfirmationReply('yes', context, options)?.classification ?? null;

  it('keeps a plan exactly maxPlanAgeMs old and drops one a millisecond older', () => {
    expect(ask(CONTEXTS.fresh, { now: CREATED + DEFAULT_MAX_PLAN_AGE_MS })).toBe('plan_confirmed');
    expect(ask(CONTEXTS.fresh, { now: CREATED + DEFAULT_MAX_PLAN_AGE_MS + 1 })).toBeNull();
  });

  it('honours a custom maxPlanAgeMs and ignores an invalid one', () => {
    expect(ask(CONTEXTS.fresh, { now: NOW, maxPlanAgeMs: 60_000 })).toBeNull();
    expect(ask(CONTEXTS.fresh, { now: CREATED + 2 * DEFAULT_MAX_PLAN_AGE_MS, maxPlanAgeMs: 3 * DEFAULT_MAX_PLAN_AGE_MS })).toBe('plan_confirmed');
    expect(ask(CONTEXTS.fresh, { now: NOW, maxPlanAgeMs: Number.NaN })).toBe('plan_confirmed');
    expect(ask(CONTEXTS.fresh, { now: NOW, maxPlanAgeMs: -1 })).toBe('plan_confirmed');
  });

  it('reads a date-time without an offset as UTC, and rejects non-ISO times', () => {
    const local = { pending_plan: { ...PLAN, created_at: '2025-06-01T12:00:00' } };
    expect(ask(local, { now: CREATED + DEFAULT_MAX_PLAN_AGE_MS })).toBe('plan_confirmed');
    expect(ask(local, { now: CREATED + DEFAULT_MAX_PLAN_AGE_MS + 1 })).toBeNull();
    expect(ask({ pending_plan: { ...PLAN, created_at: 'Sun Jun 01 2025' } }, { now: NOW })).toBeNull();
    expect(ask({ pending_plan: { ...PLAN, created_at: '2025-13-45T99:00:00Z' } }, { now: NOW })).toBeNull();
  });

  it('defaults now to the clock', () => {
    const recent = { pending_plan: { ...PLAN, created_at: new Date().toISOString() } };
    expect(ask(recent, {})).toBe('plan_confirmed');
    expect(ask(recent, { now: Number.NaN })).toBe('plan_confirmed');
    expect(ask(CONTEXTS.fresh, {})).toBeNull();
  });

  it('takes awaiting_plan_modification only when it is exactly true', () => {
    const reply = 'focus on budget hotels';
    expect(classifyPlanConfirmationReply(reply, { pending_plan: PLAN, awaiting_plan_modification: 'true' }, { now: NOW })).toBeNull();
    expect(classifyPlanConfirmationReply(reply, CONTEXTS.awaiting, { now: NOW })?.feedback).toBe(reply);
  });

  it('returns the schema-parsed plan, without unknown keys', () => {
    const context = { pending_plan: { ...PLAN, extra: 'x', actions: ['  Book flights '] } };
    const result = classifyPlanConfirmationReply('yes', context, { now: NOW });
    expect(result?.pending_plan).toEqual({ ...PLAN, actions: ['Book flights'] });
  });

  it('returns null for a session context that is not an object', () => {
    for (const context of [null, undefined, 'pending_plan', 42, [PLAN]]) {
      expect(classifyPlanConfirmationReply('yes', context as unknown as Record<string, unknown>, { now: NOW })).toBeNull();
    }
  });
});

describe('confirmation vocabulary', () => {
  const classes = ['approve', 'reject', 'modify_request', 'filler'] as const;

  it('has entries in every language and no entry that normalises to nothing', () => {
    for (const table of Object.values(CONFIRMATION_VOCABULARY)) {
      for (const phrases of Object.values(table) as string[][]) {
        expect(phrases.length).toBeGreaterThan(0);
        for (const phrase of phrases) expect(normalizeReplyText(phrase.replace('#', '1'))).not.toBe('');
      }
    }
  });

  it('puts each normalised phrase in one class only', () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const name of classes) {
      for (const phrase of Object.values(CONFIRMATION_VOCABULARY[name]).flat()) {
        const key = normalizeReplyText(phrase);
        const previous = owner.get(key);
        if (previous !== undefined && previous !== name) clashes.push(`${key}: ${previous} and ${name}`);
        owner.set(key, name);
      }
    }
    expect(clashes).toEqual([]);
  });

  it('normalises accents, case, punctuation and whitespace', () => {
    expect(normalizeReplyText('Sí, adelante!!')).toBe('si adelante');
    expect(normalizeReplyText("  Let's\t\tGO… ")).toBe('lets go');
    expect(normalizeReplyText('¿Añade el PASO #3?')).toBe('anade el paso 3');
    expect(normalizeReplyText('Don’t')).toBe('dont');
  });
});

describe('classifyPlanConfirmationReply: robustness', () => {
  it('never throws, returns null or a well-formed result, and is deterministic (3000 random inputs)', () => {
    const random = seededRandom(20250601);
    const classes = new Set(['plan_confirmed', 'plan_rejected', 'plan_modify_requested', 'plan_modify_feedback', 'plan_unclear']);
    const seen = new Set<string>();
    for (let i = 0; i < 3000; i += 1) {
      const input = randomClassifierInput(random, { plan: PLAN, now: NOW });
      const first = classifyPlanConfirmationReply(input.query, input.context, input.options);
      const second = classifyPlanConfirmationReply(input.query, input.context, input.options);
      expect(second).toEqual(first);
      if (first === null) {
        seen.add('null');
        continue;
      }
      seen.add(first.classification);
      expect(first).not.toBeInstanceOf(Promise);
      expect(classes.has(first.classification)).toBe(true);
      expect(input.plan).toBeDefined();
      expect(first.pending_plan).toEqual(input.plan);
      expect(first.original_query).toBe(input.plan?.original_query);
      expect(Object.keys(first).every((key) => ['classification', 'pending_plan', 'original_query', 'feedback', 'referenced_plan_id'].includes(key))).toBe(
        true,
      );
      if (first.classification === 'plan_modify_feedback') {
        expect(typeof first.feedback).toBe('string');
        expect(first.feedback).toBe(first.feedback?.trim());
        expect(first.feedback?.length).toBeGreaterThan(0);
      } else {
        expect(first.feedback).toBeUndefined();
      }
      if (first.referenced_plan_id !== undefined) expect(first.referenced_plan_id).toMatch(/^\S+$/);
    }
    // The generator reaches every outcome, so the checks above ran on each.
    expect([...seen].sort()).toEqual([...classes, 'null'].sort());
  });

  it('is synchronous and does no I/O: no fetch, timers, microtasks or clock when now is given', () => {
    const calls: string[] = [];
    const saved = {
      fetch: globalThis.fetch,
      setTimeout: globalThis.setTimeout,
      setInterval: globalThis.setInterval,
      setImmediate: globalThis.setImmediate,
      queueMicrotask: globalThis.queueMicrotask,
      dateNow: Date.now,
    };
    // The classifier swallows exceptions, so the traps record calls instead of throwing.
    const trap = (name: string) =>
      ((..._args: unknown[]) => {
        calls.push(name);
      }) as never;
    const results: unknown[] = [];
    try {
      globalThis.fetch = trap('fetch');
      globalThis.setTimeout = trap('setTimeout');
      globalThis.setInterval = trap('setInterval');
      globalThis.setImmediate = trap('setImmediate');
      globalThis.queueMicrotask = trap('queueMicrotask');
      Date.now = () => {
        calls.push('Date.now');
        return NOW;
      };
      for (const c of CONFIRMATION_CASES) {
        const context = CONTEXTS[c.context ?? 'fresh'];
        results.push(classifyPlanConfirmationReply(c.reply, context, { now: NOW }));
      }
    } finally {
      globalThis.fetch = saved.fetch;
      globalThis.setTimeout = saved.setTimeout;
      globalThis.setInterval = saved.setInterval;
      globalThis.setImmediate = saved.setImmediate;
      globalThis.queueMicrotask = saved.queueMicrotask;
      Date.now = saved.dateNow;
    }
    expect(calls).toEqual([]);
    for (const result of results) {
      expect(result instanceof Promise).toBe(false);
      expect(typeof (result as { then?: unknown } | null)?.then).toBe('undefined');
    }
  });
});
