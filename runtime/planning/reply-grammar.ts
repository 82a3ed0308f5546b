import { CONFIRMATION_VOCABULARY, OBJECT_PLACEHOLDER, REPLY_GRAMMAR, type PhrasesByLanguage } from './confirmation-vocabulary.js';
import { normalizeReplyText } from './normalize-reply-text.js';
import { DISMISSALS, REASON_MARKERS, REJECTION_REASONS } from './rejection-reasons.js';

/** What a reply made only of decision pieces says about the plan. */
export type ReplyDecision = 'approve' | 'reject' | 'modify' | 'unclear';

/** Separates clauses; a frame or a negation never reaches across it ("no, cancel it" is two pieces). */
const BOUNDARY = ',';
const CLAUSE_PUNCTUATION = /[,;.!?¡¿:…\n\r]+/u;
/** Replies longer than this are descriptions or requests, never a bare decision. */
const MAX_DECISION_TOKENS = 60;

const APPROVE = 1;
const REJECT = 2;
const MODIFY = 4;
const UNCLEAR = 8;
/** "don't change anything": no decision alone, and nothing against the decision beside it ("don't change anything, just run it"). */
const KEEP = 16;

type Piece =
  /** An idiom, a hedge or a filler (`bit` 0); only between pieces. */
  | { kind: 'phrase'; bit: number }
  /** A verb of a family (`bit`); it may follow frames and one negation, and take an object. */
  | { kind: 'verb'; bit: number }
  /** A light verb ("make", "hacer"): a wish to change, only with a change object ("make a few changes"). */
  | { kind: 'light' }
  | { kind: 'frame' }
  | { kind: 'negation' }
  /** What a verb acts on: the plan ("it", "el plan"), or for a change verb what changes ("a few things"). */
  | { kind: 'object' }
  | { kind: 'change_object' };

function forms(byLanguage: PhrasesByLanguage): string[] {
  return Object.values(byLanguage).flat();
}

const EMOJI = new Map(Object.entries(REPLY_GRAMMAR.emoji));
const EMOJI_PATTERN = new RegExp([...EMOJI.keys()].map((e) => e.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gu');
const CLITICS = [...REPLY_GRAMMAR.clitic].sort((a, b) => b.length - a.length);
/** Every verb form a clitic may be attached to. */
const VERB_FORMS: ReadonlySet<string> = new Set(
  [...Object.values(REPLY_GRAMMAR.verb).flatMap(forms), ...forms(REPLY_GRAMMAR.light_verb)].map(normalizeReplyText),
);

/** A Spanish verb form with enclitic pronouns, split: `cancelalo` → `cancela lo`, `apruebenlo` → `aprueben lo`. */
function splitClitic(token: string): string[] {
  if (VERB_FORMS.has(token)) return [token];
  for (const clitic of CLITICS) {
    if (token.length > clitic.length + 1 && token.endsWith(clitic)) {
      const stem = token.slice(0, -clitic.length);
      if (VERB_FORMS.has(stem)) return [stem, clitic];
    }
  }
  return [token];
}

/**
 * The tokens a reply is matched on: emoji read as words, each clause
 * normalised (`normalizeReplyText`), Spanish clitics split off verb forms, and
 * a `,` token between clauses. Phrases of the vocabulary go through the same
 * function, so they match whatever way they were written.
 *
 * @example
 * replyTokens('Dale, ejecútalo 👍'); // ['da', 'le', ',', 'ejecuta', 'lo', 'yes']
 */
export function replyTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const clause of text.replace(EMOJI_PATTERN, (e) => ` ${EMOJI.get(e) ?? ''} `).split(CLAUSE_PUNCTUATION)) {
    const normalized = normalizeReplyText(clause);
    if (normalized === '') continue;
    if (tokens.length > 0) tokens.push(BOUNDARY);
    for (const token of normalized.split(' ')) tokens.push(...splitClitic(token));
  }
  return tokens;
}

/** The dictionary of pieces, keyed by their tokens joined with spaces; built on first use. */
let dictionary: { pieces: ReadonlyMap<string, readonly Piece[]>; maxTokens: number } | undefined;

function buildDictionary(): NonNullable<typeof dictionary> {
  const pieces = new Map<string, Piece[]>();
  let maxTokens = 1;
  /** The key of a text: its tokens joined by spaces, without clause boundaries. */
  const keyOf = (text: string) =>
    replyTokens(text)
      .filter((token) => token !== BOUNDARY)
      .join(' ');
  const addKey = (key: string, piece: Piece) => {
    if (key === '') return;
    const existing = pieces.get(key);
    if (existing === undefined) {
      pieces.set(key, [piece]);
    } else {
      // One meaning per kind: the first entry wins (idioms are added before generated verb phrases).
      if (existing.some((p) => p.kind === piece.kind)) return;
      existing.push(piece);
    }
    let tokens = 1;
    for (let i = 0; i < key.length; i += 1) if (key.charCodeAt(i) === 32) tokens += 1;
    if (tokens > maxTokens) maxTokens = tokens;
  };
  const add = (text: string, piece: Piece) => addKey(keyOf(text), piece);
  const join = (...keys: string[]) => keys.filter((key) => key !== '').join(' ');
  const phraseClasses: ReadonlyArray<readonly [PhrasesByLanguage, number]> = [
    [CONFIRMATION_VOCABULARY.reject, REJECT],
    [CONFIRMATION_VOCABULARY.modify_request, MODIFY],
    [CONFIRMATION_VOCABULARY.approve, APPROVE],
    [REPLY_GRAMMAR.hedge, UNCLEAR],
    [REJECTION_REASONS, REJECT],
  ];
  for (const [table, bit] of phraseClasses) for (const phrase of forms(table)) add(phrase, { kind: 'phrase', bit });
  for (const filler of forms(CONFIRMATION_VOCABULARY.filler)) add(filler, { kind: 'phrase', bit: 0 });
  pieces.set(BOUNDARY, [{ kind: 'phrase', bit: 0 }]);
  for (const frame of forms(REPLY_GRAMMAR.frame)) add(frame, { kind: 'frame' });
  for (const negation of forms(REPLY_GRAMMAR.negation)) add(negation, { kind: 'negation' });

  const planObjects = forms(REPLY_GRAMMAR.plan_object).map(keyOf);
  for (const object of planObjects) addKey(object, { kind: 'object' });
  for (const object of forms(REPLY_GRAMMAR.change_object)) add(object, { kind: 'change_object' });
  for (const light of forms(REPLY_GRAMMAR.light_verb)) add(light, { kind: 'light' });
  for (const [family, bit] of [
    ['approve', APPROVE],
    ['reject', REJECT],
    ['modify', MODIFY],
  ] as const) {
    const piece: Piece = { kind: 'verb', bit };
    for (const verb of forms(REPLY_GRAMMAR.verb[family])) add(verb, piece);
    // A particle verb with its object inside ("turn it down") is generated whole: few patterns, a few dozen objects.
    for (const pattern of forms(REPLY_GRAMMAR.particle_verb[family])) {
      const [before = '', after = ''] = pattern.split(OBJECT_PLACEHOLDER).map(keyOf);
      for (const object of pattern.includes(OBJECT_PLACEHOLDER) ? ['', ...planObjects] : ['']) addKey(join(before, object, after), piece);
    }
  }
  return { pieces, maxTokens };
}

/** Where the reading is: free (between pieces), after frames, after a negation, after a verb (which may take an object), or after a light verb (which needs a change object). */
const FREE = 0;
const FRAMED = 1;
const NEGATED = 2;
const AFTER_VERB = 3;
const AFTER_CHANGE_VERB = 4;
const NEEDS_CHANGE_OBJECT = 5;
const MODES = 6;
const MASKS = 32;
const UNREACHED = 255;

/** A verb phrase under a negation: "don't run it" rejects; "don't cancel it" leaves the decision open; "don't change anything" keeps the plan. */
function negated(bit: number): number {
  return bit === APPROVE ? REJECT : bit === MODIFY ? KEEP : UNCLEAR;
}

/**
 * The decision of a set of pieces. With `oneReading` (the set is one way to
 * read the reply, not the union of several), a hedge beside a wish to change
 * is the wish ("hold on, I want to adjust something"; nothing runs either
 * way); otherwise a hedge in any reading leaves it open ("déjame revisarlo"
 * is "let me look at it" as much as "let me change it").
 */
function decisionOf(keepOrMask: number, oneReading: boolean): ReplyDecision {
  const mask = keepOrMask & ~KEEP;
  if (mask === 0 || (mask & APPROVE && mask & REJECT)) return 'unclear';
  if (mask & UNCLEAR && !(oneReading && mask & MODIFY && !(mask & APPROVE))) return 'unclear';
  if (mask & MODIFY) return 'modify';
  return mask & REJECT ? 'reject' : 'approve';
}

/**
 * Reads a reply made only of decision pieces (see `REPLY_GRAMMAR`): the
 * decision, or null when some part of it is not a decision piece. Of the ways
 * to read it, the one with the fewest pieces counts ("no lo ejecutes" is one
 * negated verb phrase, not "no" and "ejecutes"); when several such readings
 * disagree, or the pieces do ("yes no"), the decision is `unclear`. A hedge
 * ("not yet", "todavía no") makes the whole reply `unclear`, unless it goes
 * with a wish to change ("hold on, I want to adjust something"); a wish to
 * change ("yes, but I'd like to change a few things") makes it `modify`.
 * A reply that opens by taking back a change ("forget it, just go ahead",
 * "olvídalo, ejecútalo así") gets the decision that follows the dismissal.
 *
 * Pure and fast: a dynamic programme over token positions with 192 states
 * (six places in a sentence, thirty-two sets of decisions).
 *
 * @example
 * readDecision(replyTokens('Dale, ejecútalo'));              // 'approve'
 * readDecision(replyTokens('I turn this plan down'));        // 'reject'
 * readDecision(replyTokens('quisiera ajustar algunas cosas')); // 'modify'
 * readDecision(replyTokens('not yet'));                      // 'unclear'
 * readDecision(replyTokens('change step 2 to email'));       // null
 */
export function readDecision(tokens: readonly string[]): ReplyDecision | null {
  if (tokens.length === 0 || tokens.length > MAX_DECISION_TOKENS) return null;
  const rest = afterDismissal(tokens);
  if (rest > 0 && rest < tokens.length) {
    const decision = readPieces(tokens.slice(rest));
    if (decision !== null) return decision;
  }
  // A dismissal alone that is not also a rejection ("leave it"): about the plan, but which way is not said.
  return readPieces(tokens) ?? (rest === tokens.length ? 'unclear' : null);
}

/** The dynamic programme of `readDecision`, without the leading dismissal. */
function readPieces(tokens: readonly string[]): ReplyDecision | null {
  const { pieces, maxTokens } = (dictionary ??= buildDictionary());
  const width = MODES * MASKS;
  const cost = new Uint8Array((tokens.length + 1) * width).fill(UNREACHED);
  cost[FREE * MASKS] = 0;
  for (let start = 0; start < tokens.length; start += 1) {
    const row = start * width;
    let reachable = false;
    for (let s = 0; s < width; s += 1) if (cost[row + s] !== UNREACHED) reachable = true;
    if (!reachable) continue;
    let key = '';
    for (let length = 1; length <= maxTokens && start + length <= tokens.length; length += 1) {
      key = length === 1 ? (tokens[start] ?? '') : `${key} ${tokens[start + length - 1] ?? ''}`;
      const found = pieces.get(key);
      if (found === undefined) continue;
      const next = (start + length) * width;
      for (const piece of found) {
        for (let mode = 0; mode < MODES; mode += 1) {
          for (let mask = 0; mask < MASKS; mask += 1) {
            const from = cost[row + mode * MASKS + mask] ?? UNREACHED;
            if (from === UNREACHED) continue;
            let to: number;
            let toMask = mask;
            let added = 0;
            const between = mode === FREE || mode === AFTER_VERB || mode === AFTER_CHANGE_VERB;
            switch (piece.kind) {
              case 'phrase':
                if (!between) continue;
                to = FREE;
                toMask = mask | piece.bit;
                added = piece.bit === 0 ? 0 : 1;
                break;
              case 'frame':
                if (mode === NEEDS_CHANGE_OBJECT) continue;
                to = mode === NEGATED ? NEGATED : FRAMED;
                break;
              case 'negation':
                if (!between && mode !== FRAMED) continue;
                to = NEGATED;
                break;
              case 'verb':
              case 'light':
                if (mode === NEEDS_CHANGE_OBJECT) continue;
                {
                  const bit = piece.kind === 'verb' ? piece.bit : MODIFY;
                  to = piece.kind === 'light' ? NEEDS_CHANGE_OBJECT : bit === MODIFY ? AFTER_CHANGE_VERB : AFTER_VERB;
                  toMask = mask | (mode === NEGATED ? negated(bit) : bit);
                  added = 1;
                }
                break;
              case 'object':
                if (mode !== AFTER_VERB && mode !== AFTER_CHANGE_VERB) continue;
                to = FREE;
                break;
              case 'change_object':
                if (mode !== AFTER_CHANGE_VERB && mode !== NEEDS_CHANGE_OBJECT) continue;
                to = FREE;
                break;
            }
            const index = next + to * MASKS + toMask;
            const total = from + added;
            if (total < (cost[index] ?? UNREACHED)) cost[index] = total;
          }
        }
      }
    }
  }
  let best = UNREACHED;
  let readings: number[] = [];
  for (const mode of [FREE, AFTER_VERB, AFTER_CHANGE_VERB]) {
    const end = tokens.length * width + mode * MASKS;
    for (let mask = 1; mask < MASKS; mask += 1) {
      const c = cost[end + mask] ?? UNREACHED;
      if (c < best) {
        best = c;
        readings = [mask];
      } else if (c === best && c !== UNREACHED && !readings.includes(mask)) {
        readings.push(mask);
      }
    }
  }
  if (best === UNREACHED) return null;
  // The readings with the fewest pieces decide when they agree; otherwise their pieces together do.
  const decisions = new Set(readings.map((mask) => decisionOf(mask, true)));
  const [only] = decisions;
  return decisions.size === 1 && only !== undefined
    ? only
    : decisionOf(
        readings.reduce((a, b) => a | b, 0),
        false,
      );
}

/** The key of a phrase: its tokens joined by spaces, without clause boundaries. */
function phraseKey(text: string): string {
  return replyTokens(text)
    .filter((token) => token !== BOUNDARY)
    .join(' ');
}

/** Phrase keys by their number of tokens, longest first. */
function phraseTable(byLanguage: PhrasesByLanguage): ReadonlyArray<readonly [number, ReadonlySet<string>]> {
  const bySize = new Map<number, Set<string>>();
  for (const key of forms(byLanguage).map(phraseKey)) {
    if (key === '') continue;
    const size = key.split(' ').length;
    bySize.set(size, (bySize.get(size) ?? new Set()).add(key));
  }
  return [...bySize.entries()].sort(([a], [b]) => b - a);
}

/** The longest phrase of `table` at `start`, as its length in tokens; 0 when none. */
function phraseAt(table: ReadonlyArray<readonly [number, ReadonlySet<string>]>, tokens: readonly string[], start: number): number {
  for (const [size, keys] of table) {
    if (start + size <= tokens.length && keys.has(tokens.slice(start, start + size).join(' '))) return size;
  }
  return 0;
}

let dismissals: ReadonlyArray<readonly [number, ReadonlySet<string>]> | undefined;
let reasonMarkers: ReadonlyArray<readonly [number, ReadonlySet<string>]> | undefined;
/** What may come before a dismissal ("actually forget it") and between it and the decision ("forget it, just go ahead"). */
const BEFORE_DISMISSAL = new Set([BOUNDARY, 'actually', 'ok', 'okay', 'oh', 'ah', 'well', 'hmm', 'en', 'realidad', 'bueno', 'pues', 'mmm']);
const AFTER_DISMISSAL = new Set([BOUNDARY, 'and', 'just', 'so', 'then', 'y', 'solo', 'simplemente', 'entonces', 'mejor', 'pues']);

/**
 * Where the decision starts after a leading dismissal ("forget it, just go
 * ahead", "actually leave it and run it", "olvídalo, ejecútalo así"); 0 when
 * the reply does not open with one. Only at the very start: "run it, actually
 * forget it" takes the approval back and is read as a whole.
 */
function afterDismissal(tokens: readonly string[]): number {
  dismissals ??= phraseTable(DISMISSALS);
  let at = 0;
  while (at < tokens.length && BEFORE_DISMISSAL.has(tokens[at] ?? '')) at += 1;
  const size = phraseAt(dismissals, tokens, at);
  if (size === 0) return 0;
  at += size;
  while (at < tokens.length && AFTER_DISMISSAL.has(tokens[at] ?? '')) at += 1;
  return at;
}

/** Single-token negations that turn the verb after them around. */
const NEGATIONS = new Set(['no', 'not', 'dont', 'never', 'nunca', 'tampoco', 'ni']);

/** The decision bits of every piece found anywhere in `tokens`, whatever surrounds it. */
function bitsIn(tokens: readonly string[]): number {
  const { pieces, maxTokens } = (dictionary ??= buildDictionary());
  let bits = 0;
  for (let start = 0; start < tokens.length; start += 1) {
    let key = '';
    for (let length = 1; length <= maxTokens && start + length <= tokens.length; length += 1) {
      key = length === 1 ? (tokens[start] ?? '') : `${key} ${tokens[start + length - 1] ?? ''}`;
      for (const piece of pieces.get(key) ?? []) {
        if (piece.kind !== 'phrase' && piece.kind !== 'verb') continue;
        // "no, al final no vamos": an approval right after a negation is a refusal.
        bits |= piece.bit === APPROVE && NEGATIONS.has(tokens[start - 1] ?? '') ? REJECT : piece.bit;
      }
    }
  }
  return bits;
}

/**
 * Reads "no, <a reason>" ("no, we found another way", "no, ya lo resolví"):
 * `reject` when the first clause rejects and the rest is not a decision, a
 * change or a step; `unclear` when the rest holds an approving or hedging
 * word ("no, we'll do it ourselves": never an approval); null otherwise.
 * With `awaitingChange`, the rest must read as a reason ("anymore", "ya",
 * "otra forma"...), since "no, the hall should be bigger" is the change.
 * The caller checks the rest for modification cues first.
 *
 * @example
 * readReasonedRejection(replyTokens('no, we found another way'), { awaitingChange: false }); // 'reject'
 */
export function readReasonedRejection(tokens: readonly string[], options: { awaitingChange: boolean }): 'reject' | 'unclear' | null {
  const cut = tokens.indexOf(BOUNDARY);
  if (cut <= 0 || cut === tokens.length - 1 || tokens.length > MAX_DECISION_TOKENS) return null;
  if (readPieces(tokens.slice(0, cut)) !== 'reject') return null;
  const rest = tokens.slice(cut + 1).filter((token) => token !== BOUNDARY);
  if (rest.some((token) => /^\d+$/.test(token) || /^(?:steps?|pasos?|tasks?|tareas?)$/.test(token))) return null;
  const bits = bitsIn(rest);
  if (bits & (APPROVE | UNCLEAR)) return 'unclear';
  if (bits & MODIFY) return null;
  if (options.awaitingChange) {
    reasonMarkers ??= phraseTable(REASON_MARKERS);
    const markers = reasonMarkers;
    if (!rest.some((_, start) => phraseAt(markers, rest, start) > 0)) return null;
  }
  return 'reject';
}
