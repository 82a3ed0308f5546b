import type { PlanConfirmationClass } from '../../runtime/planning/plan-records.js';

/** Which session context a case runs against (see the test file for each). */
export type CaseContext = 'fresh' | 'awaiting' | 'stale' | 'malformed' | 'none' | 'bad-date';

export interface ConfirmationCase {
  reply: unknown;
  expected: PlanConfirmationClass | null;
  /** Session context; `fresh` (a valid pending plan, not awaiting feedback) when omitted. */
  context?: CaseContext;
  /** Expected feedback; defaults to the reply text trimmed for `plan_modify_feedback`. */
  feedback?: string;
  referencedPlanId?: string;
}

const approvals: ConfirmationCase[] = [
  'yes', 'Yes', 'YES!!!', '  yes  ', 'y', 'yeah', 'Yep.', 'ok', 'OK', 'okay', 'sure', 'Sure, go ahead',
  'go ahead', 'go', 'proceed', 'Approve', 'approved', 'I approve', 'Looks good', 'looks good to me!', 'LGTM',
  'sounds good', 'do it', "let's do it", "Let's go!", 'lets go', 'Perfect!', 'great', 'fine', 'confirm', 'confirmed',
  'execute it', 'run it', 'start', 'yes please go ahead', 'yes, please, go ahead', 'ok thanks', 'Okay, thank you!',
  'yes yes', 'well, ok then', 'just do it', 'yes\tplease', 'yes\n\ngo ahead',
  'Sí', 'si', 'SÍ!', 'sí, adelante', 'Sí, adelante!!', 'si adelante', 'sí, por favor, adelante', 'dale', 'Adelante',
  'apruebo', 'aprobado', 'de acuerdo', 'vale', 'perfecto', 'hazlo', 'procede', 'confirmo', 'claro', 'me parece bien',
  'Está bien', 'esta bien', 'sigue', 'ejecuta', 'ejecútalo', 'ejecutalo', 'bueno, dale', 'vale, gracias',
  'claro que sí', 'PERFECTO, GRACIAS',
].map((reply) => ({ reply, expected: 'plan_confirmed' }));

const rejections: ConfirmationCase[] = [
  'no', 'No.', 'NO!!', 'nope', 'cancel', 'Cancel it', 'stop', 'no thanks', 'No, thank you.', 'abort', 'reject',
  "don't", 'do not', 'Never mind', 'forget it', 'not now', 'no no no', "Don’t do it", 'cancel the plan, please',
  'cancela', 'cancelar', 'rechazar', 'rechazo', 'mejor no', 'para', 'detente', 'olvídalo', 'olvidalo', 'no gracias',
  'No, gracias', 'ni hablar', 'cancélalo por favor', 'pues no',
].map((reply) => ({ reply, expected: 'plan_rejected' }));

const changeRequests: ConfirmationCase[] = [
  'change', 'change it', 'Change the plan', 'modify', 'modify it', 'edit', 'I want to change it', 'i want changes',
  "I'd like to change it", 'can we change it?', 'let me change it', 'revise', 'change it please',
  'cambiar', 'cámbialo', 'cambialo', 'quiero cambios', 'quiero cambiarlo', 'modificar', 'modifícalo',
  'quiero modificar el plan', 'editar', 'hay que cambiarlo', 'Quiero cambios, por favor',
].map((reply) => ({ reply, expected: 'plan_modify_requested' }));

const feedback: ConfirmationCase[] = [
  // Decided: a "no" or a "yes" followed by changes is feedback, not a rejection or an approval.
  'no, change step 2 to use email',
  'yes but add a review step',
  'sí pero quita el paso 3',
  'Add a testing step at the end',
  'remove the second step',
  'Use Postgres instead of MySQL',
  'swap steps 2 and 3',
  'skip step 4',
  'Step 2 should send an email.',
  'merge the first two steps',
  'rename step one to "Research"',
  'insert a budget review before step 3',
  'añade un paso para revisar el presupuesto',
  'Quita el paso 2, por favor',
  'usa correo en vez de SMS',
  'en lugar de Python, usa Go',
  'Mueve el paso 4 al principio',
  'elimina la tarea 3',
  'el paso dos debería ser más corto',
  '  Reemplaza el último paso por una reunión  ',
].map((reply) => ({ reply, expected: 'plan_modify_feedback' }));

const newRequests: ConfirmationCase[] = [
  // Decided: an unrelated request while a plan is pending is a new request.
  "what's the weather in Paris?",
  'book a flight to Rome',
  '¿Qué tiempo hace en Madrid?',
  'reserva un hotel en Lisboa',
  'tell me a joke',
  'yes but',
  'ok no',
  '',
  '   ',
  '!!!',
  '👍',
].map((reply) => ({ reply, expected: null }));

const sentinels: ConfirmationCase[] = [
  { reply: 'PLAN_CONFIRM_APPROVE', expected: 'plan_confirmed' },
  { reply: '  PLAN_CONFIRM_APPROVE  ', expected: 'plan_confirmed' },
  { reply: 'PLAN_CONFIRM_APPROVE 3f2a9c', expected: 'plan_confirmed', referencedPlanId: '3f2a9c' },
  { reply: 'PLAN_CONFIRM_REJECT', expected: 'plan_rejected' },
  { reply: 'PLAN_CONFIRM_REJECT\tplan-1', expected: 'plan_rejected', referencedPlanId: 'plan-1' },
  { reply: 'PLAN_CONFIRM_MODIFY', expected: 'plan_modify_requested' },
  { reply: 'PLAN_CONFIRM_MODIFY plan-1', expected: 'plan_modify_requested', referencedPlanId: 'plan-1' },
  { reply: { text: 'PLAN_CONFIRM_APPROVE plan-1', context_id: 'c1' }, expected: 'plan_confirmed', referencedPlanId: 'plan-1' },
  { reply: 'PLAN_CONFIRM_MODIFY', expected: 'plan_modify_requested', context: 'awaiting' },
  // Not exact: lower case, glued id, or two trailing words are no sentinel and no phrase.
  { reply: 'plan_confirm_approve', expected: null },
  { reply: 'PLAN_CONFIRM_APPROVEx', expected: null },
  { reply: 'PLAN_CONFIRM_APPROVE a b', expected: null },
];

const structured: ConfirmationCase[] = [
  { reply: '{"text":"yes","context_id":"c1"}', expected: 'plan_confirmed' },
  { reply: { text: 'no thanks' }, expected: 'plan_rejected' },
  { reply: { text: 'yes but add a review step', context_id: 'c1' }, expected: 'plan_modify_feedback', feedback: 'yes but add a review step' },
  { reply: { context_id: 'c1' }, expected: null },
  { reply: { text: 42 }, expected: null },
  { reply: null, expected: null },
  { reply: undefined, expected: null },
  { reply: ['yes'], expected: null },
  { reply: 42, expected: null },
];

const awaiting: ConfirmationCase[] = [
  { reply: 'yes', expected: 'plan_confirmed', context: 'awaiting' },
  { reply: 'Sí, adelante', expected: 'plan_confirmed', context: 'awaiting' },
  { reply: 'no', expected: 'plan_rejected', context: 'awaiting' },
  { reply: 'cancela', expected: 'plan_rejected', context: 'awaiting' },
  // Decided: a bare change request while awaiting feedback asks again rather than becoming the feedback.
  { reply: 'change it', expected: 'plan_modify_requested', context: 'awaiting' },
  { reply: 'make it shorter and cheaper', expected: 'plan_modify_feedback', context: 'awaiting' },
  { reply: '  Focus on budget hotels in Rome.  ', expected: 'plan_modify_feedback', context: 'awaiting', feedback: 'Focus on budget hotels in Rome.' },
  { reply: 'hazlo más barato', expected: 'plan_modify_feedback', context: 'awaiting' },
  { reply: 'book a flight to Rome', expected: 'plan_modify_feedback', context: 'awaiting' },
  { reply: '{"text":"  Más corto  "}', expected: 'plan_modify_feedback', context: 'awaiting', feedback: 'Más corto' },
  { reply: 3, expected: 'plan_modify_feedback', context: 'awaiting', feedback: '3' },
  { reply: '', expected: null, context: 'awaiting' },
  { reply: '   ', expected: null, context: 'awaiting' },
  { reply: '?!', expected: null, context: 'awaiting' },
];

const noValidPlan: ConfirmationCase[] = [
  { reply: 'yes', expected: null, context: 'stale' },
  { reply: 'PLAN_CONFIRM_APPROVE', expected: null, context: 'stale' },
  { reply: 'no, change step 2 to use email', expected: null, context: 'stale' },
  { reply: 'yes', expected: null, context: 'malformed' },
  { reply: 'PLAN_CONFIRM_REJECT', expected: null, context: 'malformed' },
  { reply: 'yes', expected: null, context: 'none' },
  { reply: 'PLAN_CONFIRM_APPROVE', expected: null, context: 'none' },
  { reply: 'make it shorter', expected: null, context: 'none' },
  { reply: 'yes', expected: null, context: 'bad-date' },
];

/** Every reply case of the classifier's table test. */
export const CONFIRMATION_CASES: readonly ConfirmationCase[] = [
  ...approvals,
  ...rejections,
  ...changeRequests,
  ...feedback,
  ...newRequests,
  ...sentinels,
  ...structured,
  ...awaiting,
  ...noValidPlan,
];
