import { CONFIRMATION_VOCABULARY, type PhrasesByLanguage } from '../../runtime/planning/confirmation-vocabulary.js';
import type { PendingPlan } from '../../runtime/planning/plan-records.js';

/** A seeded PRNG (mulberry32): the same seed gives the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RandomClassifierInput {
  query: unknown;
  context: Readonly<Record<string, unknown>>;
  options: { now?: number; maxPlanAgeMs?: number } | undefined;
  /** The valid plan the context holds, when it holds one. */
  plan?: PendingPlan;
}

type Random = () => number;

const int = (random: Random, max: number): number => Math.floor(random() * max);
const pick = <T>(random: Random, values: readonly T[]): T => values[int(random, values.length)] as T;

const VOCABULARY_WORDS = Object.values(CONFIRMATION_VOCABULARY)
  .flatMap((table: PhrasesByLanguage) => [...table.en, ...table.es])
  .map((phrase) => phrase.replaceAll('#', '2'));
const OTHER_WORDS = ['weather', 'Paris', 'flight', 'the', 'plan', 'step', 'paso', 'but', 'pero', 'de', 'PLAN_CONFIRM_APPROVE', '3'];
const SEPARATORS = [' ', ', ', '! ', '... ', '\t', '  ', '\n', ' ¿', '? '];
const CODE_POINT_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x20, 0x7e],
  [0xc0, 0xff],
  [0x300, 0x36f],
  [0x4e00, 0x4e80],
  [0x1f600, 0x1f64f],
  [0xd800, 0xdfff],
  [0x2000, 0x200f],
  [0x0, 0x1f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];

function randomUnicode(random: Random, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) {
    const [low, high] = pick(random, CODE_POINT_RANGES);
    const codePoint = low + int(random, high - low + 1);
    // Lone surrogates are built with fromCharCode on purpose.
    out += codePoint >= 0xd800 && codePoint <= 0xdfff ? String.fromCharCode(codePoint) : String.fromCodePoint(codePoint);
  }
  return out;
}

function wordSoup(random: Random): string {
  const count = 1 + int(random, 5);
  let out = '';
  for (let i = 0; i < count; i += 1) {
    const word = random() < 0.8 ? pick(random, VOCABULARY_WORDS) : pick(random, OTHER_WORDS);
    const cased = random() < 0.2 ? word.toUpperCase() : random() < 0.2 ? word[0]?.toUpperCase() + word.slice(1) : word;
    out += (i === 0 ? '' : pick(random, SEPARATORS)) + cased;
  }
  return random() < 0.3 ? `  ${out}!! ` : out;
}

function hostile(random: Random): unknown {
  if (random() < 0.5) {
    return new Proxy(
      {},
      {
        get: () => {
          throw new Error('hostile get');
        },
        has: () => {
          throw new Error('hostile has');
        },
      },
    );
  }
  return Object.defineProperty({}, 'text', {
    enumerable: true,
    get: () => {
      throw new Error('hostile text');
    },
  });
}

function randomQuery(random: Random): unknown {
  switch (int(random, 12)) {
    case 0:
    case 1:
      return randomUnicode(random, int(random, 40));
    case 2:
    case 3:
    case 4:
      return wordSoup(random);
    case 5:
      return random() < 0.05 ? randomUnicode(random, 20_000 + int(random, 100_000)) : wordSoup(random).repeat(1 + int(random, 500));
    case 6:
      return pick(random, [0, -0, 1, 3.14, Number.NaN, Number.POSITIVE_INFINITY, -1e308, 2 ** 53, int(random, 1e9)]);
    case 7:
      return pick(random, [null, undefined, true, false, 10n, Symbol('q'), () => 'yes', new Date(0), /yes/, new Map()]);
    case 8:
      return pick(random, [
        { text: wordSoup(random) },
        { text: wordSoup(random), context_id: 'c' },
        { text: int(random, 9) },
        { context_id: 'c' },
        [wordSoup(random)],
        { text: { text: 'yes' } },
      ]);
    case 9:
      return JSON.stringify(random() < 0.7 ? { text: wordSoup(random) } : { other: wordSoup(random) });
    case 10:
      return `${pick(random, ['PLAN_CONFIRM_APPROVE', 'PLAN_CONFIRM_REJECT', 'PLAN_CONFIRM_MODIFY'])}${pick(random, ['', ' plan-1', '  x9', ' a b', 'z', '\t' + randomUnicode(random, 3)])}`;
    default:
      return hostile(random);
  }
}

function randomContext(random: Random, plan: PendingPlan): { context: Readonly<Record<string, unknown>>; plan?: PendingPlan } {
  switch (int(random, 10)) {
    case 0:
    case 1:
    case 2:
      return { context: { pending_plan: plan }, plan };
    case 3:
    case 4:
      return { context: { pending_plan: plan, awaiting_plan_modification: pick(random, [true, true, 'true', 1, null]) }, plan };
    case 5:
      return { context: {} };
    case 6:
      return {
        context: { pending_plan: pick(random, [null, 'plan', 42, [], { ...plan, actions: [] }, { ...plan, plan_id: '' }, { ...plan, created_at: 'soon' }]) },
      };
    case 7:
      return { context: pick(random, [null, undefined, 'ctx', 7, [plan]]) as unknown as Record<string, unknown> };
    case 8:
      return { context: hostile(random) as Record<string, unknown> };
    default: {
      const shifted = { ...plan, created_at: new Date(Date.parse(plan.created_at) + int(random, 1e10) - 5e9).toISOString() };
      return { context: { pending_plan: shifted }, plan: shifted };
    }
  }
}

/**
 * One random (query, context, options) triple of many shapes: unicode noise,
 * vocabulary soups, huge strings, numbers, objects, sentinels, hostile proxies.
 */
export function randomClassifierInput(random: Random, base: { plan: PendingPlan; now: number }): RandomClassifierInput {
  const query = randomQuery(random);
  const { context, plan } = randomContext(random, base.plan);
  const options = pick(random, [
    { now: base.now },
    { now: base.now },
    { now: base.now },
    { now: base.now, maxPlanAgeMs: pick(random, [0, 1, 60_000, Number.POSITIVE_INFINITY, -5, Number.NaN]) },
    { now: pick(random, [Number.NaN, Number.POSITIVE_INFINITY, -1, 0]) },
    undefined,
  ]);
  return plan === undefined ? { query, context, options } : { query, context, options, plan };
}
