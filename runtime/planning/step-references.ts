import { normalizeReplyText } from './normalize-reply-text.js';
import { sameWord, stepWords, type StepWord } from './step-words.js';

/**
 * How a person names steps of a plan, resolved against the plan's step
 * texts: by number ("step 2", "paso #3", "2"), ordinal ("the second",
 * "el tercero", "the last one", "el penúltimo"), several at once ("steps 1
 * and 3", "2-4", "los pasos 3 y 4", "the first and the last", "the first
 * two"), or by content ("the flights one", "the step about the hotel",
 * "renting the car", "lo del seguro"), in English or Spanish.
 */
export type StepReference =
  /** The steps named (1-based, as the person saw the plan), in the order written. */
  | { kind: 'steps'; steps: number[] }
  /** A content reference that matches several steps (`candidates`) or none (empty): the person must say which. */
  | { kind: 'unclear'; reference: string; candidates: number[] };

export interface ResolveStepReferenceOptions {
  /** The plan's steps as the person saw them. */
  actions: readonly string[];
  /**
   * Accept a content reference only when every one of its words is in the
   * step (for verbs that may also add a step: "put a car wash at the end" adds,
   * "put the car first" moves).
   */
  strict?: boolean;
}

const CARDINALS: Readonly<Record<string, number>> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  uno: 1, una: 1, dos: 2, tres: 3, cuatro: 4, cinco: 5, seis: 6, siete: 7, ocho: 8, nueve: 9, diez: 10, once: 11, doce: 12,
}; // prettier-ignore
const ORDINALS: Readonly<Record<string, number>> = {
  first: 1, second: 2, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10, top: 1, opening: 1,
  primer: 1, primero: 1, primera: 1, segundo: 2, segunda: 2, tercer: 3, tercero: 3, tercera: 3, cuarto: 4, cuarta: 4,
  quinto: 5, quinta: 5, sexto: 6, sexta: 6, septimo: 7, septima: 7, octavo: 8, octava: 8, noveno: 9, novena: 9, decimo: 10, decima: 10,
}; // prettier-ignore
/** Ordinals counted from the end: 0 is the last step. */
const FROM_END: Readonly<Record<string, number>> = {
  last: 0, final: 0, bottom: 0, closing: 0, ultimo: 0, ultima: 0,
  'second to last': 1, 'next to last': 1, 'second last': 1, 'last but one': 1, penultimate: 1, penultimo: 1, penultima: 1,
  'third to last': 2, antepenultimate: 2, antepenultimo: 2, antepenultima: 2,
}; // prettier-ignore

const ORDINAL_WORDS = [...Object.keys(FROM_END), ...Object.keys(ORDINALS)].sort((a, b) => b.length - a.length).join('|');
const NUMBER_WORDS = Object.keys(CARDINALS).join('|');
/** Words around a number or ordinal that add nothing: "the", "step", "number", "#". */
const LEAD =
  '(?:(?:the|el|la|los|las|lo)\\s+)?(?:(?:very|mero)\\s+)?(?:(?:steps?|tasks?|items?|actions?|points?|pasos?|tareas?|acciones|accion|puntos?)\\s+)?(?:(?:number|numero|no|n)\\s+)?';
const TAIL =
  '(?:\\s+(?:one|ones|steps?|tasks?|items?|actions?|points?|pasos?|tareas?|acciones|accion|puntos?|uno|una|de\\s+la\\s+lista|of\\s+the\\s+list|on\\s+the\\s+list))?';
const NUMBER = `(\\d{1,3})(?:st|nd|rd|th|o|a)?`;

const NUMBERED = new RegExp(`^${LEAD}${NUMBER}${TAIL}$`);
/** A number word names a step after a noun ("step two", "los pasos dos y tres"); bare, except "one" (a pronoun: "the one about…"). */
const NAMED_NUMBER = new RegExp(
  `^(?:(?:(?:the|el|la|los|las)\\s+)?(?:steps?|tasks?|items?|pasos?|tareas?)\\s+(?:(?:number|numero|no)\\s+)?(${NUMBER_WORDS})|(${Object.keys(CARDINALS)
    .filter((word) => !['one', 'uno', 'una'].includes(word))
    .join('|')}))$`,
);
const ORDINAL = new RegExp(`^${LEAD}(${ORDINAL_WORDS})${TAIL}$`);
/** "the first two", "los dos primeros", "the last three", "las tres últimas". */
const EDGE_RUN = new RegExp(
  `^(?:the|los|las)?\\s*(?:(first|last|primeros|primeras|ultimos|ultimas)\\s+(\\d|${NUMBER_WORDS})|(\\d|${NUMBER_WORDS})\\s+(first|last|primeros|primeras|ultimos|ultimas))${TAIL}$`,
);
/** "steps 2 to 4", "2-4", "del 2 al 4", "from the second to the fourth". */
const RANGE =
  /^(?:(?:the|los|las)\s+)?(?:(?:steps|tasks|pasos|tareas)\s+)?(?:from\s+|de\s+|del\s+|desde\s+(?:el\s+)?)?(?:(?:step|paso)\s+)?(\S+)\s+(?:to|through|thru|until|till|al|a|hasta(?:\s+el)?)\s+(?:(?:the|el)\s+)?(?:(?:step|paso)\s+)?(\S+)$/;
const LIST_SEPARATOR = /\s*(?:,|;|&|\b(?:and|plus|as\s+well\s+as|y|e|ademas\s+de)\b)\s*/;
/** Words that end a reference without naming anything: "from the plan", "altogether", "del plan". */
const TRAILING =
  /\s+(?:from\s+the\s+(?:plan|list)|of\s+the\s+plan|entirely|completely|altogether|anymore|any\s+more|as\s+well|too|for\s+now|then|del\s+plan|de\s+la\s+lista|tambien|por\s+completo|ya)$/;

/** The step a single positional word or number names, or null. */
function positional(item: string, total: number): number | null {
  const digits = NUMBERED.exec(item)?.[1];
  if (digits !== undefined) return Number(digits);
  const named = NAMED_NUMBER.exec(item);
  const word = named?.[1] ?? named?.[2];
  if (word !== undefined) return CARDINALS[word] ?? null;
  const ordinal = ORDINAL.exec(item)?.[1];
  if (ordinal === undefined) return null;
  if (ordinal in FROM_END) return total - (FROM_END[ordinal] ?? 0);
  return ORDINALS[ordinal] ?? null;
}

function countOf(word: string): number {
  return /^\d$/.test(word) ? Number(word) : (CARDINALS[word] ?? 0);
}

/** Several steps named by position at once ("the first two", "2 to 4"), or null. */
function run(item: string, total: number): number[] | null {
  const edge = EDGE_RUN.exec(item);
  if (edge) {
    const where = edge[1] ?? edge[4] ?? '';
    const count = countOf(edge[2] ?? edge[3] ?? '');
    if (count < 1 || count > total) return null;
    const fromStart = /first|primer/.test(where);
    return Array.from({ length: count }, (_, i) => (fromStart ? i + 1 : total - count + 1 + i));
  }
  const range = RANGE.exec(item);
  if (range) {
    const from = positional(range[1] ?? '', total);
    const to = positional(range[2] ?? '', total);
    if (from === null || to === null || from >= to) return null;
    // A range past the plan names its end, so applying it fails with "there is no step N".
    if (to > total) return [to];
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  }
  return null;
}

/** The content words of recent step texts: a reply resolves several references against the same plan. */
const STEP_WORDS_CACHE = new Map<string, StepWord[]>();
function wordsOf(action: string): StepWord[] {
  let words = STEP_WORDS_CACHE.get(action);
  if (words === undefined) {
    words = stepWords(action);
    if (STEP_WORDS_CACHE.size >= 256) STEP_WORDS_CACHE.clear();
    STEP_WORDS_CACHE.set(action, words);
  }
  return words;
}

/** The steps whose content best matches `words`: one, several (a tie), or none. */
function byContent(words: readonly StepWord[], actions: readonly string[], strict: boolean): { steps: number[]; complete: boolean } {
  let best = 0;
  let bestMatched = 0;
  let found: number[] = [];
  actions.forEach((action, i) => {
    const own = wordsOf(action);
    let score = 0;
    let matched = 0;
    let heavy = false;
    for (const word of words) {
      if (!own.some((other) => sameWord(word, other))) continue;
      matched += 1;
      score += word.light ? 1 : 2;
      if (!word.light) heavy = true;
    }
    // A match on a light verb alone ("booking") counts only when the reference says nothing else.
    if (matched === 0 || (!heavy && matched < words.length) || (strict && matched < words.length)) return;
    if (score > best) {
      best = score;
      bestMatched = matched;
      found = [i + 1];
    } else if (score === best) {
      found.push(i + 1);
    }
  });
  return { steps: found, complete: bestMatched === words.length };
}

/**
 * One reference to one or more steps, without list separators; null when it
 * names nothing. `complete` when every word of it is accounted for (a content
 * match that leaves words over may be a list: "the bug fix and the tests").
 */
function resolveItem(item: string, options: ResolveStepReferenceOptions): { reference: StepReference; complete: boolean } | null {
  const total = options.actions.length;
  // "the second to last" is one step before it is a range.
  const single = positional(item, total);
  if (single !== null) return { reference: { kind: 'steps', steps: [single] }, complete: true };
  const several = run(item, total);
  if (several) return { reference: { kind: 'steps', steps: several }, complete: true };
  const words = stepWords(item);
  if (words.length === 0) return null;
  const { steps, complete } = byContent(words, options.actions, options.strict === true);
  if (steps.length === 1) return { reference: { kind: 'steps', steps }, complete };
  return { reference: { kind: 'unclear', reference: item, candidates: steps }, complete: false };
}

/**
 * Resolves the text that names steps ("the flights one", "steps 1 and 4",
 * "el primero y el último") against `actions`. Null when the text names no
 * step at all ("it", "a review"); `unclear` when a content reference matches
 * several steps or none (the caller asks which); otherwise the steps, in the
 * order written, without repeats. Numbers are returned as written even past
 * the plan's end (applying the edit then says the step does not exist).
 *
 * @example
 * const actions = ['Book flights', 'Reserve hotel', 'Rent a car', 'Buy travel insurance'];
 * resolveStepReference('the flights one', { actions });        // { kind: 'steps', steps: [1] }
 * resolveStepReference('el primero y el último', { actions }); // { kind: 'steps', steps: [1, 4] }
 * resolveStepReference('lo del coche', { actions });           // { kind: 'steps', steps: [3] }
 * resolveStepReference('the boat', { actions });               // { kind: 'unclear', reference: 'the boat', candidates: [] }
 */
export function resolveStepReference(text: string, options: ResolveStepReferenceOptions): StepReference | null {
  // Commas and "&" separate list items; normalising would drop them.
  let item = normalizeReplyText(text.replace(/(\d)\s*[-–—]\s*(\d)/g, '$1 to $2').replace(/[,;&]/g, ' and '));
  for (let trailing = TRAILING.exec(item); trailing; trailing = TRAILING.exec(item)) item = item.slice(0, trailing.index);
  if (item === '') return null;
  const whole = resolveItem(item, options);
  if (whole?.reference.kind === 'steps' && whole.complete) return whole.reference;
  const parts = item.split(LIST_SEPARATOR).filter((part) => part !== '');
  if (parts.length > 1) {
    const steps: number[] = [];
    let firstUnclear: StepReference | null = null;
    let resolvedAll = true;
    for (const part of parts) {
      const resolved = resolveItem(part, options)?.reference ?? null;
      if (resolved?.kind !== 'steps') {
        resolvedAll = false;
        firstUnclear ??= resolved;
        continue;
      }
      steps.push(...resolved.steps);
    }
    if (resolvedAll) return { kind: 'steps', steps };
    if (whole?.reference.kind === 'steps') return whole.reference;
    // "the hotel and the car": ask about the part that is unclear, not the whole.
    return firstUnclear ?? whole?.reference ?? null;
  }
  return whole?.reference ?? null;
}
