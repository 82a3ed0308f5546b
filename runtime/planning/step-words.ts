import { normalizeReplyText } from './normalize-reply-text.js';
import { STEP_WORD_GROUPS } from './step-word-lexicon.js';

/**
 * The content words of a step's text or of a reference to a step, for
 * matching one against the other: accent- and case-blind (`normalizeReplyText`),
 * without the words that name no content ("the", "step", "lo", "del"),
 * stemmed the same way in English and Spanish, and each tagged with the
 * groups of `STEP_WORD_GROUPS` it belongs to, so "coche" meets "car".
 */

/** Suffixes stripped, longest first, while the word keeps at least three letters. */
const SUFFIXES = [
  'aciones',
  'iciones',
  'ciones',
  'amiento',
  'imiento',
  'mente',
  'ando',
  'iendo',
  'ados',
  'adas',
  'idos',
  'idas',
  'ado',
  'ada',
  'ido',
  'ida',
  'ing',
  'ed',
  'ar',
  'er',
  'ir',
];

/**
 * A light stemmer, the same for English and Spanish: "booking" → "book",
 * "flights" → "flight", "reservar" and "reserve" → "reserv", "coches" and
 * "coche" → "coch". Only consistency matters: both sides go through it.
 */
export function stem(word: string): string {
  let out = word;
  // Plurals first, then one inflection: "orders" → "order" → "ord", as "order" → "ord".
  if (out.length > 4 && out.endsWith('es') && !/[aeiou]es$/.test(out.slice(-3)) && /(?:ch|sh|[sxzlnrd])es$/.test(out)) out = out.slice(0, -2);
  else if (out.length > 3 && out.endsWith('s') && !out.endsWith('ss')) out = out.slice(0, -1);
  for (const suffix of SUFFIXES) {
    if (out.length - suffix.length >= 3 && out.endsWith(suffix)) {
      out = out.slice(0, -suffix.length);
      break;
    }
  }
  if (out.length > 3 && /[aeiou]$/.test(out)) out = out.slice(0, -1);
  // Doubled final consonants of English inflections: "shipping" → "shipp" → "ship".
  if (out.length > 3 && /([bdgmnprt])\1$/.test(out)) out = out.slice(0, -1);
  return out;
}

/** Words that carry no content in a reference or a step ("the flights one", "lo del seguro"). */
const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'the a an one ones this that these those it its step steps task tasks item items action actions point points part bit thing things stuff ' +
    'about with for of to on in at by from into onto up out off our my your their we i you us me them they which where who whatever ' +
    'and or also too just please number no not all whole entire whatever related regarding concerning involving where ' +
    'el la los las lo le un una uno unos unas de del al a en con sin sobre para por que y e o u mi mis tu tus su sus nuestro nuestra ' +
    'paso pasos tarea tareas accion acciones punto puntos parte cosa cosas tema asunto eso esto ese esa este esta relacionado relacionada ' +
    'tiene ver todo toda ellos ellas esos esas estos estas'
  ).split(' '),
);

/** Verbs that start most steps: a match on one of them says less than a match on a noun ("booking the hotel" is about the hotel). */
const LIGHT_WORDS: ReadonlySet<string> = new Set(
  (
    'book booking reserve reservar reserva buy comprar get conseguir obtener make hacer do go ir take tomar send enviar mandar ' +
    'pick choose elegir escoger order pedir rent alquilar check revisar set up prepare preparar organize organise organizar arrange ' +
    'find buscar encontrar have tener plan planificar call llamar write escribir'
  )
    .split(' ')
    .map(stem),
);

/** Stem → the groups it belongs to. */
const GROUPS_OF: ReadonlyMap<string, readonly number[]> = (() => {
  const index = new Map<string, number[]>();
  STEP_WORD_GROUPS.forEach((group, id) => {
    for (const word of normalizeReplyText(group).split(' ')) {
      const key = stem(word);
      const ids = index.get(key) ?? [];
      if (!ids.includes(id)) ids.push(id);
      index.set(key, ids);
    }
  });
  return index;
})();

/** One content word: its stem, its groups, and whether it is a light verb. */
export interface StepWord {
  stem: string;
  groups: readonly number[];
  light: boolean;
}

/** The content words of `text` (digits are not content: a number names a step by position). */
export function stepWords(text: string): StepWord[] {
  const words: StepWord[] = [];
  for (const word of normalizeReplyText(text).split(' ')) {
    if (word.length < 2 || STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
    const key = stem(word);
    if (words.some((w) => w.stem === key)) continue;
    words.push({ stem: key, groups: GROUPS_OF.get(key) ?? [], light: LIGHT_WORDS.has(key) });
  }
  return words;
}

/** Whether two content words name the same thing: the same stem, or a shared group. */
export function sameWord(a: StepWord, b: StepWord): boolean {
  return a.stem === b.stem || a.groups.some((group) => b.groups.includes(group));
}
