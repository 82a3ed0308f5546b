import type { DisplayPlan, PlanResult } from './plan-records.js';

/** The plan as shown to the user: the objective and its tasks numbered `action_1`, `action_2`, ... */
export function toDisplayPlan(planResult: PlanResult, objective: string): DisplayPlan {
  return {
    objective,
    methodology: planResult.methodology,
    methodology_rationale: planResult.methodology_rationale,
    tasks: planResult.actions.map((description, i) => ({ task_id: `action_${i + 1}`, description })),
  };
}

export type SummaryLanguage = 'en' | 'es';

const TEXT = {
  en: {
    heading: 'Proposed plan',
    objective: 'Objective',
    methodology: 'Methodology',
    tasks: 'Tasks',
    instructions: 'Reply "yes" to approve and run it, "no" to cancel it, or say what to change (for example "change step 2 to ...").',
  },
  es: {
    heading: 'Plan propuesto',
    objective: 'Objetivo',
    methodology: 'Metodología',
    tasks: 'Tareas',
    instructions: 'Responde "sí" para aprobarlo y ejecutarlo, "no" para cancelarlo, o di qué cambiar (por ejemplo "cambia el paso 2 por ...").',
  },
} as const;

/**
 * The human-readable plan: objective, methodology with its rationale, the
 * numbered tasks, and how to approve, reject or request changes.
 *
 * @example
 * formatPlanSummary(toDisplayPlan(plan, 'Organise the offsite'));
 */
export function formatPlanSummary(displayPlan: DisplayPlan, options: { language?: SummaryLanguage } = {}): string {
  const t = TEXT[options.language ?? 'en'];
  const lines = [
    `${t.heading}`,
    `${t.objective}: ${displayPlan.objective}`,
    `${t.methodology}: ${displayPlan.methodology}${displayPlan.methodology_rationale ? ` (${displayPlan.methodology_rationale})` : ''}`,
    `${t.tasks}:`,
    ...displayPlan.tasks.map((task, i) => `  ${i + 1}. ${task.description}`),
    '',
    t.instructions,
  ];
  return lines.join('\n');
}

const SPANISH_HINT = /[ñáéíóú¿¡]|\b(el|la|los|las|un|una|para|por|con|del|que|quiero|necesito|organiza|organizar|hacer|planifica)\b/i;

/** `es` when the text looks Spanish, else `en`: the summary speaks the user's language. */
export function guessLanguage(text: string): SummaryLanguage {
  const hits = text.match(new RegExp(SPANISH_HINT.source, 'gi'))?.length ?? 0;
  return hits >= 2 ? 'es' : 'en';
}
