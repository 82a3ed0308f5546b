import { isPlainObject } from '../core/json.js';
import { parseTaskInput } from '../core/task-input.js';
import { CONFIRMATION_VOCABULARY, NUMBER_PLACEHOLDER } from './confirmation-vocabulary.js';
import { normalizeReplyText } from './normalize-reply-text.js';
import { parsePlanEdits } from './plan-edits.js';
import { readDecision, readReasonedRejection, replyTokens, type ReplyDecision } from './reply-grammar.js';
import {
  AWAITING_MODIFICATION_KEY,
  PENDING_PLAN_KEY,
  PLAN_CONFIRM_APPROVE,
  PLAN_CONFIRM_MODIFY,
  PLAN_CONFIRM_REJECT,
  PendingPlanSchema,
  type PendingPlan,
  type PlanConfirmationClass,
  type PlanConfirmationResult,
} from './plan-records.js';

/** How long a pending plan stays answerable by default: one hour from its `created_at`. */
export const DEFAULT_MAX_PLAN_AGE_MS = 60 * 60 * 1000;

/** Options of {@link classifyPlanConfirmationReply}. */
export interface ClassifyPlanConfirmationOptions {
  /** Current time in epoch milliseconds; defaults to `Date.now()` (the function's only impurity). */
  now?: number;
  /** Age after which a pending plan counts as gone; defaults to {@link DEFAULT_MAX_PLAN_AGE_MS}. */
  maxPlanAgeMs?: number;
}

const SENTINEL_CLASSES: Readonly<Record<string, PlanConfirmationClass>> = {
  [PLAN_CONFIRM_APPROVE]: 'plan_confirmed',
  [PLAN_CONFIRM_REJECT]: 'plan_rejected',
  [PLAN_CONFIRM_MODIFY]: 'plan_modify_requested',
};
const SENTINEL_PATTERN = new RegExp(`^(${Object.keys(SENTINEL_CLASSES).join('|')})(?:\\s+(\\S+))?$`);

/** ISO-8601 date or date-time; a date-time without an offset is read as UTC so the result never depends on the host's time zone. */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}(?:([Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|z|[+-]\d{2}:\d{2})?)?$/;

const DECISION_CLASSES: Readonly<Record<ReplyDecision, PlanConfirmationClass>> = {
  approve: 'plan_confirmed',
  reject: 'plan_rejected',
  modify: 'plan_modify_requested',
  unclear: 'plan_unclear',
};

const NUMBER_WORDS: ReadonlySet<string> = new Set(Object.values(CONFIRMATION_VOCABULARY.number_word).flat().map(normalizeReplyText));

/** Cue patterns as token lists, indexed by their first token; `#` is kept as a placeholder token. */
const CUES_BY_FIRST_TOKEN: ReadonlyMap<string, ReadonlyArray<readonly string[]>> = (() => {
  const index = new Map<string, string[][]>();
  for (const cue of Object.values(CONFIRMATION_VOCABULARY.modification_cue).flat()) {
    const tokens = cue
      .split(/\s+/)
      .flatMap((word) => (word === NUMBER_PLACEHOLDER ? [word] : normalizeReplyText(word).split(' ')))
      .filter((token) => token.length > 0);
    const first = tokens[0];
    if (first === undefined || first === NUMBER_PLACEHOLDER) continue;
    index.set(first, [...(index.get(first) ?? []), tokens]);
  }
  return index;
})();

/**
 * Classifies a user's reply to a pending plan. Pure: no I/O, no model, no
 * timers; deterministic for the same arguments, and it never throws (anything
 * unexpected yields `null`). The only impurity is the default of `options.now`,
 * which is `Date.now()`; pass `now` to make the call fully deterministic.
 *
 * Returns `null` ("a brand-new request") when the session context holds no
 * valid pending plan (missing, failing `PendingPlanSchema`, `created_at` not an
 * ISO-8601 time, or older than `maxPlanAgeMs`), when the query carries no
 * text, or when the reply is not about the plan. Otherwise the result carries
 * the (schema-parsed) `pending_plan` and its `original_query`.
 *
 * Rules, in order:
 * 1. A sentinel (`PLAN_CONFIRM_APPROVE|REJECT|MODIFY`, exact, after trimming),
 *    optionally followed by whitespace and a plan id, which is returned as
 *    `referenced_plan_id` (the caller compares it with the pending plan's).
 * 2. A reply made only of decision pieces (see `readDecision` and
 *    `REPLY_GRAMMAR`: idioms, verb phrases with their inflections, clitics,
 *    objects, subject and modal frames and negation, hedges, fillers and
 *    emoji, in English, Spanish or both) gets their decision:
 *    `plan_confirmed` ("yes please go ahead", "Dale, ejecútalo", "👍"),
 *    `plan_rejected` ("I turn this plan down", "rechazo esta propuesta", "don't run it"),
 *    `plan_modify_requested` ("I want to make a few changes", "quisiera ajustar algunas cosas"),
 *    `plan_unclear` ("not yet", "I'm not sure", "todavía no", "yes no").
 *    A leading dismissal takes back a change: "forget it, just go ahead" approves.
 * 3. A rejection with its reason, without a modification cue ("no, we found
 *    another way", "no, ya lo resolví") is `plan_rejected`; when the reason
 *    holds an approving or hedging word ("no, we'll do it ourselves") it is
 *    `plan_unclear`, never an approval. While a change is awaited, the reason
 *    must read as one ("anymore", "already", "ya", "otra forma"...).
 * 4. Otherwise, with `awaiting_plan_modification === true` in the context, any
 *    non-empty reply is `plan_modify_feedback` (even without a cue).
 * 5. Otherwise a reply containing a modification cue, or one that reads as an
 *    edit of this plan's steps ("put the catering first", "el seguro sobra"),
 *    is `plan_modify_feedback`.
 * 6. Anything else is `null`.
 * `feedback` is the reply text trimmed, with its original casing and accents.
 *
 * Decided cases:
 * - "no, change step 2 to use email" → feedback (a "no" followed by changes is not a rejection).
 * - "yes but add a review step" / "sí pero quita el paso 3" → feedback (a "yes" with changes is not an approval).
 * - "what's the weather in Paris?", "book a flight to Rome" → `null`: a new request; the caller plans it afresh.
 * - A new request that happens to contain a cue verb ("add milk to my list") reads as feedback: cues win.
 * - While awaiting feedback, a bare change request ("change it", `PLAN_CONFIRM_MODIFY`) stays
 *   `plan_modify_requested` (the caller asks again) rather than becoming the feedback "change it".
 * - A reply that normalises to nothing ("", "!!!") is `null`, even while awaiting feedback.
 * - A query that is not text: a JSON string or object with a string `text` is read
 *   with `parseTaskInput`; numbers and booleans are stringified; anything else is `null`.
 *
 * @example
 * const context = { pending_plan: { plan_id: 'p1', created_at: '2025-01-01T10:00:00Z', original_query: 'plan a trip',
 *   actions: ['book hotel'], methodology: 'GTD', methodology_rationale: '' } };
 * const now = Date.parse('2025-01-01T10:05:00Z');
 * classifyPlanConfirmationReply('Sí, adelante!!', context, { now })?.classification; // 'plan_confirmed'
 * classifyPlanConfirmationReply('PLAN_CONFIRM_APPROVE p1', context, { now })?.referenced_plan_id; // 'p1'
 * classifyPlanConfirmationReply('yes but add a review step', context, { now })?.feedback; // 'yes but add a review step'
 * classifyPlanConfirmationReply('book a flight to Rome', context, { now }); // null
 */
export function classifyPlanConfirmationReply(
  query: unknown,
  sessionContext: Readonly<Record<string, unknown>>,
  options: ClassifyPlanConfirmationOptions = {},
): PlanConfirmationResult | null {
  try {
    return classify(query, sessionContext, options);
  } catch {
    // Hostile inputs (throwing getters, proxies) must not break the caller: no classification.
    return null;
  }
}

function classify(query: unknown, sessionContext: Readonly<Record<string, unknown>>, options: ClassifyPlanConfirmationOptions): PlanConfirmationResult | null {
  if (!isPlainObject(sessionContext)) return null;
  const opts: ClassifyPlanConfirmationOptions = isPlainObject(options) ? options : {};
  const now = typeof opts.now === 'number' && Number.isFinite(opts.now) ? opts.now : Date.now();
  const maxAge = typeof opts.maxPlanAgeMs === 'number' && opts.maxPlanAgeMs >= 0 ? opts.maxPlanAgeMs : DEFAULT_MAX_PLAN_AGE_MS;
  const plan = readPendingPlan(sessionContext[PENDING_PLAN_KEY], now, maxAge);
  if (plan === null) return null;
  const text = replyText(query);
  if (text === null) return null;

  const reply = text.trim();
  const result = (classification: PlanConfirmationClass, extra: Partial<PlanConfirmationResult> = {}): PlanConfirmationResult => ({
    classification,
    pending_plan: plan,
    original_query: plan.original_query,
    ...extra,
  });

  const sentinel = SENTINEL_PATTERN.exec(reply);
  const sentinelClass = sentinel?.[1] === undefined ? undefined : SENTINEL_CLASSES[sentinel[1]];
  if (sentinel && sentinelClass) {
    const planId = sentinel[2];
    return result(sentinelClass, planId === undefined ? {} : { referenced_plan_id: planId });
  }

  const clauses = replyTokens(reply);
  const tokens = clauses.filter((token) => token !== ',');
  if (tokens.length === 0) return null;

  const decision = readDecision(clauses);
  if (decision !== null) return result(DECISION_CLASSES[decision]);
  const awaitingChange = sessionContext[AWAITING_MODIFICATION_KEY] === true;
  const cue = hasModificationCue(tokens) || namesPlanEdit(reply, plan);
  if (!cue) {
    const rejection = readReasonedRejection(clauses, { awaitingChange });
    if (rejection !== null) return result(DECISION_CLASSES[rejection]);
  }
  if (awaitingChange || cue) {
    return result('plan_modify_feedback', { feedback: reply });
  }
  return null;
}

/** The pending plan when it is valid and young enough, else null. */
function readPendingPlan(value: unknown, now: number, maxAgeMs: number): PendingPlan | null {
  const parsed = PendingPlanSchema.safeParse(value);
  if (!parsed.success) return null;
  const createdAt = parseIsoTimestamp(parsed.data.created_at);
  if (createdAt === null || now - createdAt > maxAgeMs) return null;
  return parsed.data;
}

function parseIsoTimestamp(value: string): number | null {
  const match = ISO_TIMESTAMP.exec(value.trim());
  if (!match) return null;
  const [, time, zone] = match;
  const parsed = Date.parse(time !== undefined && zone === undefined ? `${value.trim()}Z` : value.trim());
  return Number.isNaN(parsed) ? null : parsed;
}

/** The reply text of a query, or null when it carries none. */
function replyText(query: unknown): string | null {
  if (typeof query === 'number' || typeof query === 'boolean' || typeof query === 'bigint') return String(query);
  try {
    return parseTaskInput(query).text;
  } catch {
    return typeof query === 'string' ? query : null;
  }
}

/**
 * Whether the reply reads as an edit of this plan ("put the catering first",
 * "el seguro sobra"), or names its steps so that only a question can settle
 * which ("remove the hotel" with two hotel steps, "delete the boat"). A
 * reference that need not be a step does not count: "cancel my gym
 * membership" is a request.
 */
function namesPlanEdit(reply: string, plan: PendingPlan): boolean {
  const parsed = parsePlanEdits(reply, { steps: plan.actions.length, actions: plan.actions });
  return (
    parsed.edits.length > 0 || parsed.questions.some((question) => question.candidates.length > 1 || NAMES_A_STEP.test(normalizeReplyText(question.reference)))
  );
}

/** A reference that can only mean something already in the plan ("the boat", "the boat step", "lo del barco"), unlike "my gym membership". */
const NAMES_A_STEP = /^(?:the|el|la|los|las|lo|this|that|ese|esa|este|esta)\b|\b(?:one|step|task|paso|tarea|part|parte)\b/;

function hasModificationCue(tokens: readonly string[]): boolean {
  return tokens.some((token, start) =>
    (CUES_BY_FIRST_TOKEN.get(token) ?? []).some((cue) => cue.every((cueToken, offset) => tokenMatches(tokens[start + offset], cueToken))),
  );
}

function tokenMatches(token: string | undefined, cueToken: string): boolean {
  if (token === undefined) return false;
  if (cueToken !== NUMBER_PLACEHOLDER) return token === cueToken;
  return /^\d+$/.test(token) || NUMBER_WORDS.has(token);
}
