/**
 * The prompts of the planning flow. Templates name their slots `{slot}`;
 * `fillPrompt` fills them. The user's request is always fenced in `"""` so
 * the model reads it as data, not as instructions. Reply shapes are described
 * in words, never as a JSON sample: small models copy a sample verbatim,
 * placeholders and all (the `format` schema enforces the shape anyway).
 */

/** System prompt of methodology selection. */
export const METHODOLOGY_SELECTION_SYSTEM =
  'You pick the planning methodology that best fits a request. ' +
  'Answer with a single JSON object and nothing else, with two keys: ' +
  '"methodology" (one of the listed names, spelled exactly) and "rationale" (one short sentence saying why it fits).';

/** Slots: `methodologies` (one `- NAME: description` line each), `query`. */
export const METHODOLOGY_SELECTION_PROMPT = `Methodologies:
{methodologies}

Request:
"""
{query}
"""

Which methodology fits this request best? Reply with a JSON object only: "methodology" is the name from the list, "rationale" says in one sentence why it fits this request.`;

/** System prompt of plan generation (first attempt and repair). */
export const PLAN_SYSTEM =
  'You turn a request into a short plan of concrete actions, in the order they should be done. ' +
  'Answer with a single JSON object and nothing else, with one key, "actions": the list of actions as strings.';

/** Slots: `query`, `methodology`, `description`, `rationale`, `past` (empty, or PLAN_PAST_RESULTS filled). */
export const PLAN_PROMPT = `Request:
"""
{query}
"""

Methodology: {methodology} ({description})
Why this methodology: {rationale}
{past}
Write the plan for this request following this methodology: 1 to 10 actions, each a short, concrete, imperative sentence about this request (under 100 characters), first action first.
Reply with a JSON object only, whose key "actions" holds the actions as a list of strings.`;

/** Slot: `results` (one "- ..." line per related finished task). */
export const PLAN_PAST_RESULTS = `Results of related tasks done before (for reference: reuse what helps, do not redo finished work unless asked):
{results}`;

/** Slots: `query`, `problem` (what was wrong), `reply` (the previous reply). */
export const PLAN_REPAIR_PROMPT = `Request:
"""
{query}
"""

Your previous plan for this request could not be used: {problem}

Previous reply:
"""
{reply}
"""

Rewrite it as one valid JSON object whose only key, "actions", holds 1 to 10 non-empty strings, first action first.
Reply with the JSON object only: no prose, no code fences.`;

/**
 * Fills the `{slot}` placeholders of `template` in one pass: text inserted
 * for a slot is never searched for further slots, and a slot without a value
 * is left as it is.
 *
 * @example
 * fillPrompt(PLAN_REPAIR_PROMPT, { query: 'Organise a team offsite', problem: 'no JSON object', reply: 'Sure!' });
 */
export function fillPrompt(template: string, values: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (slot, name: string) => (Object.hasOwn(values, name) ? values[name]! : slot));
}

/** System prompt of a plan edit the parser could not place. */
export const PLAN_EDIT_SYSTEM =
  'You edit an existing plan as a person asks. Change only what they ask for: keep every other step word for word and in its order. ' +
  'Answer with a single JSON object and nothing else, with one key, "actions": the whole edited plan as a list of strings.';

/** Slots: `objective`, `steps` (numbered lines), `request`, `problem` (empty, or PLAN_EDIT_PROBLEM filled). */
export const PLAN_EDIT_PROMPT = `Objective: {objective}

Current plan:
{steps}

The person asks:
"""
{request}
"""
{problem}
Reply with the whole edited plan as a JSON object whose key "actions" holds every step, first step first. Steps the person did not mention stay exactly as they are.`;

/** Slot: `problem` (what the previous attempt did wrong). */
export const PLAN_EDIT_PROBLEM = `
Your previous answer could not be used: {problem}`;
