import type { DisplayPlan, PlanResult, StepChange } from './plan-records.js';

/** What an edit changed, for the display plan: per action, and the actions removed. */
export interface PlanChanges {
  changes: readonly (StepChange | undefined)[];
  removed: readonly string[];
  objectiveChanged?: boolean;
}

/**
 * The plan as shown to the user: the objective and its tasks numbered
 * `action_1`, `action_2`, ...; with `changes`, each task edited is marked and
 * the removed ones listed.
 */
export function toDisplayPlan(planResult: PlanResult, objective: string, changes?: PlanChanges): DisplayPlan {
  return {
    objective,
    methodology: planResult.methodology,
    methodology_rationale: planResult.methodology_rationale,
    tasks: planResult.actions.map((description, i) => {
      const change = changes?.changes[i];
      return { task_id: `action_${i + 1}`, description, ...(change === undefined ? {} : { change }) };
    }),
    ...(changes === undefined ? {} : { removed: [...changes.removed] }),
    ...(changes?.objectiveChanged ? { objective_changed: true } : {}),
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
    revised: 'Revised plan',
    removed: 'Removed',
    marks: { added: 'added', changed: 'changed', moved: 'moved' },
  },
  es: {
    heading: 'Plan propuesto',
    objective: 'Objetivo',
    methodology: 'Metodología',
    tasks: 'Tareas',
    instructions: 'Responde "sí" para aprobarlo y ejecutarlo, "no" para cancelarlo, o di qué cambiar (por ejemplo "cambia el paso 2 por ...").',
    revised: 'Plan revisado',
    removed: 'Quitado',
    marks: { added: 'añadido', changed: 'cambiado', moved: 'movido' },
  },
} as const;

/**
 * The human-readable plan: objective, methodology with its rationale, the
 * numbered tasks, and how to approve, reject or request changes. An edited
 * plan is headed "Revised plan", marks each step added, changed or moved
 * (`[changed]`) and lists the steps removed.
 *
 * @example
 * formatPlanSummary(toDisplayPlan(plan, 'Organise the offsite'));
 */
export function formatPlanSummary(displayPlan: DisplayPlan, options: { language?: SummaryLanguage } = {}): string {
  const t = TEXT[options.language ?? 'en'];
  const revised = displayPlan.removed !== undefined;
  const lines = [
    revised ? t.revised : t.heading,
    `${t.objective}: ${displayPlan.objective}${displayPlan.objective_changed ? ` [${t.marks.changed}]` : ''}`,
    `${t.methodology}: ${displayPlan.methodology}${displayPlan.methodology_rationale ? ` (${displayPlan.methodology_rationale})` : ''}`,
    `${t.tasks}:`,
    ...displayPlan.tasks.map((task, i) => `  ${i + 1}. ${task.description}${task.change ? ` [${t.marks[task.change]}]` : ''}`),
    ...(displayPlan.removed?.length ? [`${t.removed}:`, ...displayPlan.removed.map((action) => `  - ${action}`)] : []),
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
