/** How a `result` is best shown to a person. */
export type ResultView =
  /** `{answer, sources?}`: the answer as text, the sources as a list. */
  | { readonly kind: 'answer'; readonly answer: string; readonly sources: readonly string[] }
  /** `{actions, outcomes}` (what the planner returns): one row per action. */
  | { readonly kind: 'actions'; readonly rows: readonly { readonly action: string; readonly outcome: string }[] }
  /** Anything else: the data itself, pretty-printed. */
  | { readonly kind: 'json'; readonly json: string };

/**
 * Picks the view of a result's data: an `answer` (string) with optional
 * `sources`, `actions` with their `outcomes` (two arrays), or JSON.
 *
 * @example
 * resultViewOf({ actions: ['book flights'], outcomes: ['Done'] }); // { kind: 'actions', rows: [{ action: 'book flights', outcome: 'Done' }] }
 */
export function resultViewOf(data: Readonly<Record<string, unknown>>): ResultView {
  if (typeof data.answer === 'string') {
    return { kind: 'answer', answer: data.answer, sources: Array.isArray(data.sources) ? data.sources.map(describe) : [] };
  }
  if (Array.isArray(data.actions) && Array.isArray(data.outcomes)) {
    const outcomes = data.outcomes;
    return {
      kind: 'actions',
      rows: data.actions.map((action, i) => ({ action: describe(action), outcome: i < outcomes.length ? describe(outcomes[i]) : '—' })),
    };
  }
  return { kind: 'json', json: JSON.stringify(data, null, 2) };
}

/** A value as one line: strings as they are, anything else as JSON. */
function describe(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
}
