import type { PhrasesByLanguage } from './confirmation-vocabulary.js';

/**
 * How people turn a plan down by saying why ("I don't need it anymore", "ya
 * lo resolví"), and how they take back a change they were about to describe
 * ("forget it", "déjalo"). Plain data, read by `reply-grammar.ts` through
 * `replyTokens`, so accents, apostrophes and capitals do not matter.
 */

/** Whole reasons that reject the plan on their own, or after "no". */
export const REJECTION_REASONS: PhrasesByLanguage = {
  en: [
    'i dont need it', 'i dont need it anymore', 'i dont need it any more', 'i no longer need it', 'we dont need it', 'we dont need it anymore',
    'we no longer need it', 'not needed anymore', 'no longer needed', 'its not needed anymore', 'its no longer needed', 'i dont need this anymore',
    'i dont need that anymore', 'we dont need this anymore', 'we found another way', 'i found another way', 'we found a better way',
    'i found a better way', 'we found another solution', 'i found another solution', 'i already did it', 'i already did it myself',
    'we already did it', 'ive already done it', 'i have already done it', 'its already done', 'already done', 'already taken care of',
    'its already taken care of', 'i already took care of it', 'i solved it', 'i already solved it', 'we solved it', 'i already fixed it',
    'i figured it out', 'i sorted it out', 'its sorted', 'i changed my mind', 'we changed our minds', 'ive changed my mind', 'plans changed',
    'the plans changed', 'change of plans', 'the trip is off', 'its off', 'its cancelled', 'the event is cancelled', 'the meeting is cancelled',
    'it is not happening', 'its not happening anymore', 'not happening', 'someone else is doing it', 'someone else is handling it',
    'someone else will do it', 'somebody else is on it', 'ill do it myself', 'ill handle it myself', 'ill take care of it myself',
    'ill sort it out myself', 'we will do it ourselves', 'well handle it ourselves', 'its too expensive', 'too expensive', 'we cant afford it',
    'its not worth it', 'not worth it', 'it doesnt matter anymore', 'doesnt matter anymore', 'its too late', 'too late now', 'i dont want it anymore',
    'i dont want to do this anymore', 'i dont want this plan', 'thats not what i want', 'thats not what i asked for', 'this is not what i need',
    'wrong plan', 'this is wrong', 'bad plan',
  ],
  es: [
    'ya no lo necesito', 'ya no la necesito', 'ya no hace falta', 'no hace falta ya', 'ya no lo necesitamos', 'no lo necesito', 'no lo necesitamos',
    'ya no es necesario', 'ya no se necesita', 'ya lo resolvi', 'ya lo resolvimos', 'lo resolvi', 'ya esta resuelto', 'ya lo solucione',
    'ya lo arregle', 'ya lo hice', 'ya lo hice yo', 'ya lo hicimos', 'ya esta hecho', 'lo hago yo', 'lo hare yo', 'lo hago yo mismo',
    'lo hago yo misma', 'me encargo yo', 'ya me encargo yo', 'lo hacemos nosotros', 'encontre otra forma', 'encontramos otra forma',
    'encontre otra manera', 'encontramos otra manera', 'encontramos otra solucion', 'hay otra forma', 'cambie de opinion', 'cambie de idea',
    'cambiamos de opinion', 'cambiamos de planes', 'cambio de planes', 'cambiaron los planes', 'se cancelo el viaje', 'el viaje se cancelo',
    'se cancela', 'se cancelo', 'ya no va', 'ya no vamos', 'no vamos a ir', 'otra persona se encarga', 'alguien mas lo hace', 'alguien mas se encarga',
    'es muy caro', 'sale muy caro', 'es demasiado caro', 'no vale la pena', 'ya no importa', 'ya es tarde', 'es demasiado tarde',
    'ya no lo quiero', 'no es lo que quiero', 'no es lo que pedi', 'no es lo que necesito', 'plan equivocado', 'esto esta mal', 'mal plan',
  ],
}; // prettier-ignore

/**
 * Words that show the rest of "no, …" is a reason, not a change: while a
 * change is awaited, "no, <reason>" rejects only when the reason has one.
 */
export const REASON_MARKERS: PhrasesByLanguage = {
  en: ['anymore', 'any more', 'no longer', 'already', 'another way', 'another solution', 'better way', 'changed my mind', 'someone else', 'somebody else', 'myself', 'ourselves', 'too expensive', 'too late', 'not worth', 'solved', 'sorted', 'handled', 'cancelled', 'canceled', 'dont need', 'not needed', 'all of it', 'everything', 'the whole thing'],
  es: ['ya', 'otra forma', 'otra manera', 'otra solucion', 'cambie de', 'cambiamos de', 'yo mismo', 'yo misma', 'nosotros', 'muy caro', 'demasiado', 'no vale', 'resolvi', 'resuelto', 'se cancelo', 'no hace falta', 'no lo necesito', 'todo', 'nada de esto'],
}; // prettier-ignore

/**
 * Replies that open by taking back what the person was about to ask for:
 * followed by a decision, that decision counts ("forget it, just go ahead"
 * approves; "never mind, cancel it" rejects). Alone, the ones that are also
 * rejections ("forget it") keep rejecting.
 */
export const DISMISSALS: PhrasesByLanguage = {
  en: ['forget it', 'forget that', 'forget about it', 'forget the changes', 'forget the change', 'forget what i said', 'never mind', 'nevermind', 'never mind that', 'never mind the changes', 'leave it', 'leave it be', 'scratch that', 'ignore that', 'ignore what i said', 'on second thought', 'on second thoughts', 'no changes', 'no changes needed', 'no change', 'skip the changes', 'nothing to change', 'no need to change anything', 'forget what i asked', 'forget my last message', 'ignore my last message', 'never mind what i said', 'dont worry', 'dont worry about it', 'no worries'],
  es: ['olvidalo', 'olvida eso', 'olvidate', 'olvida lo que dije', 'olvida los cambios', 'dejalo', 'deja eso', 'da igual', 'no importa', 'ignora eso', 'ignora lo que dije', 'pensandolo bien', 'sin cambios', 'nada de cambios', 'nada que cambiar', 'no hay nada que cambiar', 'olvida mi ultimo mensaje', 'ignora mi ultimo mensaje', 'olvida lo que te pedi', 'no te preocupes', 'tranquilo', 'tranquila'],
}; // prettier-ignore
