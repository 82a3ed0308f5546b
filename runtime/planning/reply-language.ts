import { normalizeReplyText } from './normalize-reply-text.js';
import type { SummaryLanguage } from './plan-summary.js';

/** Words that only a Spanish reply to a plan uses ("quita lo del coche", "pon el hotel primero"). */
const SPANISH = new Set(
  (
    'el la los las lo del al un una de que y pero por para con sin en paso pasos tarea primero primera segundo tercero ultimo ultima ' +
    'quita quitar elimina borra omite salta saltate saca mueve pon cambia reemplaza anade agrega incluye intercambia sube baja ' +
    'si antes despues entre vez lugar luego tambien todo nada gracias favor quiero quisiera necesito'
  ).split(' '),
);
/** Words that only an English reply uses. */
const ENGLISH = new Set(
  (
    'the of and but to with without in at step steps task first second third last remove delete drop skip move put change replace ' +
    'add swap switch exchange instead before after between then also please yes it one want need would like'
  ).split(' '),
);

/**
 * The language to answer a reply in: the one whose words it uses more
 * ("borra el barco" is Spanish, "remove the boat" English); `fallback` (the
 * plan's language) when it uses neither or both as much.
 *
 * @example
 * replyLanguage('quita lo del barco', 'en'); // 'es'
 */
export function replyLanguage(reply: string, fallback: SummaryLanguage): SummaryLanguage {
  let es = 0;
  let en = 0;
  for (const word of normalizeReplyText(reply).split(' ')) {
    if (SPANISH.has(word)) es += 1;
    if (ENGLISH.has(word)) en += 1;
  }
  if (/[ñ¿¡]|[áéíóú]/iu.test(reply)) es += 1;
  return es > en ? 'es' : en > es ? 'en' : fallback;
}
