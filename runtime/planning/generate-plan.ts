import { z } from 'zod';
import { InvalidModelOutputError } from '../core/errors/invalid-model-output-error.js';
import type { LlmConfig } from '../core/llm-config.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { invoke } from '../llm/invoke.js';
import { cleanLlmJson } from './clean-llm-json.js';
import { listMethodologies, selectMethodology, type MethodologySelection } from './methodologies.js';
import { hasGrammarBounds, planActionsFormat, PlanActionsReplySchema } from './plan-output-schemas.js';
import { METHODOLOGIES, PlanResultSchema, type PlanResult } from './plan-records.js';
import { fillPrompt, PLAN_PAST_RESULTS, PLAN_PROMPT, PLAN_REPAIR_PROMPT, PLAN_SYSTEM } from './prompts.js';

/** Most characters of a bad reply sent back in the repair prompt. */
const MAX_REPAIR_ECHO = 4000;

export interface GeneratePlanOptions {
  /** What the user wants done. */
  query: string;
  llmConfig: LlmConfig;
  /** A methodology chosen already; without it `selectMethodology` picks one (WBS when that fails). */
  methodology?: MethodologySelection;
  /** Firing it stops the model calls; the call rejects with `AbortedError`. */
  signal?: AbortSignal;
  /** Where a repair attempt and a selection fallback are reported; default silent. */
  logger?: Logger;
  /** Results of related finished tasks (from system memory), shown to the model for reference. */
  pastResults?: readonly string[];
}

type Reading = { ok: true; actions: string[] } | { ok: false; problem: string; cause: unknown };

/** The actions in a reply, or what is wrong with it (for the repair prompt and the error). */
function readPlan(reply: string): Reading {
  let json: Record<string, unknown>;
  try {
    json = cleanLlmJson(reply);
  } catch (error) {
    if (error instanceof InvalidModelOutputError) return { ok: false, problem: error.reason, cause: error };
    throw error;
  }
  const parsed = PlanActionsReplySchema.safeParse(json);
  if (parsed.success) return { ok: true, actions: withoutRepeats(parsed.data.actions) };
  return { ok: false, problem: `the JSON does not match {"actions": [...]}: ${z.prettifyError(parsed.error)}`, cause: parsed.error };
}

/** At most this many past results, each cut to this many characters, go into the prompt. */
const MAX_PAST_RESULTS = 3;
const MAX_PAST_RESULT_CHARS = 500;

function pastResultsSection(pastResults: readonly string[]): string {
  const shown = pastResults.slice(0, MAX_PAST_RESULTS).map((r) => `- ${r.replace(/\s+/g, ' ').trim().slice(0, MAX_PAST_RESULT_CHARS)}`);
  return shown.length === 0 ? '' : `\n${fillPrompt(PLAN_PAST_RESULTS, { results: shown.join('\n') })}\n`;
}

function checkSelection(selection: MethodologySelection): void {
  if (!METHODOLOGIES.includes(selection.methodology) || typeof selection.rationale !== 'string') {
    throw new TypeError(`generatePlan({ methodology }) must name one of ${METHODOLOGIES.join(', ')} with a string rationale`);
  }
}

/**
 * Turns `query` into a plan: picks a methodology (unless given), then asks
 * the model for `{actions: string[]}` (1 to 10 ordered, concrete actions).
 *
 * Every request carries the JSON schema `format` (a grammar on Ollama and
 * our model runtime; `response_format: json_schema` on OpenAI-compatible
 * servers, which some of them ignore). The reply is read with `cleanLlmJson`
 * and validated with zod either way; when it fails, the bad reply is sent back
 * once with what was wrong, asking for valid JSON. If the repaired reply fails
 * too, it rejects with `InvalidModelOutputError` (`invalid_model_output`).
 *
 * Model failures of the plan call (`ModelRuntimeError`, `ModelNotFoundError`,
 * `AbortedError`) propagate; only methodology selection is best-effort.
 *
 * @example
 * const plan = await generatePlan({ query: 'Organise a team offsite', llmConfig: { provider: 'ollama', model: 'smollm2' } });
 * // → { actions: ['Pick a date', …], methodology: 'WBS', methodology_rationale: '…' }
 */
export async function generatePlan(options: GeneratePlanOptions): Promise<PlanResult> {
  const { query, llmConfig, signal, logger = silentLogger } = options;
  if (typeof query !== 'string' || query.trim() === '') {
    throw new TypeError('generatePlan({ query }) must be a non-empty string');
  }
  const callOptions = signal === undefined ? {} : { signal };
  const selection = options.methodology ?? (await selectMethodology(query, llmConfig, { ...callOptions, logger }));
  checkSelection(selection);

  const ask = (prompt: string) =>
    invoke(llmConfig, prompt, { system: PLAN_SYSTEM, format: planActionsFormat({ bounded: hasGrammarBounds(llmConfig) }), ...callOptions });

  const reply = await ask(
    fillPrompt(PLAN_PROMPT, {
      query,
      methodology: selection.methodology,
      description: listMethodologies()[selection.methodology],
      rationale: selection.rationale,
      past: pastResultsSection(options.pastResults ?? []),
    }),
  );
  let reading = readPlan(reply);
  let last = reply;
  if (!reading.ok) {
    logger.warn('plan generation: unusable reply, asking the model to repair it', { problem: reading.problem, reply });
    last = await ask(fillPrompt(PLAN_REPAIR_PROMPT, { query, problem: reading.problem, reply: reply.slice(0, MAX_REPAIR_ECHO) }));
    reading = readPlan(last);
  }
  if (!reading.ok) {
    throw new InvalidModelOutputError({
      message: `The model did not return a valid plan, even after one repair attempt: ${reading.problem}`,
      output: last,
      cause: reading.cause,
    });
  }
  return PlanResultSchema.parse({
    actions: reading.actions,
    methodology: selection.methodology,
    methodology_rationale: selection.rationale,
  });
}

/** The actions in order, without repeats (small models loop); compared ignoring case and spacing. */
function withoutRepeats(actions: readonly string[]): string[] {
  const seen = new Set<string>();
  return actions.filter((action) => {
    const key = action.toLowerCase().replace(/\s+/g, ' ').trim();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
