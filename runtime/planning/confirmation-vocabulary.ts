/**
 * The words the plan-confirmation classifier understands, as one data table.
 *
 * Entries are written naturally (accents, apostrophes and capitals allowed): the
 * classifier normalises every entry with the same function it applies to the
 * user's reply (`normalizeReplyText`), so `"está bien"` and `"esta bien"` are
 * the same entry and `"don't"` matches `"dont"`.
 *
 * To extend it, add a phrase to the right class and language; to add a language,
 * add a key to `ConfirmationLanguage` and fill every class for it. A phrase must
 * belong to one class only (`approve`, `reject`, `modify_request`, `filler`);
 * the tests check that.
 *
 * - `approve`, `reject`, `modify_request`: whole replies (or parts of a reply
 *   made only of such phrases and fillers) meaning yes / no / "I want changes"
 *   without saying which.
 * - `filler`: politeness and hesitation words allowed around those phrases.
 * - `modification_cue`: words or token patterns showing that a reply describes a
 *   change to the plan; `#` stands for one number (digits or a `number_word`).
 * - `number_word`: what `#` may be besides digits.
 */

/** Languages the vocabulary covers. */
export type ConfirmationLanguage = 'en' | 'es';

/** Phrase lists keyed by language. */
export type PhrasesByLanguage = Readonly<Record<ConfirmationLanguage, readonly string[]>>;

/** Shape of the vocabulary table. */
export interface ConfirmationVocabulary {
  readonly approve: PhrasesByLanguage;
  readonly reject: PhrasesByLanguage;
  readonly modify_request: PhrasesByLanguage;
  readonly filler: PhrasesByLanguage;
  readonly modification_cue: PhrasesByLanguage;
  readonly number_word: PhrasesByLanguage;
}

/** Placeholder for a number inside a `modification_cue` pattern. */
export const NUMBER_PLACEHOLDER = '#';

export const CONFIRMATION_VOCABULARY: ConfirmationVocabulary = {
  approve: {
    en: [
      'yes', 'y', 'yeah', 'yea', 'yep', 'yup', 'ok', 'okay', 'okey', 'k', 'sure', 'sure go ahead', 'sure thing',
      'go ahead', 'go', 'go on', 'go for it', 'proceed', 'please proceed', 'approve', 'approved', 'i approve',
      'approve it', 'approve the plan', 'accept', 'accepted', 'i accept', 'looks good', 'looks good to me', 'lgtm',
      'looks great', 'sounds good', 'sounds great', 'sounds good to me', 'do it', "let's do it", "let's go",
      "let's do this", 'perfect', 'great', 'fine', 'good', 'all good', 'works for me', 'confirm', 'confirmed',
      'i confirm', 'execute', 'execute it', 'execute the plan', 'run it', 'run the plan', 'start', 'start it',
      'begin', 'of course', 'absolutely', 'definitely', 'correct', 'right', 'alright', 'all right', 'agreed',
      'i agree', 'ship it', 'make it so', 'affirmative', 'yes please',
    ],
    es: [
      'sí', 'si', 'sip', 'dale', 'adelante', 'apruebo', 'aprobado', 'apruebo el plan', 'de acuerdo', 'vale', 'ok',
      'perfecto', 'hazlo', 'procede', 'confirmo', 'confirmado', 'claro', 'claro que sí', 'por supuesto',
      'me parece bien', 'está bien', 'sigue', 'continúa', 'ejecuta', 'ejecútalo', 'ejecuta el plan', 'venga',
      'listo', 'hagámoslo', 'correcto', 'exacto', 'afirmativo', 'acepto', 'aceptado', 'genial', 'bien', 'vamos',
      'empieza', 'comienza', 'todo bien', 'me gusta',
    ],
  },
  reject: {
    en: [
      'no', 'nope', 'nah', 'n', 'cancel', 'cancel it', 'cancel the plan', 'stop', 'no thanks', 'abort', 'reject',
      'rejected', 'reject it', 'reject the plan', 'i reject', "don't", 'do not', "don't do it", 'do not do it',
      "don't proceed", 'do not proceed', 'never mind', 'nevermind', 'forget it', 'forget about it', 'not now',
      'no way', 'not really', 'decline', 'i decline', 'declined', 'scrap it', 'halt', 'negative',
    ],
    es: [
      'no', 'cancela', 'cancelar', 'cancélalo', 'cancela el plan', 'rechazar', 'rechazo', 'rechazado',
      'rechazo el plan', 'mejor no', 'para', 'parar', 'detente', 'olvídalo', 'olvida', 'no gracias', 'ni hablar',
      'de ninguna manera', 'no lo hagas', 'no quiero', 'ahora no', 'negativo', 'déjalo', 'alto',
    ],
  },
  modify_request: {
    en: [
      'change', 'change it', 'change the plan', 'change this', 'modify', 'modify it', 'modify the plan', 'edit',
      'edit it', 'edit the plan', 'i want to change it', 'i want to change the plan', 'i want changes',
      'i want to modify it', "i'd like to change it", "i'd like changes", 'i would like to change it',
      'can we change it', 'can i change it', 'let me change it', 'let me edit it', 'revise', 'revise it',
      'revise the plan', 'adjust it', 'tweak it', 'needs changes', 'make changes', 'i have changes',
      'request changes', 'changes', 'not quite',
    ],
    es: [
      'cambiar', 'cámbialo', 'cambia el plan', 'cambiar el plan', 'quiero cambios', 'quiero cambiarlo',
      'quiero cambiar el plan', 'modificar', 'modifícalo', 'modifica el plan', 'quiero modificar el plan',
      'quiero modificarlo', 'editar', 'edítalo', 'hay que cambiarlo', 'hay que cambiar algo', 'necesito cambios',
      'quiero hacer cambios', 'podemos cambiarlo', 'cambios', 'ajústalo', 'revísalo',
    ],
  },
  filler: {
    en: [
      'please', 'pls', 'plz', 'thanks', 'thank you', 'thanks a lot', 'thank you very much', 'thx', 'ty', 'then',
      'well', 'just', 'oh', 'ah', 'um', 'uh', 'hmm', 'so', 'and', 'now', 'all', 'it', 'that', 'ahead', 'really',
    ],
    es: [
      'por favor', 'porfa', 'porfavor', 'gracias', 'muchas gracias', 'entonces', 'pues', 'bueno', 'ya', 'eh', 'ah',
      'mmm', 'ahora', 'mejor', 'lo', 'eso',
    ],
  },
  modification_cue: {
    en: [
      'change', 'changes', 'modify', 'add', 'remove', 'delete', 'drop', 'replace', 'instead', 'swap', 'move',
      'reorder', 'include', 'skip', 'rename', 'split', 'merge', 'update', 'edit', 'insert', 'combine', 'append',
      'step #', 'steps #', 'before step', 'after step', 'first step', 'last step', 'action #', 'task #',
    ],
    es: [
      'cambia', 'cambiar', 'modifica', 'modificar', 'agrega', 'agregar', 'añade', 'añadir', 'quita', 'quitar',
      'elimina', 'eliminar', 'borra', 'reemplaza', 'sustituye', 'usa', 'en vez de', 'en lugar de', 'incluye',
      'mueve', 'omite', 'sáltate', 'renombra', 'divide', 'une', 'junta', 'actualiza', 'edita', 'inserta',
      'paso #', 'antes del paso', 'después del paso', 'primer paso', 'último paso', 'tarea #', 'acción #',
    ],
  },
  number_word: {
    en: [
      'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
      'first', 'second', 'third', 'fourth', 'fifth', 'last',
    ],
    es: [
      'uno', 'dos', 'tres', 'cuatro', 'cinco', 'seis', 'siete', 'ocho', 'nueve', 'diez',
      'primero', 'segundo', 'tercero', 'cuarto', 'quinto', 'último',
    ],
  },
};
