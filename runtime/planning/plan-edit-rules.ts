import type { PlanEdit, StepPosition } from './plan-edit-types.js';

/**
 * The clause forms of plan edits, in English and Spanish, as regular
 * expressions over a folded clause (lower case, no accents, apostrophes as
 * spaces), each with a builder. A builder gets the steps a captured reference
 * names through `ref` (see `resolveStepReference`) and returns the edits, or
 * null when the clause is not that form after all (the next form is tried).
 */

/** What a rule's builder can ask about the clause it matched. */
export interface RuleContext {
  /** The captured text of `group`, cut from the reply as written (casing and accents kept), cleaned of quotes. */
  text(group: number): string;
  /** The folded captured text of `group`, or undefined when the group did not take part. */
  raw(group: number): string | undefined;
  /**
   * The steps the reference in `group` names; null when it names none or, with
   * `single`, not exactly one. With `strict`, a content reference must match a
   * step word for word. With `asks`, a content reference that matches no step
   * is remembered, so the person is asked which step when no form reads the clause.
   */
  ref(group: number, options?: { single?: boolean; strict?: boolean; asks?: boolean }): number[] | null;
}

export interface ClauseRule {
  pattern: RegExp;
  build: (context: RuleContext) => PlanEdit[] | null;
}

function rule(source: string, build: ClauseRule['build']): ClauseRule {
  return { pattern: new RegExp(`^(?:${source})$`, 'd'), build };
}

/** Words that open an edit clause: a reply is split before them after "and", "then", "y", "luego" or a comma. */
export const EDIT_VERBS = [
  'change', 'replace', 'update', 'edit', 'modify', 'rewrite', 'swap', 'switch', 'exchange', 'flip', 'remove', 'delete', 'drop', 'skip', 'cut',
  'omit', 'eliminate', 'get rid of', 'take out', 'leave out', 'scrap', 'ditch', 'lose', 'scratch', 'nix', 'cross out', 'cross off', 'add', 'insert',
  'include', 'append', 'prepend', 'put', 'move', 'shift', 'bring', 'push', 'place', 'rename', 'retitle', 'the objective', 'make', 'use', 'instead',
  'haz', 'hazlo', 'usa', 'cambia', 'cambiar', 'modifica', 'reemplaza', 'sustituye', 'actualiza', 'edita', 'intercambia', 'quita', 'quitar', 'elimina',
  'eliminar', 'borra', 'borrar', 'omite', 'saltate', 'salta', 'suprime', 'saca', 'descarta', 'tacha', 'anade', 'anadir', 'agrega', 'agregar',
  'incluye', 'inserta', 'pon', 'ponle', 'mete', 'mueve', 'mover', 'sube', 'baja', 'coloca', 'renombra', 'el objetivo', 'en vez', 'en lugar',
]; // prettier-ignore
const VERB_LIST = EDIT_VERBS.map((verb) => verb.replace(/ /g, '\\s+')).join('|');
/** Starts with an edit verb: the text of "also …" is another edit, not a new step. */
export const STARTS_WITH_EDIT = new RegExp(`^(?:${VERB_LIST})\\b`);

const R = '(.+?)';
const REST = '(.+)';

// Positions: six groups each (edge word, edge phrase, relation, its reference, and the two steps of "between").
const POSITION_EN =
  '(?:(?:to|at|on|in)\\s+)?(?:the\\s+)?(?:very\\s+)?(end|bottom|back|start|beginning|top|front)(?:\\s+of\\s+(?:the\\s+)?(?:plan|list|line|queue))?' +
  '|(first|last|up\\s+front|first\\s+thing|last\\s+thing|as\\s+(?:the\\s+)?(?:first|last|final)\\s+(?:step|one|thing|item)|(?:before|after)\\s+(?:everything|anything)\\s+else|at\\s+the\\s+very\\s+(?:end|start))' +
  '|(right\\s+before|right\\s+after|just\\s+before|just\\s+after|immediately\\s+(?:before|after)|before|after|following|ahead\\s+of|prior\\s+to)\\s+(.+)' +
  '|(?:in\\s+)?between\\s+(.+?)\\s+and\\s+(.+)';
const POSITION_ES =
  '(?:(?:al|hasta\\s+el|hacia\\s+el|en\\s+el)\\s+)(final|fondo|principio|inicio|comienzo)(?:\\s+del\\s+plan|\\s+de\\s+la\\s+lista|\\s+de\\s+todo)?' +
  '|(primero|de\\s+primero|de\\s+ultimo|en\\s+primer\\s+lugar|en\\s+ultimo\\s+lugar|como\\s+(?:el\\s+)?(?:primer|ultimo)\\s+paso|lo\\s+primero|lo\\s+ultimo|arriba\\s+del\\s+todo|abajo\\s+del\\s+todo|arriba|abajo|ultimo|antes\\s+que\\s+nada|antes\\s+de\\s+todo|despues\\s+de\\s+todo)' +
  '|((?:justo\\s+)?antes\\s+(?:del|de|que)|(?:justo\\s+)?despues\\s+(?:del|de|que)|luego\\s+(?:del|de)|tras|detras\\s+(?:del|de))\\s+(.+)' +
  '|entre\\s+(.+?)\\s+y\\s+(.+)';
const POSITION_GROUPS = 6;

/** The position whose six groups start at `from`; null when a step it names is not one step. */
function positionAt(c: RuleContext, from: number): StepPosition | null {
  const [edgeWord, edgePhrase, relation] = [c.raw(from), c.raw(from + 1), c.raw(from + 2)];
  if (edgeWord !== undefined) return /end|bottom|back|final|fondo/.test(edgeWord) ? { at: 'end' } : { at: 'start' };
  if (edgePhrase !== undefined) return /last|final|ultimo|abajo|after|despues|end/.test(edgePhrase) ? { at: 'end' } : { at: 'start' };
  if (relation !== undefined) {
    const [step] = c.ref(from + 3, { single: true, asks: true }) ?? [];
    if (step === undefined) return null;
    return /before|ahead|prior|antes/.test(relation) ? { before: step } : { after: step };
  }
  const [a] = c.ref(from + 4, { single: true, asks: true }) ?? [];
  const [b] = c.ref(from + 5, { single: true, asks: true }) ?? [];
  return a === undefined || b === undefined ? null : { between: [a, b] };
}

const SWAP_EN = '(?:swap|switch|exchange|flip|trade|invert|reverse|interchange)(?:\\s+(?:the\\s+)?(?:order|places|positions)\\s+of)?';
const SWAP_ES =
  '(?:intercambia|intercambiar|intercambiemos|invierte|permuta|alterna|cambia\\s+(?:el\\s+orden|de\\s+orden|de\\s+lugar|de\\s+sitio)(?:\\s+(?:de|entre))?|cambia\\s+de\\s+sitio)';
const MOVE_EN = '(?:move|shift|bring|push|pull|reorder|relocate)';
const MOVE_EN_OR_ADD = '(?:put|place|do|schedule|have|get|handle|book)';
const MOVE_ES = '(?:mueve|mover|movamos|muevan|pasa|lleva|sube|baja|traslada)';
const MOVE_ES_OR_ADD = '(?:pon|ponga|pongamos|coloca|haz|hagamos|deja|ubica|programa)';
const REMOVE_EN =
  '(?:remove|delete|drop|skip|cut|omit|eliminate|exclude|get\\s+rid\\s+of|take\\s+out|leave\\s+out|scrap|ditch|lose|strike|cross\\s+out|cross\\s+off|scratch|nix|axe|bin|trash|cancel|forget(?:\\s+about)?|no\\s+need\\s+for|pass\\s+on|take\\s+away|do\\s+away\\s+with|(?:we|i)\\s+(?:don\\s+t|do\\s+not|won\\s+t)\\s+(?:need|want)|(?:don\\s+t|do\\s+not)\\s+(?:do|bother\\s+with|include))';
const REMOVE_ES =
  '(?:quita|quitar|quitale|quitemos|quiten|elimina|eliminar|eliminemos|borra|borrar|borremos|omite|omitir|omitamos|saltate|salta|saltar|saltemos|nos\\s+saltamos|suprime|suprimir|saca|sacar|descarta|descartar|tacha|cancela|olvida|olvidate|olvidemos|olvidense|prescinde|deja\\s+fuera|no\\s+hace\\s+falta|(?:ya\\s+)?no\\s+(?:necesito|necesitamos|hace\\s+falta|quiero|queremos))';
const REMOVED_EN =
  '(?:is\\s+not\\s+needed|isn\\s+t\\s+needed|is\\s+unnecessary|is\\s+not\\s+necessary|isn\\s+t\\s+necessary|is\\s+redundant|can\\s+go|has\\s+to\\s+go|can\\s+be\\s+(?:removed|skipped|dropped)|should\\s+be\\s+(?:removed|skipped|dropped)|should\\s+go|must\\s+go|goes|is\\s+out)(?:\\s+(?:now|anymore))?';
const REMOVED_ES =
  '(?:sobra|no\\s+hace\\s+falta|ya\\s+no\\s+hace\\s+falta|no\\s+es\\s+necesari[oa]|se\\s+puede\\s+quitar|no\\s+va|fuera|hay\\s+que\\s+quitarlo|sobra\\s+ya)';
const REPLACE_EN = '(?:change|replace|update|edit|modify|rewrite|reword|set|turn|switch|swap)';
const REPLACE_ES = '(?:cambia|cambiar|cambiale|cambiemos|modifica|modificar|reemplaza|reemplazar|sustituye|sustituir|actualiza|edita|reescribe|convierte)';
const BECOMES_EN =
  '(?:should\\s+be|should\\s+say|should\\s+read|must\\s+be|will\\s+be|becomes|is\\s+now|could\\s+be|needs\\s+to\\s+be|has\\s+to\\s+be|ought\\s+to\\s+be|:|=)';
const BECOMES_ES = '(?:debe\\s+ser|deberia\\s+ser|sera|pasa\\s+a\\s+ser|tiene\\s+que\\s+ser|que\\s+sea|:|=)';
const INSTEAD_EN = '(?:instead\\s+of|in\\s+place\\s+of|rather\\s+than)';
const INSTEAD_ES = '(?:en\\s+(?:vez|lugar)\\s+(?:del|de))';
const ADD_EN = '(?:add|insert|include|append|put|also\\s+do|tack\\s+on|stick|throw\\s+in|slot\\s+in|squeeze\\s+in)';
const ADD_ES = '(?:anade|anadir|anademos|agrega|agregar|agreguemos|incluye|incluir|inserta|insertar|pon|ponle|mete|meter|suma|mete)';
const NEW_STEP_EN =
  '(?:(?:a|an|one|another)\\s+(?:new\\s+|extra\\s+|final\\s+|additional\\s+)?(?:step|task|action|item)\\s*(?:to\\s+|that\\s+|for\\s+|:\\s*|-\\s*|called\\s+|saying\\s+)?)?';
const NEW_STEP_ES = '(?:(?:un|otro|una|otra)\\s+(?:nuevo\\s+|nueva\\s+)?(?:paso|tarea|accion|punto)\\s*(?:para\\s+|que\\s+|de\\s+|:\\s*|-\\s*)?)?';
/** A reference by position only (the "make step 2 …" form, where content words would run into the new text). */
const POSITIONAL =
  '((?:the\\s+)?(?:(?:step|task|item)\\s+(?:number\\s+)?\\S+|(?:\\S+\\s+){0,2}?(?:step|task|item|one))|(?:el\\s+|la\\s+)?(?:(?:paso|tarea)\\s+(?:numero\\s+)?\\S+|\\S+\\s+(?:paso|tarea)))';

/** Words of a text that make it a change to be worked out ("cheaper", "more detailed"), not the text of a step. */
const COMPARISON =
  /^(?:(?:a\s+)?(?:bit|little|lot|much|way)\s+)?(?:more|less|mas|menos|better|worse|mejor|peor|un\s+poco|mucho|cheaper|bigger|smaller|shorter|longer|faster|slower|quicker|simpler|easier|earlier|later|closer|nicer|safer|larger|lighter|fewer|mas\s+\S+)$|^(?:more|less|mas|menos)\s/;
/** A new step's text may not itself name steps or places in the plan: that is an edit the parser did not read. */
const NAMES_STEPS =
  /\b(?:steps?|pasos?|tasks?|tareas?)\s+(?:\d|number|numero|one|two|three|four|five|uno|dos|tres|cuatro|cinco)|\b(?:between|entre|before|after|antes\s+del?|despues\s+del?|instead\s+of|en\s+(?:vez|lugar)\s+del?)\b|\b(?:at|to)\s+the\s+(?:very\s+)?(?:end|start|beginning|top|bottom)\b|\bal\s+(?:final|principio|inicio)\b/;

function one(c: RuleContext, group: number, options: { strict?: boolean; asks?: boolean } = {}): number | null {
  return c.ref(group, { ...options, single: true })?.[0] ?? null;
}
function swap(a: number | null, b: number | null): PlanEdit[] | null {
  return a === null || b === null ? null : [{ op: 'swap', steps: [a, b] }];
}
function swapAll(steps: number[] | null): PlanEdit[] | null {
  return steps?.length === 2 ? swap(steps[0] ?? null, steps[1] ?? null) : null;
}
function rename(text: string): PlanEdit[] | null {
  return text === '' ? null : [{ op: 'rename_objective', text }];
}
/** Moves keep the order written: "move steps 3 and 4 to the start" gives 3, 4, then the rest. */
function move(steps: number[] | null, position: StepPosition | null): PlanEdit[] | null {
  if (steps === null || steps.length === 0 || position === null) return null;
  const unique = [...new Set(steps)];
  const ordered = ('at' in position && position.at === 'start') || 'after' in position ? unique.reverse() : unique;
  return ordered.map((step) => ({ op: 'move', step, position }));
}
function remove(steps: number[] | null): PlanEdit[] | null {
  return steps === null || steps.length === 0 ? null : [...new Set(steps)].map((step) => ({ op: 'remove', step }));
}
function replace(step: number | null, text: string): PlanEdit[] | null {
  if (step === null || text === '' || COMPARISON.test(fold(text)) || NAMES_STEPS.test(fold(text))) return null;
  return [{ op: 'replace', step, text }];
}
function add(text: string, position: StepPosition | null, verb = ''): PlanEdit[] | null {
  if (text === '' || position === null || NAMES_STEPS.test(fold(text)) || STARTS_WITH_EDIT.test(fold(text))) return null;
  // "put the notification first" moves a step the person named, even in other words: never a new step "The notification".
  if (PUT.test(verb) && DEFINITE.test(fold(text))) return null;
  return [{ op: 'add', text, position }];
}
function fold(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '');
}
/** Verbs that may move a step or add one. */
const PUT = /^(?:put|place|pon|ponle|coloca|mete)\b/;
/** A definite noun phrase names something already there ("the notification", "lo del seguro"). */
const DEFINITE = /^(?:the|el|la|los|las|lo|this|that|esa|ese|esta|este)\s/;

/** "do X instead of step 2": the new text without the verb that only introduces it. */
function withoutLeadVerb(text: string): string {
  return text.replace(/^(?:do|use|have|usa|haz)\s+/i, '');
}

/** The clause forms, tried in order: the first whose builder gives edits reads the clause. */
export const RULES: readonly ClauseRule[] = [
  // rename the objective
  rule(
    `(?:rename|retitle|change|set|update|make)\\s+(?:the\\s+)?(?:objective|goal|title|plan\\s+name|name\\s+of\\s+the\\s+plan)\\s+(?:to|into|as|:)\\s*${REST}`,
    (c) => rename(c.text(1)),
  ),
  rule(`(?:the\\s+)?(?:objective|goal|title)\\s+(?:should\\s+be|must\\s+be|is\\s+now|becomes|is|:)\\s*${REST}`, (c) => rename(c.text(1))),
  rule(`(?:call\\s+(?:it|the\\s+plan)|name\\s+(?:it|the\\s+plan))\\s+${REST}`, (c) => rename(c.text(1))),
  rule(
    `(?:renombra|cambia|cambiar|pon|actualiza|modifica)\\s+(?:el\\s+|la\\s+)?(?:objetivo|titulo|nombre\\s+del\\s+plan|meta)\\s+(?:a|por|como|en|:)\\s*${REST}`,
    (c) => rename(c.text(1)),
  ),
  rule(`(?:el\\s+|la\\s+)?(?:objetivo|titulo|meta)\\s+(?:debe\\s+ser|deberia\\s+ser|sera|es|pasa\\s+a\\s+ser|:)\\s*${REST}`, (c) => rename(c.text(1))),
  rule(`(?:llamalo|nombralo|llama\\s+al\\s+plan|nombra\\s+al\\s+plan|ponle\\s+(?:de\\s+)?(?:nombre|titulo))\\s+${REST}`, (c) => rename(c.text(1))),
  // swap: "swap steps 1 and 2", "exchange the first step with the last one", "intercambia el primero y el último"
  rule(`${SWAP_EN}\\s+${R}\\s+(?:with|for)\\s+${REST}`, (c) => swap(one(c, 1, { asks: true }), one(c, 2, { asks: true }))),
  rule(`${SWAP_EN}\\s+${REST}`, (c) => swapAll(c.ref(1, { asks: true }))),
  rule(`${SWAP_ES}\\s+${R}\\s+(?:con|por)\\s+${REST}`, (c) => swap(one(c, 1, { asks: true }), one(c, 2, { asks: true }))),
  rule(`${SWAP_ES}\\s+${REST}`, (c) => swapAll(c.ref(1, { asks: true }))),
  // move: "move the flights to the end", "put the car first", "pon lo del seguro al principio"
  rule(`${MOVE_EN}\\s+${R}\\s+(?:(?:up|down)\\s+)?(?:to\\s+)?(?:${POSITION_EN})`, (c) => move(c.ref(1, { asks: true }), positionAt(c, 2))),
  rule(`${MOVE_EN_OR_ADD}\\s+${R}\\s+(?:${POSITION_EN})`, (c) => move(c.ref(1, { strict: true, asks: DEFINITE.test(c.raw(1) ?? '') }), positionAt(c, 2))),
  rule(`${R}\\s+(?:should|must|needs\\s+to|has\\s+to|could|can|will)\\s+(?:come|go|be|happen|be\\s+done|move)\\s+(?:${POSITION_EN})`, (c) =>
    move(c.ref(1), positionAt(c, 2)),
  ),
  rule(`${MOVE_ES}\\s+${R}\\s+(?:a\\s+)?(?:${POSITION_ES})`, (c) => move(c.ref(1, { asks: true }), positionAt(c, 2))),
  rule(`${MOVE_ES_OR_ADD}\\s+${R}\\s+(?:${POSITION_ES})`, (c) => move(c.ref(1, { strict: true, asks: DEFINITE.test(c.raw(1) ?? '') }), positionAt(c, 2))),
  rule(`${R}\\s+(?:debe|deberia|tiene\\s+que|puede|va|ira|iria)\\s+(?:ir|ser|hacerse|estar)?\\s*(?:${POSITION_ES})`, (c) => move(c.ref(1), positionAt(c, 2))),
  // remove: "remove steps 1 and 4", "skip booking the hotel", "quita lo del coche", "the car can go"
  rule(`${REMOVE_EN}\\s+${REST}`, (c) => remove(c.ref(1, { asks: true }))),
  rule(`(?:take|leave|cross|strike|cut|knock)\\s+${R}\\s+(?:out|off)(?:\\s+(?:of|from)\\s+(?:the\\s+)?(?:plan|list))?`, (c) =>
    remove(c.ref(1, { asks: true })),
  ),
  rule(`(?:no|without)\\s+${REST}`, (c) => remove(c.ref(1, { strict: true }))),
  rule(`${R}\\s+${REMOVED_EN}`, (c) => remove(c.ref(1))),
  rule(`${REMOVE_ES}\\s+${REST}`, (c) => remove(c.ref(1, { asks: true }))),
  rule(`(?:sin|fuera)\\s+${REST}`, (c) => remove(c.ref(1, { strict: true }))),
  rule(`${R}\\s+${REMOVED_ES}`, (c) => remove(c.ref(1))),
  // replace: "change the hotel to a hostel", "step 2 should be …", "make step 2 a call", "instead of X, Y", "que el paso 2 sea …"
  rule(`${REPLACE_EN}\\s+${R}\\s+(?:to\\s+say|to\\s+read|so\\s+(?:that\\s+)?it\\s+(?:says|reads)|to|into|with|by|for|as|:|=)\\s*${REST}`, (c) =>
    replace(one(c, 1, { asks: true }), c.text(2)),
  ),
  rule(`make\\s+${POSITIONAL}\\s+(?:be\\s+|say\\s+|read\\s+|into\\s+)?${REST}`, (c) => replace(one(c, 1), c.text(2))),
  rule(`${R}\\s+${BECOMES_EN}\\s*${REST}`, (c) => replace(one(c, 1), c.text(2))),
  rule(`${INSTEAD_EN}\\s+${R}\\s*,\\s*(?:(?:let\\s+s|lets|we\\s+(?:ll|will|should)|i\\s+(?:want|d\\s+like)\\s+to|go\\s+with)\\s+)?${REST}`, (c) =>
    replace(one(c, 1, { asks: true }), withoutLeadVerb(c.text(2))),
  ),
  rule(`${INSTEAD_EN}\\s+${POSITIONAL}\\s+${REST}`, (c) => replace(one(c, 1), withoutLeadVerb(c.text(2)))),
  rule(`${R}\\s+${INSTEAD_EN}\\s+${REST}`, (c) => replace(one(c, 2), withoutLeadVerb(c.text(1)))),
  rule(`${REPLACE_ES}\\s+${R}\\s+(?:para\\s+que\\s+(?:sea|diga)|que\\s+sea|por|a|con|como|en|:|=)\\s*${REST}`, (c) =>
    replace(one(c, 1, { asks: true }), c.text(2)),
  ),
  rule(`(?:haz\\s+que\\s+|quiero\\s+que\\s+|que\\s+)${R}\\s+(?:sea|diga)\\s+${REST}`, (c) => replace(one(c, 1, { asks: true }), c.text(2))),
  rule(`${R}\\s+${BECOMES_ES}\\s*${REST}`, (c) => replace(one(c, 1), c.text(2))),
  rule(`${INSTEAD_ES}\\s+${R}\\s*,\\s*${REST}`, (c) => replace(one(c, 1, { asks: true }), withoutLeadVerb(c.text(2)))),
  rule(`${R}\\s+${INSTEAD_ES}\\s+${REST}`, (c) => replace(one(c, 2), withoutLeadVerb(c.text(1)))),
  // add: "add a review at the end", "add call the venue between steps 1 and 2", "añade X antes de lo del hotel"
  rule(`(?:prepend|start\\s+with|begin\\s+with)\\s+${NEW_STEP_EN}${REST}`, (c) => add(c.text(1), { at: 'start' })),
  rule(`${ADD_EN}\\s+(?:${POSITION_EN})\\s*[:,-]\\s*${NEW_STEP_EN}${REST}`, (c) => add(c.text(1 + POSITION_GROUPS), positionAt(c, 1))),
  rule(`${ADD_EN}\\s+(?:at\\s+the\\s+(?:very\\s+)?(?:end|start|beginning|top|bottom)|first|last)\\s+${NEW_STEP_EN}${REST}`, (c) =>
    add(c.text(1), /end|bottom|last/.test(c.raw(0) ?? '') ? { at: 'end' } : { at: 'start' }),
  ),
  rule(`${ADD_EN}\\s+${NEW_STEP_EN}${R}\\s+(?:${POSITION_EN})`, (c) => add(c.text(1), positionAt(c, 2), c.raw(0))),
  rule(`${ADD_EN}\\s+${NEW_STEP_EN}${R}(?:\\s+(?:to|in|into|on)\\s+(?:the\\s+)?(?:plan|list|steps))?`, (c) => add(c.text(1), { at: 'end' }, c.raw(0))),
  rule(`${ADD_ES}\\s+(?:${POSITION_ES})\\s*[:,-]?\\s+${NEW_STEP_ES}${REST}`, (c) => add(c.text(1 + POSITION_GROUPS), positionAt(c, 1))),
  rule(`${ADD_ES}\\s+${NEW_STEP_ES}${R}\\s+(?:${POSITION_ES})`, (c) => add(c.text(1), positionAt(c, 2), c.raw(0))),
  rule(`${ADD_ES}\\s+${NEW_STEP_ES}${R}(?:\\s+(?:al|en\\s+el)\\s+plan|\\s+a\\s+la\\s+lista)?`, (c) => add(c.text(1), { at: 'end' }, c.raw(0))),
  // "the flights before the hotel", "lo del coche antes que lo del hotel": an order without a verb
  rule(`${R}\\s+(before|ahead\\s+of|prior\\s+to|after)\\s+${REST}`, (c) =>
    move(c.ref(1, { strict: true }), positionFrom(c.raw(2) ?? '', one(c, 3, { strict: true }))),
  ),
  rule(`${R}\\s+(antes\\s+(?:del|de|que)|despues\\s+(?:del|de|que))\\s+${REST}`, (c) =>
    move(c.ref(1, { strict: true }), positionFrom(c.raw(2) ?? '', one(c, 3, { strict: true }))),
  ),
  // "fix the bug first", "llama al fontanero primero": a step named in its own words, then where it goes
  rule(`${R}\\s+(?:${POSITION_EN})`, (c) => move(c.ref(1, { strict: true }), positionAt(c, 2))),
  rule(`${R}\\s+(?:${POSITION_ES})`, (c) => move(c.ref(1, { strict: true }), positionAt(c, 2))),
  // "also rent a car": a new last step, unless what follows is another edit ("also remove step 2").
  rule(`(?:also|plus|and\\s+also|additionally|and)\\s+${NEW_STEP_EN}${R}`, (c) => add(c.text(1), { at: 'end' })),
  rule(`(?:tambien|ademas|y\\s+tambien)\\s+${NEW_STEP_ES}${R}`, (c) => add(c.text(1), { at: 'end' })),
  rule(`(?:empieza|comienza)\\s+(?:por|con)\\s+${NEW_STEP_ES}${R}`, (c) => add(c.text(1), { at: 'start' })),
];

function positionFrom(relation: string, step: number | null): StepPosition | null {
  if (step === null) return null;
  return /before|ahead|prior|antes/.test(relation) ? { before: step } : { after: step };
}
