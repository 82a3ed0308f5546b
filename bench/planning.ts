/**
 * Plan conversations without a model: the time to classify a reply to a
 * pending plan (target < 50 µs) and to parse and apply a plan edit, per
 * reply (steps named by number, position and content), over a mix of
 * English and Spanish replies of every class, beside
 * normalising the same text (the least any classifier does) in the same run.
 * Prints figures; asserts nothing.
 */
import { classifyPlanConfirmationReply } from '../runtime/planning/classify-plan-confirmation-reply.js';
import { normalizeReplyText } from '../runtime/planning/normalize-reply-text.js';
import { applyPlanEdits, parsePlanEdits } from '../runtime/planning/plan-edits.js';

const REPLIES = [
  'yes',
  'Sí, adelante',
  'Dale, ejecútalo',
  'I would like to go ahead with this plan, thanks!',
  'I turn this plan down',
  'rechazo esta propuesta',
  'No, no lo hagas',
  'I want to make a few changes',
  'quisiera ajustar algunas cosas',
  'not yet',
  "hmm, I'm not sure, let me think about it",
  'change step 2 to book a big hall',
  'quita el paso 3 y añade una revisión al final',
  'remove step 3, then move step 4 to the start and swap steps 1 and 2',
  'remove steps 1 and 4',
  'quita lo del catering y pon las invitaciones primero',
  'add a site visit between the date and the room',
  'no, we found another way',
  'hold on, I want to adjust something',
  "what's the weather in Paris?",
  'Organiza una fiesta de cumpleaños para Sam el sábado por la tarde en el parque',
];
const PLAN = ['Pick a date', 'Book a room', 'Send the invitations', 'Order the catering'];
const CONTEXT = {
  pending_plan: {
    plan_id: 'p1',
    created_at: new Date().toISOString(),
    original_query: 'Organise the offsite',
    actions: PLAN,
    methodology: 'WBS',
    methodology_rationale: '',
  },
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20_000);

function measure(name: string, run: (reply: string) => unknown): { name: string; p50: number; p99: number; mean: number } {
  for (let i = 0; i < 2_000; i += 1) run(REPLIES[i % REPLIES.length] as string);
  const samples = new Float64Array(ROUNDS);
  for (let i = 0; i < ROUNDS; i += 1) {
    const reply = REPLIES[i % REPLIES.length] as string;
    const start = process.hrtime.bigint();
    run(reply);
    samples[i] = Number(process.hrtime.bigint() - start) / 1000;
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return { name, p50: at(0.5), p99: at(0.99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

const now = Date.now();
const baseline = measure('normalizeReplyText (baseline)', (reply) => normalizeReplyText(reply));
const results = [
  baseline,
  measure('classifyPlanConfirmationReply', (reply) => classifyPlanConfirmationReply(reply, CONTEXT, { now })),
  measure('parsePlanEdits', (reply) => parsePlanEdits(reply, { steps: PLAN.length, actions: PLAN })),
  measure('parsePlanEdits + applyPlanEdits', (reply) => applyPlanEdits(PLAN, parsePlanEdits(reply, { steps: PLAN.length, actions: PLAN }).edits)),
];
console.log(`plan replies: ${REPLIES.length} EN/ES replies of every class, ${ROUNDS} calls each (µs per reply)`);
for (const { name, p50, p99, mean } of results) {
  const target = name === 'classifyPlanConfirmationReply' ? `  target < 50 µs: ${p99 < 50 ? 'met (p99)' : p50 < 50 ? 'met (p50)' : 'MISSED'}` : '';
  console.log(
    `  ${name.padEnd(34)} p50 ${p50.toFixed(1).padStart(6)}  p99 ${p99.toFixed(1).padStart(6)}  mean ${mean.toFixed(1).padStart(6)}  ×${(p50 / baseline.p50).toFixed(1)} baseline${target}`,
  );
}
