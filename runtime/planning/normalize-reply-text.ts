/** Apostrophes dropped without a space, so `don't` becomes `dont` and `let's` becomes `lets`. */
const APOSTROPHES = /['\u2018\u2019\u02BC`\u00B4]/g;
/** Combining marks left by NFD decomposition (accents, tildes, diaereses). */
const COMBINING_MARKS = /\p{M}/gu;
/** Anything that is not a letter or a digit separates words. */
const SEPARATORS = /[^\p{L}\p{N}]+/gu;

/**
 * Normalises a reply for phrase matching: lower case, Unicode NFD with accents
 * stripped, apostrophes removed, every other punctuation or symbol turned into a
 * space (letters and digits kept), whitespace collapsed and trimmed. Pure and
 * total: any string in, a string out.
 *
 * @example
 * normalizeReplyText('Sí, adelante!!')    // 'si adelante'
 * normalizeReplyText("  Let's   GO… ")    // 'lets go'
 * normalizeReplyText('Change step #2.')   // 'change step 2'
 */
export function normalizeReplyText(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(COMBINING_MARKS, '').replace(APOSTROPHES, '').replace(SEPARATORS, ' ').trim();
}
