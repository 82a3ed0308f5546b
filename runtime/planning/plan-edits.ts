import type { StepChange } from './plan-records.js';

/**
 * Plan edits a person writes, in English or Spanish, parsed without a model
 * and applied to a plan deterministically.
 *
 * Understood forms (each also in Spanish, and several in one reply joined by
 * "and", "then", ",", ";", "y", "luego"...):
 * - change / replace / update step N (to | with | by) …; step N should be …
 * - remove / delete / drop / skip step N; no step N
 * - add … (at the start | at the end | before step N | after step N); add … first / last
 * - move step N (before | after) step M; move step N to the start / end
 * - swap steps N and M
 * - rename the objective to …
 * A step is named by number ("step 2", "step #2", "step two", "paso 2") or by
 * ordinal ("the second step", "the last step", "el tercer paso", "el último paso").
 * Every number refers to the plan as the person saw it, whatever the order of the edits.
 */

/** Where an added or moved step goes. */
export type StepPosition = { at: 'start' } | { at: 'end' } | { before: number } | { after: number };

export type PlanEdit =
  | { op: 'replace'; step: number; text: string }
  | { op: 'remove'; step: number }
  | { op: 'add'; text: string; position: StepPosition }
  | { op: 'move'; step: number; position: StepPosition }
  | { op: 'swap'; steps: readonly [number, number] }
  | { op: 'rename_objective'; text: string };

export interface ParsedPlanEdits {
  /** The edits understood, in the order written. */
  edits: PlanEdit[];
  /** Parts of the reply that are not an edit this parser knows, as written. */
  unplaced: string[];
}

export interface EditedPlan {
  actions: string[];
  /** Per action of `actions`: how it changed, or undefined when it is as before. */
  changes: (StepChange | undefined)[];
  /** Actions taken out, as they were. */
  removed: string[];
  /** The new objective, when an edit renamed it. */
  objective?: string;
}

export type ApplyResult = { ok: true; plan: EditedPlan } | { ok: false; problem: string };

const NUMBER_WORDS: Readonly<Record<string, number>> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  uno: 1,
  una: 1,
  dos: 2,
  tres: 3,
  cuatro: 4,
  cinco: 5,
  seis: 6,
  siete: 7,
  ocho: 8,
  nueve: 9,
  diez: 10,
  once: 11,
  doce: 12,
  first: 1,
  second: 2,
  third: 3,
  fourth: 4,
  fifth: 5,
  sixth: 6,
  seventh: 7,
  eighth: 8,
  ninth: 9,
  tenth: 10,
  primer: 1,
  primero: 1,
  primera: 1,
  segundo: 2,
  segunda: 2,
  tercer: 3,
  tercero: 3,
  tercera: 3,
  cuarto: 4,
  cuarta: 4,
  quinto: 5,
  quinta: 5,
  sexto: 6,
  sexta: 6,
  septimo: 7,
  septima: 7,
  octavo: 8,
  octava: 8,
  noveno: 9,
  novena: 9,
  decimo: 10,
  decima: 10,
};
/** Ordinals counted from the end: -1 is the last step. */
const FROM_END: Readonly<Record<string, number>> = {
  last: -1,
  final: -1,
  ultimo: -1,
  ultima: -1,
  'second to last': -2,
  'second-to-last': -2,
  penultimate: -2,
  penultimo: -2,
  penultima: -2,
};

const NUMBER = `(?:\\d{1,3}|${Object.keys(NUMBER_WORDS).join('|')})`;
const ORDINAL = `(?:\\d{1,3}(?:st|nd|rd|th|º|o|a)?|${[...Object.keys(NUMBER_WORDS), ...Object.keys(FROM_END)].join('|')})`;
const NOUN_EN = '(?:step|task|action|item|point)';
const NOUN_ES = '(?:paso|tarea|accion|punto)';
/** One step reference, capturing its number or ordinal. */
const STEP = [
  `(?:the\\s+)?${NOUN_EN}\\s*(?:number\\s+|no\\.?\\s*|#\\s*)?(${NUMBER})`,
  `(?:the\\s+)?(${ORDINAL})\\s+(?:one|${NOUN_EN})`,
  `(?:el\\s+|la\\s+|l\\s+)?${NOUN_ES}\\s*(?:numero\\s+|n[oº]\\.?\\s*|#\\s*)?(${ORDINAL})`,
  `(?:el\\s+|la\\s+|l\\s+)?(${ORDINAL})\\s+${NOUN_ES}`,
]
  .map((alternative) => `(?:${alternative})`)
  .join('|');
/** Capture groups per STEP occurrence. */
const STEP_GROUPS = 4;

const POSITION_EN = `(?:(?:at|to)\\s+the\\s+(?:very\\s+)?(end|bottom|start|beginning|top|front)(?:\\s+of\\s+(?:the\\s+)?(?:plan|list))?|(first|last|up\\s+front|as\\s+(?:the\\s+)?(?:first|last|final)\\s+step)|(before|after|following|ahead\\s+of|right\\s+before|right\\s+after|just\\s+before|just\\s+after)\\s+(?:${STEP})|between\\s+(?:${STEP})\\s+and\\s+(?:${STEP}))`;
const POSITION_ES = `(?:al\\s+(final|principio|inicio|comienzo)(?:\\s+del\\s+plan)?|(primero|de\\s+primero|de\\s+ultimo|como\\s+(?:primer|ultimo)\\s+paso)|(antes|despues|justo\\s+antes|justo\\s+despues)\\s+de(?:l|\\s+la|\\s+el)?\\s+(?:${STEP})|(tras)\\s+(?:${STEP})|entre\\s+(?:${STEP})\\s+y\\s+(?:${STEP}))`;

const EDIT_VERBS = [
  'change',
  'replace',
  'update',
  'edit',
  'modify',
  'rewrite',
  'swap',
  'switch',
  'exchange',
  'flip',
  'remove',
  'delete',
  'drop',
  'skip',
  'cut',
  'omit',
  'eliminate',
  'get rid of',
  'take out',
  'leave out',
  'add',
  'insert',
  'include',
  'append',
  'prepend',
  'put',
  'move',
  'place',
  'rename',
  'retitle',
  'the objective',
  'make',
  'use',
  'haz',
  'hazlo',
  'usa',
  'cambia',
  'cambiar',
  'modifica',
  'reemplaza',
  'sustituye',
  'actualiza',
  'edita',
  'intercambia',
  'quita',
  'quitar',
  'elimina',
  'eliminar',
  'borra',
  'borrar',
  'omite',
  'saltate',
  'salta',
  'suprime',
  'saca',
  'anade',
  'anadir',
  'agrega',
  'agregar',
  'incluye',
  'inserta',
  'pon',
  'mete',
  'mueve',
  'mover',
  'coloca',
  'renombra',
  'el objetivo',
];
const CLAUSE_SPLIT = new RegExp(
  `\\s*(?:[;\\n]+|\\.\\s+|,?\\s+(?:and\\s+|y\\s+)?(?=(?:also|plus|tambien|ademas)\\s)|,?\\s+(?:and\\s+then|and\\s+also|and|then|also|plus|y\\s+luego|y\\s+despues|y\\s+ademas|y\\s+tambien|y|e|luego|despues|ademas|tambien)\\s+(?=(?:${EDIT_VERBS.join('|')})\\b)|,\\s*(?=(?:${EDIT_VERBS.join('|')})\\b))\\s*`,
  'g',
);
const STARTS_WITH_EDIT = new RegExp(`^(?:${EDIT_VERBS.join('|')})\\b`);
const LEADING_WRAPPER = new RegExp(
  `^(?:(?:ok|okay|yes|yeah|yep|sure|no|nope|well|hmm|great|good|perfect|fine|si|vale|bueno|perfecto|claro|pues|mmm)\\b[\\s,.!:-]*|(?:but|pero|and|y|also|tambien|ademas|then|luego|please|por\\s+favor|kindly|can\\s+you|could\\s+you|would\\s+you|will\\s+you|can\\s+we|could\\s+we|i\\s+want\\s+you\\s+to|i\\s+want\\s+to|i\\s+would\\s+like\\s+to|i\\s+d\\s+like\\s+to|id\\s+like\\s+to|i\\s+wanna|i\\s+need\\s+you\\s+to|we\\s+need\\s+to|we\\s+should|lets|let\\s+s|let\\s+us|just|puedes|podrias|quiero\\s+que|quiero|quisiera|me\\s+gustaria|necesito\\s+que|hay\\s+que|vamos\\s+a|mejor)\\s+)`,
);
const TRAILING_WRAPPER = /(?:[\s,]+(?:please|pls|thanks|thank\s+you|por\s+favor|gracias))+[\s.!?]*$|[\s.!?]+$/i;

type Match = { groups: (string | undefined)[]; spans: ([number, number] | undefined)[] };

/** Step reference groups at `from` (STEP_GROUPS of them) to a number; negative counts from the end; null when absent. */
function stepNumber(groups: readonly (string | undefined)[], from: number, total: number): number | null {
  for (let g = from; g < from + STEP_GROUPS; g += 1) {
    const raw = groups[g];
    if (raw === undefined) continue;
    const word = raw.replace(/\s+/g, ' ');
    if (word in FROM_END) return total + 1 + (FROM_END[word] ?? 0);
    const digits = /^(\d{1,3})/.exec(word);
    if (digits) return Number(digits[1]);
    return NUMBER_WORDS[word] ?? null;
  }
  return null;
}

/** The position groups of POSITION_EN or POSITION_ES starting at `from`. */
function positionOf(groups: readonly (string | undefined)[], from: number, total: number, spanish: boolean): StepPosition | null {
  const [where, edge, relation] = [groups[from], groups[from + 1], groups[from + 2]];
  if (where !== undefined) return /^(end|bottom|final)$/.test(where) ? { at: 'end' } : { at: 'start' };
  if (edge !== undefined) return /last|final|ultimo/.test(edge) ? { at: 'end' } : { at: 'start' };
  const step = stepNumber(groups, from + 3, total);
  if (relation !== undefined && step !== null) return /before|ahead|antes/.test(relation) ? { before: step } : { after: step };
  if (spanish) {
    const afterStep = stepNumber(groups, from + 4 + STEP_GROUPS, total);
    if (groups[from + 3 + STEP_GROUPS] !== undefined && afterStep !== null) return { after: afterStep };
    const between = stepNumber(groups, from + 4 + 2 * STEP_GROUPS, total);
    if (between !== null) return { after: between };
    return null;
  }
  const between = stepNumber(groups, from + 3 + STEP_GROUPS, total);
  return between === null ? null : { after: between };
}

/** Capture groups of POSITION_EN and POSITION_ES. */
const POSITION_EN_GROUPS = 3 + 3 * STEP_GROUPS;
const POSITION_ES_GROUPS = 4 + 4 * STEP_GROUPS;

interface ClauseRule {
  pattern: RegExp;
  build: (m: Match, text: (group: number) => string, total: number) => PlanEdit | null;
}

function rule(source: string, build: ClauseRule['build']): ClauseRule {
  return { pattern: new RegExp(`^(?:${source})$`, 'd'), build };
}

const S = `(?:${STEP})`;
const REPLACE_VERBS_EN = '(?:change|replace|update|edit|modify|rewrite|make|set|turn|switch)';
const REPLACE_VERBS_ES =
  '(?:cambia|cambiar|cambiale|modifica|modificar|reemplaza|reemplazar|sustituye|sustituir|actualiza|edita|reescribe|pon|haz\\s+que|convierte)';
const REMOVE_VERBS_EN =
  '(?:remove|delete|drop|skip|cut|omit|eliminate|get\\s+rid\\s+of|take\\s+out|leave\\s+out|scrap|ditch|lose|strike|cross\\s+out|forget(?:\\s+about)?|no\\s+need\\s+for|we\\s+don\\s*t\\s+need|i\\s+don\\s*t\\s+need)';
const REMOVE_VERBS_ES =
  '(?:quita|quitar|quitale|elimina|eliminar|borra|borrar|omite|omitir|saltate|salta|saltar|suprime|suprimir|saca|sacar|descarta|tacha|no\\s+hace\\s+falta|olvida)';
const ADD_VERBS_EN = '(?:add|insert|include|append|put|also\\s+do|tack\\s+on)';
const ADD_VERBS_ES = '(?:anade|anadir|agrega|agregar|incluye|incluir|inserta|insertar|pon|mete|meter|suma)';
const MOVE_VERBS_EN = '(?:move|put|place|shift|bring|do|push)';
const MOVE_VERBS_ES = '(?:mueve|mover|pon|coloca|pasa|lleva|haz)';
const NEW_STEP_EN =
  '(?:(?:a|an|one|another)\\s+(?:new\\s+|extra\\s+|final\\s+|additional\\s+)?(?:step|task|action|item)\\s*(?:to\\s+|that\\s+|for\\s+|:\\s*|-\\s*|called\\s+|saying\\s+)?)?';
const NEW_STEP_ES = '(?:(?:un|otro|una|otra)\\s+(?:nuevo\\s+|nueva\\s+)?(?:paso|tarea|accion|punto)\\s*(?:para\\s+|que\\s+|de\\s+|:\\s*|-\\s*)?)?';

/** The clause forms, tried in order: the first that matches the whole clause wins. */
const RULES: readonly ClauseRule[] = [
  // swap
  rule(
    `(?:swap|switch|exchange|flip|reverse|trade|invert)\\s+(?:the\\s+order\\s+of\\s+)?(?:the\\s+)?(?:steps|tasks|actions)\\s+(${NUMBER})\\s+(?:and|&|with)\\s+(${NUMBER})`,
    (m, _t, total) =>
      swap(stepNumber([m.groups[1], undefined, undefined, undefined], 0, total), stepNumber([m.groups[2], undefined, undefined, undefined], 0, total)),
  ),
  rule(`(?:swap|switch|exchange|flip|reverse|trade|invert)\\s+(?:the\\s+order\\s+of\\s+)?${S}\\s+(?:and|&|with)\\s+${S}`, (m, _t, total) =>
    swap(stepNumber(m.groups, 1, total), stepNumber(m.groups, 1 + STEP_GROUPS, total)),
  ),
  rule(
    `(?:intercambia|intercambiar|invierte|permuta|cambia\\s+el\\s+orden\\s+de|alterna)\\s+(?:los\\s+|las\\s+)?(?:pasos|tareas|acciones|puntos)\\s+(${NUMBER})\\s+(?:y|e|con)\\s+(?:el\\s+)?(${NUMBER})`,
    (m, _t, total) =>
      swap(stepNumber([m.groups[1], undefined, undefined, undefined], 0, total), stepNumber([m.groups[2], undefined, undefined, undefined], 0, total)),
  ),
  rule(`(?:intercambia|intercambiar|invierte|permuta|cambia\\s+el\\s+orden\\s+de|alterna)\\s+${S}\\s+(?:y|e|con|por)\\s+${S}`, (m, _t, total) =>
    swap(stepNumber(m.groups, 1, total), stepNumber(m.groups, 1 + STEP_GROUPS, total)),
  ),
  // rename the objective
  rule(
    `(?:rename|retitle|change|set|update|make)\\s+(?:the\\s+)?(?:objective|goal|title|plan\\s+name|name\\s+of\\s+the\\s+plan)\\s+(?:to|into|as|:)\\s*(.+)`,
    (_m, text) => rename(text(1)),
  ),
  rule(`(?:the\\s+)?(?:objective|goal|title)\\s+(?:should\\s+be|must\\s+be|is\\s+now|becomes|is|:)\\s*(.+)`, (_m, text) => rename(text(1))),
  rule(`(?:call\\s+(?:it|the\\s+plan)|name\\s+(?:it|the\\s+plan))\\s+(.+)`, (_m, text) => rename(text(1))),
  rule(
    `(?:renombra|cambia|cambiar|pon|actualiza|modifica)\\s+(?:el\\s+|la\\s+)?(?:objetivo|titulo|nombre\\s+del\\s+plan|meta)\\s+(?:a|por|como|en|:)\\s*(.+)`,
    (_m, text) => rename(text(1)),
  ),
  rule(`(?:el\\s+|la\\s+)?(?:objetivo|titulo|meta)\\s+(?:debe\\s+ser|deberia\\s+ser|sera|es|pasa\\s+a\\s+ser|:)\\s*(.+)`, (_m, text) => rename(text(1))),
  rule(`(?:llama(?:lo)?|nombra(?:lo)?)\\s+(?:al\\s+plan\\s+)?(.+)`, (_m, text) => rename(text(1))),
  // move
  rule(`${MOVE_VERBS_EN}\\s+${S}\\s+(?:to\\s+)?${POSITION_EN}`, (m, _t, total) =>
    move(stepNumber(m.groups, 1, total), positionOf(m.groups, 1 + STEP_GROUPS, total, false)),
  ),
  rule(`${S}\\s+(?:should|must|needs\\s+to|has\\s+to|could|can)\\s+(?:come|go|be|happen)\\s+${POSITION_EN}`, (m, _t, total) =>
    move(stepNumber(m.groups, 1, total), positionOf(m.groups, 1 + STEP_GROUPS, total, false)),
  ),
  rule(`${MOVE_VERBS_ES}\\s+${S}\\s+(?:a\\s+)?${POSITION_ES}`, (m, _t, total) =>
    move(stepNumber(m.groups, 1, total), positionOf(m.groups, 1 + STEP_GROUPS, total, true)),
  ),
  rule(`${S}\\s+(?:debe|deberia|tiene\\s+que|puede)\\s+(?:ir|ser|hacerse|estar)\\s+${POSITION_ES}`, (m, _t, total) =>
    move(stepNumber(m.groups, 1, total), positionOf(m.groups, 1 + STEP_GROUPS, total, true)),
  ),
  // remove
  rule(`${REMOVE_VERBS_EN}\\s+${S}(?:\\s+(?:from\\s+the\\s+plan|entirely|completely|altogether|please))?`, (m, _t, total) =>
    remove(stepNumber(m.groups, 1, total)),
  ),
  rule(`(?:no|without)\\s+${S}`, (m, _t, total) => remove(stepNumber(m.groups, 1, total))),
  rule(
    `${S}\\s+(?:is\\s+not\\s+needed|isn\\s*t\\s+needed|is\\s+unnecessary|is\\s+not\\s+necessary|can\\s+go|can\\s+be\\s+removed|should\\s+be\\s+removed|should\\s+go|must\\s+go|goes)`,
    (m, _t, total) => remove(stepNumber(m.groups, 1, total)),
  ),
  rule(`${REMOVE_VERBS_ES}\\s+${S}(?:\\s+del\\s+plan)?`, (m, _t, total) => remove(stepNumber(m.groups, 1, total))),
  rule(`sin\\s+${S}`, (m, _t, total) => remove(stepNumber(m.groups, 1, total))),
  rule(
    `${S}\\s+(?:sobra|no\\s+hace\\s+falta|no\\s+es\\s+necesario|no\\s+es\\s+necesaria|se\\s+puede\\s+quitar|no\\s+va|hay\\s+que\\s+quitarlo)`,
    (m, _t, total) => remove(stepNumber(m.groups, 1, total)),
  ),
  // replace
  rule(`${REPLACE_VERBS_EN}\\s+${S}\\s+(?:to\\s+say|to\\s+read|so\\s+(?:that\\s+)?it\\s+(?:says|reads)|to|into|with|by|for|as|:|=)\\s*(.+)`, (m, text, total) =>
    replace(stepNumber(m.groups, 1, total), text(1 + STEP_GROUPS)),
  ),
  rule(`${S}\\s+(?:should\\s+be|should\\s+say|must\\s+be|will\\s+be|becomes|is\\s+now|could\\s+be|needs\\s+to\\s+be|to|:|=)\\s*(.+)`, (m, text, total) =>
    replace(stepNumber(m.groups, 1, total), text(1 + STEP_GROUPS)),
  ),
  rule(`(?:instead\\s+of|in\\s+place\\s+of|rather\\s+than)\\s+${S}\\s*,?\\s*(?:do|use|have|let\\s+s|lets)?\\s*(.+)`, (m, text, total) =>
    replace(stepNumber(m.groups, 1, total), text(1 + STEP_GROUPS)),
  ),
  rule(`(?:do|use|have)\\s+(.+?)\\s+(?:instead\\s+of|in\\s+place\\s+of|rather\\s+than)\\s+${S}`, (m, text, total) =>
    replace(stepNumber(m.groups, 2, total), text(1)),
  ),
  rule(`${REPLACE_VERBS_ES}\\s+${S}\\s+(?:para\\s+que\\s+(?:sea|diga)|que\\s+sea|por|a|con|como|en|:|=)\\s*(.+)`, (m, text, total) =>
    replace(stepNumber(m.groups, 1, total), text(1 + STEP_GROUPS)),
  ),
  rule(`${S}\\s+(?:debe\\s+ser|deberia\\s+ser|sera|que\\s+sea|pasa\\s+a\\s+ser|tiene\\s+que\\s+ser|:|=)\\s*(.+)`, (m, text, total) =>
    replace(stepNumber(m.groups, 1, total), text(1 + STEP_GROUPS)),
  ),
  rule(`en\\s+(?:vez|lugar)\\s+del?\\s+${S}\\s*,?\\s*(.+)`, (m, text, total) => replace(stepNumber(m.groups, 1, total), text(1 + STEP_GROUPS))),
  // add
  rule(`(?:prepend|start\\s+with)\\s+${NEW_STEP_EN}(.+?)`, (_m, text) => add(text(1), { at: 'start' })),
  rule(`${ADD_VERBS_EN}\\s+${POSITION_EN}\\s*[:,-]?\\s+${NEW_STEP_EN}(.+)`, (m, text, total) =>
    add(text(1 + POSITION_EN_GROUPS), positionOf(m.groups, 1, total, false)),
  ),
  rule(`${ADD_VERBS_EN}\\s+${NEW_STEP_EN}(.+?)\\s+${POSITION_EN}`, (m, text, total) => add(text(1), positionOf(m.groups, 2, total, false))),
  rule(`${ADD_VERBS_EN}\\s+${NEW_STEP_EN}(.+?)(?:\\s+(?:to|in|into|on)\\s+(?:the\\s+)?(?:plan|list|steps))?`, (_m, text) => add(text(1), { at: 'end' })),
  rule(`${ADD_VERBS_ES}\\s+${POSITION_ES}\\s*[:,-]?\\s+${NEW_STEP_ES}(.+)`, (m, text, total) =>
    add(text(1 + POSITION_ES_GROUPS), positionOf(m.groups, 1, total, true)),
  ),
  rule(`(?:${ADD_VERBS_ES}\\s+${NEW_STEP_ES}(.+?))\\s+${POSITION_ES}`, (m, text, total) => add(text(1), positionOf(m.groups, 2, total, true))),
  rule(`${ADD_VERBS_ES}\\s+${NEW_STEP_ES}(.+?)(?:\\s+(?:al|en\\s+el)\\s+plan|\\s+a\\s+la\\s+lista)?`, (_m, text) => add(text(1), { at: 'end' })),
  // "also rent a car": a new last step, unless what follows is another edit ("also remove step 2").
  rule(`(?:also|plus|and\\s+also|additionally|and)\\s+${NEW_STEP_EN}(.+?)`, (_m, text) =>
    STARTS_WITH_EDIT.test(fold(text(1))) ? null : add(text(1), { at: 'end' }),
  ),
  rule(`(?:tambien|ademas|y\\s+tambien)\\s+${NEW_STEP_ES}(.+?)`, (_m, text) => (STARTS_WITH_EDIT.test(fold(text(1))) ? null : add(text(1), { at: 'end' }))),
  rule(`(?:empieza|comienza)\\s+(?:por|con)\\s+${NEW_STEP_ES}(.+?)`, (_m, text) => add(text(1), { at: 'start' })),
];

function swap(a: number | null, b: number | null): PlanEdit | null {
  return a === null || b === null ? null : { op: 'swap', steps: [a, b] };
}
function rename(text: string): PlanEdit | null {
  return text === '' ? null : { op: 'rename_objective', text };
}
function move(step: number | null, position: StepPosition | null): PlanEdit | null {
  return step === null || position === null ? null : { op: 'move', step, position };
}
function remove(step: number | null): PlanEdit | null {
  return step === null ? null : { op: 'remove', step };
}
function replace(step: number | null, text: string): PlanEdit | null {
  return step === null || text === '' ? null : { op: 'replace', step, text };
}
function add(text: string, position: StepPosition | null): PlanEdit | null {
  return text === '' || position === null ? null : { op: 'add', text, position };
}

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
 * Reads the edits in a reply to a pending plan of `steps` steps. Pure and
 * deterministic. Clauses it cannot read are returned in `unplaced` as
 * written; a reply it cannot read at all gives no edits and one unplaced part.
 *
 * @example
 * parsePlanEdits('change step 2 to book a big hall', { steps: 3 });
 * // { edits: [{ op: 'replace', step: 2, text: 'book a big hall' }], unplaced: [] }
 * parsePlanEdits('quita el paso 3 y añade una revisión al final', { steps: 3 }).edits;
 * // [{ op: 'remove', step: 3 }, { op: 'add', text: 'una revisión', position: { at: 'end' } }]
 */
export function parsePlanEdits(reply: string, options: { steps: number }): ParsedPlanEdits {
  const edits: PlanEdit[] = [];
  const unplaced: string[] = [];
  const folded = fold(reply);
  let cursor = 0;
  const clauses: [number, number][] = [];
  for (const boundary of folded.matchAll(CLAUSE_SPLIT)) {
    clauses.push([cursor, boundary.index]);
    cursor = boundary.index + boundary[0].length;
  }
  clauses.push([cursor, folded.length]);
  for (const [start, end] of clauses) {
    let from = start;
    let to = end;
    const trailing = TRAILING_WRAPPER.exec(folded.slice(from, to));
    if (trailing) to -= trailing[0].length;
    while (from < to && /\s/.test(folded[from] ?? '')) from += 1;
    if (from >= to) continue;
    let edit: PlanEdit | null;
    // The clause as written first; then without one leading wrapper ("yes but", "please", "quiero") at a time.
    for (;;) {
      const at = from;
      edit = readClause(folded.slice(at, to), (s, e) => cleanText(reply.slice(at + s, at + e)), options.steps);
      if (edit) break;
      const wrapper = LEADING_WRAPPER.exec(folded.slice(from, to));
      if (!wrapper || wrapper[0].length === 0) break;
      from += wrapper[0].length;
      if (from >= to) break;
    }
    if (edit) edits.push(edit);
    else if (from < to) unplaced.push(reply.slice(start, end).replace(TRAILING_WRAPPER, '').trim());
  }
  return { edits, unplaced };
}

function readClause(clause: string, original: (start: number, end: number) => string, total: number): PlanEdit | null {
  for (const { pattern, build } of RULES) {
    const match = pattern.exec(clause);
    if (!match) continue;
    const m: Match = { groups: [...match], spans: match.indices ? [...match.indices] : [] };
    const text = (group: number) => {
      const span = m.spans[group];
      return span === undefined ? '' : original(span[0], span[1]);
    };
    const edit = build(m, text, total);
    if (edit) return edit;
  }
  return null;
}

interface Slot {
  text: string;
  /** 1-based position in the plan the person saw; undefined for an added step. */
  origin?: number;
  change?: StepChange;
  removed?: boolean;
}

/**
 * Applies `edits` to `actions` (numbers refer to `actions` as given, whatever
 * the order of the edits). Fails, changing nothing, when an edit names a step
 * the plan does not have or one already removed, or when the plan would be left
 * empty or longer than 50 steps.
 *
 * @example
 * applyPlanEdits(['Pick a date', 'Book a room', 'Send invites'], [{ op: 'replace', step: 2, text: 'Book a big hall' }]);
 * // { ok: true, plan: { actions: ['Pick a date', 'Book a big hall', 'Send invites'], changes: [undefined, 'changed', undefined], removed: [] } }
 */
export function applyPlanEdits(actions: readonly string[], edits: readonly PlanEdit[]): ApplyResult {
  const slots: Slot[] = actions.map((text, i) => ({ text, origin: i + 1 }));
  const total = actions.length;
  let objective: string | undefined;
  const find = (step: number): Slot | string => {
    if (!Number.isInteger(step) || step < 1 || step > total) return `There is no step ${step}: the plan has ${total} step${total === 1 ? '' : 's'}.`;
    const slot = slots.find((s) => s.origin === step);
    if (slot === undefined || slot.removed) return `Step ${step} is removed by another change in the same reply.`;
    return slot;
  };
  const place = (slot: Slot, position: StepPosition): string | undefined => {
    if ('at' in position) {
      if (position.at === 'start') slots.unshift(slot);
      else slots.push(slot);
      return undefined;
    }
    const anchor = find('before' in position ? position.before : position.after);
    if (typeof anchor === 'string') return anchor;
    const index = slots.indexOf(anchor);
    slots.splice('before' in position ? index : index + 1, 0, slot);
    return undefined;
  };
  for (const edit of edits) {
    switch (edit.op) {
      case 'replace': {
        const slot = find(edit.step);
        if (typeof slot === 'string') return { ok: false, problem: slot };
        slot.text = styledLike(actions, edit.text);
        slot.change = 'changed';
        break;
      }
      case 'remove': {
        const slot = find(edit.step);
        if (typeof slot === 'string') return { ok: false, problem: slot };
        slot.removed = true;
        break;
      }
      case 'add': {
        const problem = place({ text: styledLike(actions, edit.text), change: 'added' }, edit.position);
        if (problem) return { ok: false, problem };
        break;
      }
      case 'move': {
        const slot = find(edit.step);
        if (typeof slot === 'string') return { ok: false, problem: slot };
        if (!('at' in edit.position) && ('before' in edit.position ? edit.position.before : edit.position.after) === edit.step) {
          return { ok: false, problem: `Step ${edit.step} cannot move next to itself.` };
        }
        slots.splice(slots.indexOf(slot), 1);
        const problem = place(slot, edit.position);
        if (problem) return { ok: false, problem };
        slot.change ??= 'moved';
        break;
      }
      case 'swap': {
        const [a, b] = [find(edit.steps[0]), find(edit.steps[1])];
        if (typeof a === 'string') return { ok: false, problem: a };
        if (typeof b === 'string') return { ok: false, problem: b };
        if (a === b) return { ok: false, problem: `Swapping step ${edit.steps[0]} with itself changes nothing.` };
        const [i, j] = [slots.indexOf(a), slots.indexOf(b)];
        slots[i] = b;
        slots[j] = a;
        a.change ??= 'moved';
        b.change ??= 'moved';
        break;
      }
      case 'rename_objective':
        objective = edit.text;
        break;
    }
  }
  const kept = slots.filter((slot) => !slot.removed);
  if (kept.length === 0) return { ok: false, problem: 'These changes would leave the plan without any step.' };
  if (kept.length > 50) return { ok: false, problem: 'A plan has at most 50 steps.' };
  return {
    ok: true,
    plan: {
      actions: kept.map((slot) => slot.text),
      changes: kept.map((slot) => slot.change),
      removed: slots.filter((slot) => slot.removed).map((slot) => slot.text),
      ...(objective === undefined ? {} : { objective }),
    },
  };
}

/** `text` with a capital first letter when every action of the plan starts with one ("a review" among "Pick a date", "Book a room"). */
function styledLike(actions: readonly string[], text: string): string {
  const capitalised = actions.length > 0 && actions.every((action) => /^\p{Lu}/u.test(action));
  return capitalised && /^\p{Ll}/u.test(text) ? `${text[0]?.toUpperCase() ?? ''}${text.slice(1)}` : text;
}

/**
 * The steps (1-based) a text names by number or ordinal ("step 2", "the last
 * step", "el tercer paso"), among a plan of `total` steps.
 *
 * @example
 * referencedSteps('make step 2 cheaper and drop the last one', 4); // Set {2, 4}
 */
export function referencedSteps(text: string, total: number): Set<number> {
  const found = new Set<number>();
  for (const match of fold(text).matchAll(new RegExp(`\\b(?:${STEP})`, 'g'))) {
    const step = stepNumber([...match], 1, total);
    if (step !== null && step >= 1 && step <= total) found.add(step);
  }
  return found;
}
