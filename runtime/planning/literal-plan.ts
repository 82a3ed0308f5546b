import type { PlanResult } from './plan-records.js';

/** Splits a request into actions: one per line, or separated by ";" or " then ". */
export function splitActions(text: string): string[] {
  return text
    .split(/\r?\n|;|\bthen\b/i)
    .map((action) => action.replace(/^\s*(\d+[.)]|[-*])\s*/, '').trim())
    .filter((action) => action.length > 0);
}

/** The plan without a model: the request's own actions, in order. */
export function literalPlan(text: string): PlanResult {
  const actions = splitActions(text);
  return {
    actions: actions.length > 0 ? actions : [text.trim() || 'Clarify the request'],
    methodology: 'WBS',
    methodology_rationale: 'No model is configured, so the request is split into its own steps (one per line, ";" or "then").',
  };
}
