import { describe, expect, it } from 'vitest';
import { classifyPlanConfirmationReply } from '../../runtime/planning/classify-plan-confirmation-reply.js';
import type { PendingPlan } from '../../runtime/planning/plan-records.js';
import { seededRandom } from './random-classifier-input.js';

// Properties of the reply classifier over generated replies: a reply that refuses (a negation, "no",
// "not yet", "todavía no", a rejection with its reason) never approves, whatever approving words it
// holds; a reply that approves while negating a rejection ("go ahead, don't cancel it") never rejects.

const PLAN: PendingPlan = {
  plan_id: 'plan-polarity',
  created_at: '2026-01-01T10:00:00.000Z',
  original_query: 'Book flights; reserve hotel; rent a car',
  actions: ['Book flights', 'Reserve hotel', 'Rent a car'],
  methodology: 'WBS',
  methodology_rationale: '',
};
const NOW = Date.parse(PLAN.created_at) + 60_000;
const CONTEXTS = [{ pending_plan: PLAN }, { pending_plan: PLAN, awaiting_plan_modification: true }];

const classOf = (reply: string, context: Readonly<Record<string, unknown>>) =>
  classifyPlanConfirmationReply(reply, context, { now: NOW })?.classification ?? 'new_request';

const APPROVE_VERBS_EN = [
  'run it',
  'execute it',
  'do it',
  'proceed',
  'start it',
  'approve it',
  'go ahead',
  'go ahead with it',
  'run the plan',
  'kick it off',
  'launch it',
];
const APPROVALS_EN = [...APPROVE_VERBS_EN, 'yes', 'ok', 'sure', 'sounds good', 'approved', 'go for it', "let's do it", 'lgtm', '👍'];
const APPROVE_VERBS_ES = ['lo ejecutes', 'lo hagas', 'lo apruebes', 'lo inicies', 'sigas', 'continúes', 'procedas', 'lo lances', 'ejecutes el plan'];
const APPROVALS_ES = [
  'ejecútalo',
  'adelante',
  'hazlo',
  'dale',
  'apruébalo',
  'procede',
  'sí',
  'vale',
  'ejecuta el plan',
  'sigue',
  'empieza',
  'de acuerdo',
  'venga',
];
const REASONS = [
  'we found another way',
  "I don't need it anymore",
  'ya lo resolví',
  'ya no hace falta',
  "it's too expensive",
  'cambié de opinión',
  'someone else is on it',
];
const PREFIXES = ['', 'hmm ', 'well, ', 'ok ', 'actually ', 'bueno, ', 'pues ', 'oh '];
const SUFFIXES = ['', ' please', ' thanks', ', gracias', '!', ' 🙂', '...'];

/** Replies that refuse, each holding an approving word. */
function refusals(): string[] {
  const out: string[] = [];
  for (const verb of APPROVE_VERBS_EN) {
    out.push(`no, don't ${verb}`, `don't ${verb}`, `do not ${verb}`, `please don't ${verb}`, `no no, don't ${verb}`, `no, please do not ${verb}`);
    out.push(`I don't want you to ${verb}`, `you shouldn't ${verb}`, `never ${verb}`, `not yet, ${verb}`, `${verb}? not yet`);
  }
  for (const approval of APPROVALS_EN) out.push(`no, ${approval}`, `${approval}, no`, `no ${approval}`, `not yet, ${approval}`, `nope, ${approval}`);
  for (const verb of APPROVE_VERBS_ES) out.push(`no ${verb}`, `no, no ${verb}`, `todavía no ${verb}`, `aún no, no ${verb}`, `por favor no ${verb}`);
  for (const approval of APPROVALS_ES) out.push(`no, ${approval}`, `todavía no, ${approval}`, `aún no, ${approval}`, `${approval}, no`, `no ${approval}`);
  for (const reason of REASONS) for (const approval of [...APPROVALS_EN, ...APPROVALS_ES]) out.push(`no, ${reason}, ${approval}`);
  for (const approval of APPROVALS_EN) out.push(`${approval}, actually forget it`, `${approval}... never mind, no`);
  return out;
}

/** Replies that approve while negating a rejection. */
function approvalsWithNegatedRejection(): string[] {
  const out: string[] = [];
  for (const approval of APPROVALS_EN)
    out.push(`${approval}, don't cancel it`, `don't cancel it, ${approval}`, `${approval}, do not reject it`, `${approval}, don't stop`);
  for (const approval of APPROVALS_ES)
    out.push(`${approval}, no lo canceles`, `no lo canceles, ${approval}`, `${approval}, no lo rechaces`, `no lo anules, ${approval}`);
  return out;
}

function variants(reply: string, random: () => number): string {
  const prefix = PREFIXES[Math.floor(random() * PREFIXES.length)] ?? '';
  const suffix = SUFFIXES[Math.floor(random() * SUFFIXES.length)] ?? '';
  let text = `${prefix}${reply}${suffix}`;
  const shape = random();
  if (shape < 0.2) text = text.toUpperCase();
  else if (shape < 0.4) text = text.normalize('NFD').replace(/\p{M}/gu, '');
  else if (shape < 0.5) text = text.replace(/'/g, '’');
  return text;
}

describe('reply polarity', () => {
  const refusing = refusals();
  const approving = approvalsWithNegatedRejection();

  it.each(refusing)('never approves: %s', (reply) => {
    for (const context of CONTEXTS) expect(classOf(reply, context)).not.toBe('plan_confirmed');
  });

  it.each(approving)('never rejects: %s', (reply) => {
    for (const context of CONTEXTS) expect(classOf(reply, context)).not.toBe('plan_rejected');
  });

  it('keeps both properties under fillers, politeness, case, accents and apostrophes (4000 seeded variants)', () => {
    const random = seededRandom(38);
    const approvedRefusals: string[] = [];
    const rejectedApprovals: string[] = [];
    for (let i = 0; i < 2000; i += 1) {
      const refusal = variants(refusing[Math.floor(random() * refusing.length)] ?? '', random);
      const approval = variants(approving[Math.floor(random() * approving.length)] ?? '', random);
      for (const context of CONTEXTS) {
        if (classOf(refusal, context) === 'plan_confirmed') approvedRefusals.push(refusal);
        if (classOf(approval, context) === 'plan_rejected') rejectedApprovals.push(approval);
      }
    }
    expect(approvedRefusals).toEqual([]);
    expect(rejectedApprovals).toEqual([]);
  });
});
