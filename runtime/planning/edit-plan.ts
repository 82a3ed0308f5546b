import { InvalidModelOutputError } from '../core/errors/invalid-model-output-error.js';
import type { LlmConfig } from '../core/llm-config.js';
import type { ChatFormat, LanguageModel } from '../llm/language-model.js';
import { invoke } from '../llm/invoke.js';
import { cleanLlmJson } from './clean-llm-json.js';
import { normalizeReplyText } from './normalize-reply-text.js';
import { referencedSteps } from './plan-edits.js';
import { hasGrammarBounds, MAX_ACTION_CHARS } from './plan-output-schemas.js';
import { PlanResultSchema } from './plan-records.js';
import { fillPrompt, PLAN_EDIT_PROMPT, PLAN_EDIT_PROBLEM, PLAN_EDIT_SYSTEM } from './prompts.js';

/** Most steps an edited plan may have (as `PlanResultSchema`). */
const MAX_EDITED_ACTIONS = 50;

export interface EditPlanWithModelOptions {
  /** The plan's objective, as the person sees it. */
  objective: string;
  /** The current steps, in order. */
  actions: readonly string[];
  /** The change the person asked for, as written. */
  request: string;
  llmConfig: LlmConfig;
  /** What was wrong with the previous attempt, when retrying. */
  problem?: string;
  signal?: AbortSignal;
  /** A provider to call instead of the one `llmConfig` names (for example a scripted model in tests). */
  languageModel?: LanguageModel;
}

function editFormat(llmConfig: LlmConfig): ChatFormat {
  const bounded = hasGrammarBounds(llmConfig);
  return {
    type: 'object',
    properties: {
      actions: {
        type: 'array',
        items: bounded ? { type: 'string', minLength: 1, maxLength: MAX_ACTION_CHARS } : { type: 'string' },
        ...(bounded ? { minItems: 1, maxItems: MAX_EDITED_ACTIONS } : {}),
      },
    },
    required: ['actions'],
    additionalProperties: false,
  };
}

/**
 * Asks the model for the whole plan with the person's change made, under a
 * JSON schema (`{actions: string[]}`, a grammar on Ollama and our model
 * runtime). Resolves to the edited steps; rejects with
 * `InvalidModelOutputError` when the reply is not such a list. Whether the
 * model kept what it was not asked to change is the caller's check
 * (`lostSteps`).
 *
 * @example
 * const actions = await editPlanWithModel({ objective: 'Team offsite', actions: ['Pick a date', 'Book a room'], request: 'make it cheaper', llmConfig });
 */
export async function editPlanWithModel(options: EditPlanWithModelOptions): Promise<string[]> {
  const prompt = fillPrompt(PLAN_EDIT_PROMPT, {
    objective: options.objective,
    steps: options.actions.map((action, i) => `${i + 1}. ${action}`).join('\n'),
    request: options.request,
    problem: options.problem ? fillPrompt(PLAN_EDIT_PROBLEM, { problem: options.problem }) : '',
  });
  const reply = await invoke(options.llmConfig, prompt, {
    system: PLAN_EDIT_SYSTEM,
    format: editFormat(options.llmConfig),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.languageModel === undefined ? {} : { languageModel: options.languageModel }),
  });
  const parsed = PlanResultSchema.shape.actions.safeParse(cleanLlmJson(reply).actions);
  if (!parsed.success) throw new InvalidModelOutputError({ message: `The model did not return an edited plan: ${parsed.error.message}`, output: reply });
  return parsed.data;
}

const STOPWORDS = new Set(
  'the and for with from that this then into onto your their about after before over under step steps task paso pasos tarea para como con los las una unos unas del por que esta este'.split(
    ' ',
  ),
);

function contentWords(text: string): string[] {
  return normalizeReplyText(text)
    .split(' ')
    .filter((word) => word.length >= 4 && !STOPWORDS.has(word));
}

/**
 * The steps of `before` that `request` does not mention (by number, ordinal,
 * or a word of four letters or more they share) and that `after` dropped,
 * reworded or put out of their order: what a model may not change unasked.
 * Empty when the edit kept them all.
 *
 * @example
 * lostSteps(['Pick a date', 'Book a room', 'Send invites'], ['Pick a date', 'Book a cheap room'], 'make the room cheaper');
 * // ['Send invites']: the room was mentioned, the invites were not
 */
export function lostSteps(before: readonly string[], after: readonly string[], request: string): string[] {
  const named = referencedSteps(request, before.length);
  const asked = new Set(contentWords(request));
  const key = (action: string) => normalizeReplyText(action);
  const remaining = after.map(key);
  const lost: string[] = [];
  let cursor = 0;
  for (const [i, action] of before.entries()) {
    if (named.has(i + 1) || contentWords(action).some((word) => asked.has(word))) continue;
    const at = remaining.indexOf(key(action), cursor);
    if (at === -1) lost.push(action);
    else cursor = at + 1;
  }
  return lost;
}
