import { AbortedError } from '../core/errors/aborted-error.js';
import type { LlmConfig } from '../core/llm-config.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import { FrameworkError } from '../core/framework-error.js';
import { invoke } from '../llm/invoke.js';
import { cleanLlmJson } from './clean-llm-json.js';
import { hasGrammarBounds, methodologyFormat, MethodologyReplySchema } from './plan-output-schemas.js';
import type { Methodology } from './plan-records.js';
import { fillPrompt, METHODOLOGY_SELECTION_PROMPT, METHODOLOGY_SELECTION_SYSTEM } from './prompts.js';

/** The spec's methodology selection result. */
export interface MethodologySelection {
  methodology: Methodology;
  rationale: string;
}

/** The methodology used when selection fails. */
export const DEFAULT_METHODOLOGY: Methodology = 'WBS';

const DESCRIPTIONS: Readonly<Record<Methodology, string>> = Object.freeze({
  WBS:
    'Work Breakdown Structure: splits a project or deliverable into smaller work packages and tasks; ' +
    'fits undertakings with many parts to organise, such as events, moves, launches or builds.',
  SMART:
    'SMART goals (Specific, Measurable, Achievable, Relevant, Time-bound): turns a broad aim into a measurable goal ' +
    'with a deadline; fits personal or team objectives such as learning a skill, getting fit or growing a metric.',
  GTD:
    'Getting Things Done: captures open loops and turns each into a concrete next action; ' +
    'fits a pile of errands, chores or small to-dos that need sorting and doing.',
  Polya:
    "Pólya's four-step problem solving (understand the problem, devise a plan, carry it out, look back): " +
    'fits a well-defined problem to solve or explain, such as a maths question, a bug or a puzzle.',
});

/**
 * The methodologies a plan can follow, each with a one-sentence description
 * of what it is and when it fits (a fresh object on every call).
 *
 * @example
 * listMethodologies().GTD // 'Getting Things Done: captures open loops …'
 */
export function listMethodologies(): Record<Methodology, string> {
  return { ...DESCRIPTIONS };
}

export interface SelectMethodologyOptions {
  /** Firing it stops the model call; `selectMethodology` then rejects with `AbortedError`. */
  signal?: AbortSignal;
  /** Where a fallback is reported (`warn`); default silent. */
  logger?: Logger;
}

function fallback(reason: string): MethodologySelection {
  return {
    methodology: DEFAULT_METHODOLOGY,
    rationale: `${DEFAULT_METHODOLOGY} is the default methodology, used because methodology selection failed (${reason}).`,
  };
}

/** A short, user-safe reason for a fallback (the details go to the log). */
function failureReason(error: unknown): string {
  if (FrameworkError.isInstance(error)) {
    if (error.code === 'invalid_model_output') return 'the model reply held no JSON object';
    if (error.code.startsWith('model_')) return 'the model could not be reached or answered with an error';
  }
  return 'the model call failed';
}

/**
 * Asks the model which methodology fits `query`, with a JSON schema `format`
 * (`{methodology: enum, rationale: string}`) and zod validation of the reply.
 *
 * Best-effort, as the spec asks: when the model is unreachable or errs, the
 * reply holds no JSON object, or it names no known methodology, it resolves
 * to WBS with a rationale saying selection failed, and logs a warning.
 * Names are matched ignoring case and accents (`polya`, `Pólya`).
 *
 * The one exception: when the caller's `signal` fires it rejects with
 * `AbortedError` instead, because the caller asked to stop, and a WBS answer
 * would let it go on working.
 *
 * @example
 * const { methodology, rationale } = await selectMethodology('Organise a team offsite', llmConfig);
 */
export async function selectMethodology(query: string, llmConfig: LlmConfig, options: SelectMethodologyOptions = {}): Promise<MethodologySelection> {
  const { signal, logger = silentLogger } = options;
  const methodologies = Object.entries(DESCRIPTIONS)
    .map(([name, description]) => `- ${name}: ${description}`)
    .join('\n');
  let reply: string | undefined;
  try {
    reply = await invoke(llmConfig, fillPrompt(METHODOLOGY_SELECTION_PROMPT, { methodologies, query: String(query) }), {
      system: METHODOLOGY_SELECTION_SYSTEM,
      format: methodologyFormat({ bounded: hasGrammarBounds(llmConfig) }),
      ...(signal === undefined ? {} : { signal }),
    });
    const parsed = MethodologyReplySchema.safeParse(cleanLlmJson(reply));
    if (!parsed.success) {
      logger.warn('methodology selection: unusable reply, using the default', { issues: parsed.error.issues, reply });
      return fallback('the model named no known methodology');
    }
    const { methodology, rationale } = parsed.data;
    return { methodology, rationale: rationale || `The model chose ${methodology} without giving a reason.` };
  } catch (error) {
    if (signal?.aborted) throw FrameworkError.isInstance(error) && error.code === 'aborted' ? error : new AbortedError({ cause: signal.reason });
    logger.warn('methodology selection failed, using the default', { ...errorFields(error), reply });
    return fallback(failureReason(error));
  }
}
