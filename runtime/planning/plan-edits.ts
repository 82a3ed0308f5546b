import { EDIT_VERBS, RULES, type RuleContext } from './plan-edit-rules.js';
import type { ParsedPlanEdits, PlanEdit, StepQuestion } from './plan-edit-types.js';
import { resolveStepReference } from './step-references.js';

export { applyPlanEdits } from './apply-plan-edits.js';
export type { ApplyResult, EditedPlan, ParsedPlanEdits, PlanEdit, StepPosition, StepQuestion } from './plan-edit-types.js';

/**
 * Plan edits a person writes, in English or Spanish, parsed without a model.
 *
 * Understood forms (each also in Spanish, and several in one reply joined by
 * "and", "then", ",", ";", "y", "luego"...):
 * - change / replace / update X (to | with | by) …; X should be …; make step N …; instead of X, …; … instead of X
 * - remove / delete / drop / skip / scrap / get rid of / take out X; X can go; no X
 * - add … (at the start | at the end | before X | after X | between X and Y); add … first / last
 * - move X (before | after) Y; move X to the start / end; put X first / last; X before Y
 * - swap X and Y; exchange X with Y
 * - rename the objective to …
 * X names steps as people do (see `resolveStepReference`): "step 2", "the
 * second", "the last one", "steps 1 and 3", "2-4", "the first and the last",
 * "the flights one", "renting the car", "lo del seguro". Every number refers
 * to the plan as the person saw it, whatever the order of the edits.
 */

const VERBS = EDIT_VERBS.map((verb) => verb.replace(/ /g, '\\s+')).join('|');
const CLAUSE_SPLIT = new RegExp(
  `\\s*(?:[;\\n]+|\\.\\s+|,?\\s+(?:and\\s+|y\\s+)?(?=(?:also|plus|tambien|ademas)\\s)|,?\\s+(?:and\\s+then|and\\s+also|and|then|also|plus|y\\s+luego|y\\s+despues|y\\s+ademas|y\\s+tambien|y|e|luego|despues|ademas|tambien)\\s+(?=(?:${VERBS})\\b)|,\\s*(?=(?:${VERBS})\\b))\\s*`,
  'g',
);
/** "instead of X, Y" is one clause even when Y starts with a verb. */
const INSTEAD_HEAD = /^\s*(?:\W+\s*)?(?:instead\s+of|in\s+place\s+of|rather\s+than|en\s+(?:vez|lugar)\s+del?)\b[^,]*$/;
const LEADING_WRAPPER = new RegExp(
  `^(?:(?:ok|okay|yes|yeah|yep|sure|no|nope|well|hmm|great|good|perfect|fine|actually|si|vale|bueno|perfecto|claro|pues|mmm|oye|mira)\\b[\\s,.!:-]*|(?:but|pero|and|y|also|tambien|ademas|then|luego|please|por\\s+favor|kindly|can\\s+you|could\\s+you|would\\s+you|will\\s+you|can\\s+we|could\\s+we|we\\s+can|you\\s+can|i\\s+want\\s+you\\s+to|i\\s+want\\s+to|i\\s+want|i\\s+would\\s+like\\s+to|i\\s+d\\s+like\\s+to|id\\s+like\\s+to|i\\s+d\\s+rather|i\\s+would\\s+rather|i\\s+wanna|i\\s+need\\s+you\\s+to|we\\s+need\\s+to|we\\s+should|let\\s+s|lets|let\\s+us|just|puedes|podrias|podemos|quiero\\s+que|quiero|quisiera|me\\s+gustaria|prefiero|necesito\\s+que|hay\\s+que|vamos\\s+a|mejor)\\s+)`,
);
const TRAILING_WRAPPER = /(?:[\s,]+(?:please|pls|thanks|thank\s+you|por\s+favor|gracias))+[\s.!?]*$|[\s.!?]+$/i;
/** Longer clauses are not read (the rules' patterns backtrack, so their cost grows with the clause); they are returned as unplaced. */
const MAX_CLAUSE_CHARS = 160;
/** A longer reply is a description, not a list of edits: returned whole as unplaced, unread. */
const MAX_REPLY_CHARS = 1_000;

/**
 * Lower case with accents and apostrophes folded, character by character, so
 * that indices in the folded text are indices in the original (the edit text
 * is cut from the original, with its casing and accents).
 */
function fold(text: string): string {
  let out = '';
  for (const char of text) {
    const folded = char
      .toLowerCase()
      .normalize('NFD')
      .replace(/\p{M}/gu, '')
      .replace(/['\u2018\u2019\u02BC`\u00B4]/, ' ');
    out += folded.length === char.length ? folded : char.length === 1 ? '\u0000' : char;
  }
  return out;
}

/** Quotes and trailing punctuation taken off an edit's text. */
function cleanText(text: string): string {
  return text
    .trim()
    .replace(/^[:=\-–]\s*/, '')
    .replace(/^["'“”‘’«»]+|["'“”‘’«»]+$/g, '')
    .replace(/[\s,;:.!]+$/, '')
    .replace(/\s+(?:instead|en\s+su\s+lugar|en\s+vez\s+de\s+eso|mejor)$/i, '')
    .trim();
}

/**
 * Reads the edits in a reply to a pending plan. Pure and deterministic.
 * With `actions` (the steps as the person saw them), steps may be named by
 * their content; without, only by number and position. Clauses it cannot
 * read are returned in `unplaced` as written; a step named by content that
 * matches several steps, or none where only a step can be meant ("remove the
 * boat"), is returned in `questions` with its candidates (the caller asks
 * which, and applies nothing).
 *
 * @example
 * parsePlanEdits('change step 2 to book a big hall', { steps: 3 });
 * // { edits: [{ op: 'replace', step: 2, text: 'book a big hall' }], unplaced: [], questions: [] }
 * parsePlanEdits('quita lo del coche y pon el hotel primero', { steps: 4, actions: ['Book flights', 'Reserve hotel', 'Rent a car', 'Buy travel insurance'] }).edits;
 * // [{ op: 'remove', step: 3 }, { op: 'move', step: 2, position: { at: 'start' } }]
 */
export function parsePlanEdits(reply: string, options: { steps: number; actions?: readonly string[] }): ParsedPlanEdits {
  const actions = options.actions ?? Array.from({ length: Math.max(0, Math.min(options.steps, 1000)) }, () => '');
  const edits: PlanEdit[] = [];
  const unplaced: string[] = [];
  const questions: StepQuestion[] = [];
  if (reply.length > MAX_REPLY_CHARS) return { edits, unplaced: [reply.trim()], questions };
  const folded = fold(reply);
  for (const [start, end] of clauses(folded)) {
    let from = start;
    let to = end;
    const trailing = TRAILING_WRAPPER.exec(folded.slice(from, to));
    if (trailing) to -= trailing[0].length;
    while (from < to && /\s/.test(folded[from] ?? '')) from += 1;
    if (from >= to) continue;
    const { reading, question, empty } = readWrapped({ folded, reply, from, to, actions });
    if (reading.edits) edits.push(...reading.edits);
    else if (question) questions.push(question);
    else if (!empty) unplaced.push(reply.slice(start, end).replace(TRAILING_WRAPPER, '').trim());
  }
  return { edits, unplaced, questions };
}

/**
 * Reads the clause `folded[from, to)` as written first; then without one
 * leading wrapper ("yes but", "please", "quiero") at a time. `empty` when
 * the wrappers were all there was.
 */
function readWrapped(input: { folded: string; reply: string; from: number; to: number; actions: readonly string[] }): {
  reading: ClauseReading;
  question: StepQuestion | undefined;
  empty: boolean;
} {
  const { folded, reply, to, actions } = input;
  let from = input.from;
  let question: StepQuestion | undefined;
  for (;;) {
    const at = from;
    const reading = to - at > MAX_CLAUSE_CHARS ? { edits: null } : readClause(folded.slice(at, to), (s, e) => reply.slice(at + s, at + e), actions);
    question = reading.question ?? question;
    if (reading.edits || reading.ambiguous) return { reading, question, empty: false };
    const wrapper = LEADING_WRAPPER.exec(folded.slice(from, to));
    if (!wrapper || wrapper[0].length === 0) return { reading, question, empty: false };
    from += wrapper[0].length;
    if (from >= to) return { reading, question, empty: true };
  }
}

/** The clauses of a folded reply, as [start, end) spans; "instead of X," keeps what follows. */
function clauses(folded: string): [number, number][] {
  const spans: [number, number][] = [];
  let cursor = 0;
  for (const boundary of folded.matchAll(CLAUSE_SPLIT)) {
    spans.push([cursor, boundary.index]);
    cursor = boundary.index + boundary[0].length;
  }
  spans.push([cursor, folded.length]);
  const merged: [number, number][] = [];
  for (const span of spans) {
    const previous = merged.at(-1);
    if (previous && INSTEAD_HEAD.test(folded.slice(previous[0], previous[1]))) previous[1] = span[1];
    else merged.push([...span]);
  }
  return merged;
}

interface ClauseReading {
  /** The edits the clause makes, or null when no form reads it. */
  edits: PlanEdit[] | null;
  /** A step named by content that is not one step: asked about instead of the clause. */
  question?: StepQuestion;
  /** The question is about several candidates: no other form may read the clause instead. */
  ambiguous?: boolean;
}

function readClause(clause: string, written: (start: number, end: number) => string, actions: readonly string[]): ClauseReading {
  const original = (start: number, end: number) => cleanText(written(start, end));
  let question: StepQuestion | undefined;
  let ambiguous: StepQuestion | undefined;
  for (const { pattern, build } of RULES) {
    const match = pattern.exec(clause);
    if (!match) continue;
    const spans = match.indices ? [...match.indices] : [];
    const context: RuleContext = {
      text: (group) => {
        const span = spans[group];
        return span === undefined ? '' : original(span[0], span[1]);
      },
      raw: (group) => match[group],
      ref: (group, options = {}) => {
        const span = spans[group];
        if (span === undefined) return null;
        const resolved = resolveStepReference(original(span[0], span[1]), { actions, ...(options.strict ? { strict: true } : {}) });
        if (resolved === null) return null;
        if (resolved.kind === 'unclear') {
          const asked = {
            reference: asWritten(clause.slice(span[0], span[1]), written(span[0], span[1]), resolved.reference),
            candidates: resolved.candidates,
          };
          if (resolved.candidates.length > 1) ambiguous ??= asked;
          else if (options.asks && actions.some((action) => action !== '')) question ??= asked;
          return null;
        }
        if (options.single && resolved.steps.length !== 1) return null;
        return resolved.steps;
      },
    };
    const edits = build(context);
    if (ambiguous) return { edits: null, question: ambiguous, ambiguous: true };
    if (edits && edits.length > 0) return { edits };
  }
  return question ? { edits: null, question } : { edits: null };
}

/**
 * The words `reference` (normalised) as the person wrote them inside a
 * captured span: "the hotel" of "step 3 and the hotel", with its accents.
 */
function asWritten(foldedSpan: string, originalSpan: string, reference: string): string {
  const at = foldedSpan.indexOf(reference);
  return at === -1 ? reference : originalSpan.slice(at, at + reference.length);
}

/**
 * The steps (1-based) a text names by number or position ("step 2", "the
 * last step", "el tercer paso", "steps 1 and 3"), among a plan of `total` steps.
 *
 * @example
 * referencedSteps('make step 2 cheaper and drop the last one', 4); // Set {2, 4}
 */
export function referencedSteps(text: string, total: number): Set<number> {
  const found = new Set<number>();
  const actions = Array.from({ length: Math.max(0, Math.min(total, 1000)) }, () => '');
  // Overlapping candidates ("make step 2", "step 2"), each resolved by position only.
  const candidates =
    /(?=\b((?:(?:the|el|la|los|las)\s+)?(?:(?:steps?|tasks?|pasos?|tareas?)\s+(?:(?:number|numero)\s+)?\S+(?:\s+(?:and|y|to|al|through)\s+\d+)?|\S+\s+(?:step|one|paso|tarea|task)|(?:el|la)\s+\S+)))/g;
  for (const match of fold(text).replace(/#/g, ' ').matchAll(candidates)) {
    const resolved = resolveStepReference(match[1] ?? '', { actions });
    if (resolved?.kind !== 'steps') continue;
    for (const step of resolved.steps) if (step >= 1 && step <= total) found.add(step);
  }
  return found;
}
