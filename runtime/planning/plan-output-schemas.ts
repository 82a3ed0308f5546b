import { z } from 'zod';
import type { LlmConfig } from '../core/llm-config.js';
import type { ChatFormat } from '../llm/language-model.js';
import { METHODOLOGIES, type Methodology } from './plan-records.js';

/** Most actions a generated plan may have. */
export const MAX_PLAN_ACTIONS = 10;
/**
 * Characters a grammar lets an action or a rationale run to (see
 * `hasGrammarBounds`). Ten actions at the cap fit the 2048-token default
 * context of our model runtime even when a small model degenerates into
 * repetition, so a reply is never cut off before its closing brace.
 */
export const MAX_ACTION_CHARS = 100;
const MAX_RATIONALE_CHARS = 200;

const NAME_BY_KEY = new Map<string, Methodology>(METHODOLOGIES.map((m) => [m.toLowerCase(), m]));

/** `Pólya`, `polya`, ` wbs ` → the canonical name; anything else stays as written (and fails the enum). */
function canonicalMethodology(name: string): string {
  const key = name
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .trim()
    .toLowerCase();
  return NAME_BY_KEY.get(key) ?? name;
}

/** The model's answer to methodology selection; names are matched ignoring case and accents. */
export const MethodologyReplySchema = z.object({
  methodology: z.string().transform(canonicalMethodology).pipe(z.enum(METHODOLOGIES)),
  rationale: z.string().trim(),
});

/** The model's plan: 1 to 10 non-empty actions, trimmed, in order. */
export const PlanActionsReplySchema = z.object({
  actions: z
    .array(z.string().trim().min(1, 'an action must not be empty'))
    .min(1, 'a plan needs at least one action')
    .max(MAX_PLAN_ACTIONS, `a plan has at most ${MAX_PLAN_ACTIONS} actions`),
});

/**
 * True for runtimes that enforce the `format` schema with a grammar (Ollama
 * and our model runtime), which honours length and count bounds. OpenAI's
 * strict structured outputs reject such keywords, so `openai` gets the
 * strict subset (every property required, no extra properties, no bounds)
 * and the bounds are checked by the zod schemas alone.
 */
export function hasGrammarBounds(llmConfig: LlmConfig): boolean {
  return llmConfig.provider === 'ollama';
}

/**
 * JSON schema `format` of methodology selection. With `bounded`, the
 * rationale is capped so a small model cannot ramble until its context is full.
 *
 * @example
 * await invoke(llmConfig, prompt, { format: methodologyFormat({ bounded: hasGrammarBounds(llmConfig) }) });
 */
export function methodologyFormat(options: { bounded: boolean }): ChatFormat {
  return {
    type: 'object',
    properties: {
      methodology: { type: 'string', enum: [...METHODOLOGIES] },
      rationale: options.bounded ? { type: 'string', maxLength: MAX_RATIONALE_CHARS } : { type: 'string' },
    },
    required: ['methodology', 'rationale'],
    additionalProperties: false,
  };
}

/**
 * JSON schema `format` of plan generation: `{actions: string[]}`; with
 * `bounded`, 1 to 10 actions of 1 to 100 characters.
 *
 * @example
 * await invoke(llmConfig, prompt, { format: planActionsFormat({ bounded: true }) });
 */
export function planActionsFormat(options: { bounded: boolean }): ChatFormat {
  const action = options.bounded ? { type: 'string', minLength: 1, maxLength: MAX_ACTION_CHARS } : { type: 'string' };
  return {
    type: 'object',
    properties: {
      actions: {
        type: 'array',
        items: action,
        ...(options.bounded ? { minItems: 1, maxItems: MAX_PLAN_ACTIONS } : {}),
      },
    },
    required: ['actions'],
    additionalProperties: false,
  };
}
