/**
 * JSON schemas and documents as OPA checks them (gojsonschema behind
 * `json.match_schema` and `json.verify_schema`): schemas built from the
 * draft-04/06/07 keywords gojsonschema knows, nested through `items`,
 * `properties`, `anyOf`/`oneOf`/`allOf`/`not`, `if`/`then`/`else`,
 * `contains`, `dependencies` and local `$ref`s, with boolean schemas and
 * draft-04's boolean `exclusiveMinimum`; property names that are keywords
 * (`contains`, `minimum`, `exclusiveMaximum`, …), where a keyword-blind
 * rewrite of the schema would change its meaning; documents of every JSON
 * type, with empty arrays and objects often (a `contains` over an empty
 * array, after a non-empty one, was accepted by ajv where OPA refuses it).
 *
 * One keyword in about thirty is malformed (at most one per schema), so
 * gojsonschema's refusals of schemas are compared too.
 *
 * Each slot's validity and its error list are separate rules, the list
 * sorted: gojsonschema walks an object's properties in Go's random map order,
 * so OPA's own order of two properties' errors changes from run to run.
 * Schema errors are compared word for word (`exactErrors`).
 */
import type { Rng, Template } from './corpus.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Draft-04 schemas (boolean exclusive bounds, no boolean schemas); whether `$ref`s may be written. */
interface Opts {
  draft4: boolean;
  refs: boolean;
  /** Whether one malformed keyword may still be written (one per schema: gojsonschema's first of two may be either, in Go's map order). */
  flaw: { left: boolean };
}

/** Keywords gojsonschema's parser refuses (each in its words), and `enum: []`, which allows nothing. */
const FLAWS: Array<{ [k: string]: Json }> = [
  { format: 5 },
  { title: 5 },
  { pattern: 5 },
  { pattern: '(' },
  { $ref: 5 },
  { dependencies: 5 },
  { dependencies: { a: 5 } },
  { not: 5 },
  { enum: [] },
  { enum: [1, 1] },
  { items: 5 },
  { patternProperties: 5 },
  { propertyNames: 5 },
  { type: 'foo' },
  { type: ['string', 'string'] },
  { minLength: -1 },
  { minItems: 1.5 },
  { multipleOf: 0 },
  { multipleOf: 'x' },
  { required: ['a', 'a'] },
  { uniqueItems: 1 },
  { minimum: 'x' },
  { minLength: 2, maxLength: 1 },
  { minProperties: 2, maxProperties: 1 },
  { exclusiveMinimum: true },
  { additionalProperties: 5 },
  { additionalItems: 5 },
  { allOf: 5 },
  { $ref: '#/definitions/nowhere' },
];

const NAMES = ['a', 'b', 'c', 'contains', 'minimum', 'exclusiveMinimum', 'exclusiveMaximum', 'items', 'minItems', 'type', 'enum'];
const TYPES = ['string', 'number', 'integer', 'boolean', 'null', 'array', 'object'];
const STRINGS = ['', 'a', 'ab', 'abc', 'x y', '12', 'é', 'A1'];
const NUMBERS: Json[] = [0, 1, -1, 2, 2.5, 3, 10, -0.5, 100];
/**
 * Number texts a double does not hold (written into the JSON text as they are,
 * through a `#n:` marker): gojsonschema reads them exactly, as `big.Rat`.
 * Numbers beyond a double's range are bounds only (`maximum`: compared as
 * they are): in a document, OPA v1.20.2 panics when `const`, `enum` or
 * `uniqueItems` meets one, and in a schema's `const` or `enum` it is a refusal
 * (Go's decoding error), which would be a second schema fault where OPA
 * reports the first it meets in Go's random map order (`json-schema.test.ts`
 * checks both).
 */
const EXACT = [
  '-1e-400',
  '1e-400',
  '9007199254740993',
  '9007199254740992',
  '0.3',
  '0.1',
  '1e6',
  '1000000',
  '0.00001',
  '1.0',
  '2e0',
  '12345678901234567890',
  '1.5e300',
];
const BEYOND_DOUBLE = ['1e400', '-1e400'];
const number = (rng: Rng, bound = false): Json => (rng.chance(0.25) ? `#n:${rng.pick(bound && rng.chance(0.2) ? BEYOND_DOUBLE : EXACT)}` : rng.pick(NUMBERS));

function some<T>(rng: Rng, max: number, make: () => T): T[] {
  return Array.from({ length: rng.int(max + 1) }, make);
}

function names(rng: Rng, max: number): string[] {
  return [...new Set(some(rng, max, () => rng.pick(NAMES)))];
}

/** A JSON value of any type, small; arrays and objects are empty a third of the time. */
function doc(rng: Rng, depth: number): Json {
  const k = rng.int(depth > 2 ? 5 : 7);
  switch (k) {
    case 0:
      return rng.pick(STRINGS);
    case 1:
      return number(rng);
    case 2:
      return rng.pick([true, false, null]);
    case 3:
      return rng.pick(STRINGS);
    case 4:
      return number(rng);
    case 5:
      return rng.chance(0.33) ? [] : some(rng, 3, () => doc(rng, depth + 1));
    default:
      return rng.chance(0.33) ? {} : Object.fromEntries(names(rng, 3).map((n) => [n, doc(rng, depth + 1)]));
  }
}

/** A schema: a boolean one now and then, else an object of one to three keyword groups. */
function schema(rng: Rng, depth: number, o: Opts): Json {
  if (!o.draft4 && rng.chance(0.08)) return rng.chance(0.5);
  const out: { [k: string]: Json } = {};
  const groups = 1 + rng.int(depth > 2 ? 1 : 3);
  for (let i = 0; i < groups; i++) Object.assign(out, keywords(rng, depth, o));
  return out;
}

function sub(rng: Rng, depth: number, o: Opts): Json {
  return schema(rng, depth + 1, o);
}

function keywords(rng: Rng, depth: number, o: Opts): { [k: string]: Json } {
  if (o.flaw.left && rng.chance(0.03)) {
    o.flaw.left = false;
    return rng.pick(FLAWS);
  }
  const nested = depth < 4;
  const draft4 = o.draft4;
  switch (rng.int(nested ? 20 : 9)) {
    case 0:
      return { type: rng.chance(0.7) ? rng.pick(TYPES) : [...new Set([rng.pick(TYPES), rng.pick(TYPES)])] };
    case 1: {
      const n = rng.pick(NUMBERS);
      if (o) return rng.chance(0.5) ? { minimum: n, exclusiveMinimum: rng.chance(0.5) } : { maximum: n, exclusiveMaximum: rng.chance(0.5) };
      return rng.pick<{ [k: string]: Json }>([
        { minimum: n },
        { maximum: n },
        { exclusiveMinimum: n },
        { exclusiveMaximum: n },
        { multipleOf: rng.pick<Json>([1, 2, 0.5, 3, '#n:0.1', '#n:0.01', '#n:1e-400', '#n:1e400']) },
      ]);
    }
    case 2:
      return rng.pick<{ [k: string]: Json }>([{ minLength: rng.int(3) }, { maxLength: rng.int(3) }, { pattern: rng.pick(['^a', 'b$', '[0-9]', '^$']) }]);
    case 3:
      return rng.pick<{ [k: string]: Json }>([{ minItems: rng.int(3) }, { maxItems: rng.int(3) }, { uniqueItems: rng.chance(0.7) }]);
    case 4:
      return { required: names(rng, 2) };
    case 5:
      return {
        enum: some(rng, 3, () => doc(rng, 3))
          .concat([rng.pick(STRINGS)])
          .filter((v, i, all) => all.findIndex((w) => JSON.stringify(w) === JSON.stringify(v)) === i),
      };
    case 6:
      return { const: doc(rng, 3) };
    case 7:
      return rng.pick<{ [k: string]: Json }>([{ minProperties: rng.int(3) }, { maxProperties: rng.int(3) }]);
    case 8:
      return { format: rng.pick(['email', 'ipv4', 'date-time', 'uri', 'hostname']) };
    case 9:
      return { items: sub(rng, depth, o) };
    case 10:
      return { items: some(rng, 2, () => sub(rng, depth, o)), additionalItems: rng.chance(0.5) ? rng.chance(0.5) : sub(rng, depth, o) };
    case 11:
      return draft4 ? { items: sub(rng, depth, o) } : { contains: rng.chance(0.15) ? rng.chance(0.5) : sub(rng, depth, o) };
    case 12:
      return {
        properties: Object.fromEntries(names(rng, 3).map((n) => [n, rng.chance(0.2) && !draft4 ? rng.chance(0.5) : sub(rng, depth, o)])),
        ...(rng.chance(0.4) ? { additionalProperties: rng.chance(0.6) ? rng.chance(0.5) : sub(rng, depth, o) } : {}),
      };
    case 13:
      return { patternProperties: { [rng.pick(['^a', 'x', '^c', 'm'])]: sub(rng, depth, o) } };
    case 14:
      return { [rng.pick(['anyOf', 'oneOf', 'allOf'])]: Array.from({ length: 1 + rng.int(3) }, () => sub(rng, depth, o)) };
    case 15:
      return { not: sub(rng, depth, o) };
    case 16:
      return draft4
        ? { not: sub(rng, depth, o) }
        : { if: sub(rng, depth, o), ...(rng.chance(0.7) ? { then: sub(rng, depth, o) } : {}), ...(rng.chance(0.5) ? { else: sub(rng, depth, o) } : {}) };
    case 17:
      return { dependencies: { [rng.pick(NAMES)]: rng.chance(0.5) ? names(rng, 2) : sub(rng, depth, o) } };
    case 18:
      return draft4 ? { required: names(rng, 1) } : { propertyNames: rng.pick<Json>([{ maxLength: 1 }, { pattern: '^[a-c]' }, { enum: ['a', 'b'] }]) };
    default:
      // No $ref inside the definitions: a definition that reaches itself without reading into the document crashes OPA.
      return o.refs ? { $ref: rng.pick(['#/definitions/d', '#/definitions/e']) } : { not: sub(rng, depth, o) };
  }
}

function rootSchema(rng: Rng): Json {
  const draft4 = rng.chance(0.15);
  const flaw = { left: true };
  const root = wrap(rng, schema(rng, 0, { draft4, refs: true, flaw }));
  if (typeof root !== 'object' || root === null || Array.isArray(root)) return root;
  root['definitions'] = { d: schema(rng, 3, { draft4, refs: false, flaw }), e: schema(rng, 3, { draft4, refs: false, flaw }) };
  if (draft4) root['$schema'] = 'http://json-schema.org/draft-04/schema#';
  return root;
}

/** Schemas and documents per input: each pair is matched by its own rules. */
export const JSON_SCHEMA_SLOTS = 6;
const SLOTS = Array.from({ length: JSON_SCHEMA_SLOTS }, (_, i) => i);

export const JSON_SCHEMA_TEMPLATES: Template[] = [
  {
    name: 'json-schema',
    modules: [
      [
        'schema.rego',
        `package p

${SLOTS.map((i) => `m${i} := json.match_schema(input.pairs[${i}].d, input.pairs[${i}].s)\nvalid${i} := m${i}[0]\nerrors${i} := sort(m${i}[1])`).join('\n')}
`,
      ],
    ],
    rules: SLOTS.flatMap((i) => [`data.p.valid${i}`, `data.p.errors${i}`]),
    inputs: (rng) =>
      JSON.stringify({
        // Documents are objects or arrays (json.match_schema refuses other types, as a wrong type).
        pairs: SLOTS.map(() => ({ d: rng.chance(0.5) ? { v: doc(rng, 1) } : [doc(rng, 1), doc(rng, 1)].slice(0, 1 + rng.int(2)), s: rootSchema(rng) })),
      }).replace(/"#n:([^"]+)"/g, '$1'),
    exactErrors: true,
  },
];

/** Half the schemas read the document itself; the others its `v` or its items (so objects and arrays at the root are both tried). */
function wrap(rng: Rng, s: Json): Json {
  return rng.pick<Json>([s, s, { properties: { v: s } }, { items: s }]);
}
