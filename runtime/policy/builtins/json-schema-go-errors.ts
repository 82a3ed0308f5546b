/**
 * The errors of a failed `json.match_schema` in the order and choice
 * gojsonschema (OPA's validator) makes, where ajv's list differs: gojsonschema
 * walks the schema in a fixed order (the combinators, then the checks of the
 * value's type, then an object's properties), adds the combinator's own error
 * after its branches' (`allOf`) or before them (`if`/`then`/`else`), lists a
 * failed `anyOf`/`oneOf`/`contains` with the errors of its closest branch or
 * item only, and counts an error no more than once per place.
 *
 * "Closest" is gojsonschema's score: each check walked adds one, each error
 * takes two away, and a branch's score joins its parent's with its errors. The
 * walk below keeps that score exactly as the Go walk does, so the same branch
 * is chosen (the first of equal scores).
 *
 * The walk also decides whether the document is valid (no error), as
 * gojsonschema does, draft by draft: `const`, `contains` and `propertyNames`
 * from draft 6, `if`/`then`/`else` from draft 7 (all of them in gojsonschema's
 * hybrid mode), a `$ref` beside other keywords reads the reference alone, and
 * `additionalItems` beside an empty `items` list checks nothing. Where the
 * schema uses what this walk does not follow (a `$ref` that is not a local
 * JSON pointer, a pattern JavaScript cannot read) it throws
 * `UnfollowedSchema`, and the caller asks ajv.
 */

import { ratFloatText } from '../bigfloat.js';
import { compareDec, type Dec, decOf, RegoDecimal, RegoNumText } from '../decimal.js';
import { compareStrings, RegoSet, type Value } from '../value.js';
import { goJSONKey, goJSONString } from '../value-gojson.js';
import { BuiltinError } from './registry.js';

/**
 * A JSON value as gojsonschema holds it: numbers exactly as written
 * (its `json.Number`, read as a `big.Rat`), so `9007199254740993`, `1e400`
 * and `-1e-400` compare as what they are: a JS number when the double is
 * the number, a bigint or a `RegoDecimal` when it is not.
 */
export type Json = null | boolean | JsonNumber | string | Json[] | { [k: string]: Json };
export type JsonNumber = number | bigint | RegoDecimal;

/** Whether a JSON value is a number (of any of its three forms). */
export function isJsonNumber(x: unknown): x is JsonNumber {
  return typeof x === 'number' || typeof x === 'bigint' || x instanceof RegoDecimal;
}

/** The JSON value of a Rego value, numbers kept exact (a set as its sorted array, keys as OPA writes them). */
export function jsonOf(v: Value): Json {
  // A number written otherwise than its value prints (`1.0`, `1e3`) is its value; one beyond a double keeps its text (for Go's error).
  if (v instanceof RegoNumText) return typeof v.value === 'number' ? v.value : v;
  if (v === null || typeof v !== 'object' || v instanceof RegoDecimal) return v;
  if (Array.isArray(v)) return v.map(jsonOf);
  if (v instanceof RegoSet) return v.values().map(jsonOf);
  const out: { [k: string]: Json } = {};
  for (const [k, val] of v.entries()) out[goJSONKey(k)] = jsonOf(val);
  return out;
}

/** The same value with every number a double: for ajv, which knows no other numbers. */
export function doublesOf(v: Json): unknown {
  if (isJsonNumber(v)) return typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : v.toNumber();
  if (Array.isArray(v)) return v.map(doublesOf);
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, doublesOf(x)]));
  return v;
}

/**
 * gojsonschema's `marshalWithoutNumber`, how it compares and prints `const`,
 * `enum` and unique items: the value decoded into Go's `float64`s and encoded
 * again (object keys sorted, `-0` kept, Go's escapes). A number beyond a
 * double cannot be decoded so: Go's error, which OPA v1.20.2 raises for a
 * schema's `const`/`enum` (for a document's number it panics; here it is the
 * same error).
 */
export function goJsonText(v: unknown): string {
  if (isJsonNumber(v)) {
    const d = typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : v.toNumber();
    if (!Number.isFinite(d)) throw new BuiltinError(`json: cannot unmarshal number ${String(v)} into Go value of type float64`);
    return Object.is(d, -0) ? '-0' : JSON.stringify(d);
  }
  if (typeof v === 'string') return goJSONString(v);
  if (Array.isArray(v)) return `[${v.map(goJsonText).join(',')}]`;
  if (isObj(v)) {
    return `{${Object.keys(v)
      .sort(compareStrings)
      .map((k) => `${goJSONString(k)}:${goJsonText(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** `x` as `m * 10^e`, exactly. */
function decOfJson(x: JsonNumber): Dec {
  return decOf(x);
}

/** Whether a number is whole: gojsonschema's `checkJSONInteger` (`1.0` and `1e400` are integers). */
function isWhole(x: JsonNumber): boolean {
  return typeof x === 'number' ? Number.isInteger(x) : typeof x === 'bigint' || decOfJson(x).e >= 0;
}

/** Whether `x / d` is whole, exactly (gojsonschema's `big.Rat` quotient). */
function isMultiple(x: JsonNumber, d: JsonNumber): boolean {
  const a = decOfJson(x);
  const b = decOfJson(d);
  if (b.m === 0n) return false;
  const k = a.e - b.e;
  return k >= 0 ? (a.m * 10n ** BigInt(k)) % b.m === 0n : a.m % (b.m * 10n ** BigInt(-k)) === 0n;
}

/** A schema's number as gojsonschema prints it in an error: `big.Float.SetRat`'s `%v` (`1e+06`, `2.5`, `9.007199254740993e+15`). */
function numberText(x: JsonNumber): string {
  return ratFloatText(decOfJson(x));
}

/** A JSON-schema draft as gojsonschema numbers them; `HYBRID` (its default) reads every draft's keywords. */
export const HYBRID = 2_147_483_647;
export type Draft = 4 | 6 | 7 | typeof HYBRID;

export interface GoSchemaError {
  /** gojsonschema's error kind (`invalid_type`, `number_any_of`, ...). */
  type: string;
  desc: string;
  /** The dotted path of the value, `(Root)` for the document itself. */
  field: string;
}

/** What the walk does not follow: the caller falls back to ajv's errors. */
export class UnfollowedSchema extends Error {}

interface Result {
  errors: GoSchemaError[];
  score: number;
}

export function isObj(x: unknown): x is Record<string, Json> {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof RegoDecimal);
}

/** gojsonschema's name of a decoded value's type: a whole number is `integer`. */
export function goType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (isJsonNumber(v)) return isWhole(v) ? 'integer' : 'number';
  return typeof v;
}

/** gojsonschema's `jsonSchemaType.String()`: one type alone, several in brackets (`[string,null]`). */
export function goTypeList(types: readonly string[]): string {
  return types.length === 1 ? (types[0] as string) : `[${types.join(',')}]`;
}

const fieldOf = (path: readonly string[]): string => (path.length === 0 ? '(Root)' : path.join('.'));

export interface GoSchemaWalk {
  /** The root schema (after draft-04 bounds are rewritten), for local `$ref`s. */
  root: Json;
  /** The draft whose keywords apply (`schemaDraft` of the root). */
  draft: Draft;
  /** Whether `value` is of `format` (only formats the validator knows fail). */
  formatHolds(format: string, value: unknown): boolean;
}

/** gojsonschema's errors for `doc` against `schema`, in its order. Throws `UnfollowedSchema` for what it does not follow. */
export function goSchemaErrors(walk: GoSchemaWalk, doc: unknown): GoSchemaError[] {
  const result: Result = { errors: [], score: 0 };
  recursive(walk, walk.root, doc, result, []);
  return result.errors;
}

function add(result: Result, path: readonly string[], type: string, desc: string): void {
  result.errors.push({ type, desc, field: fieldOf(path) });
  result.score -= 2;
}

function merge(result: Result, other: Result): void {
  result.errors.push(...other.errors);
  result.score += other.score;
}

function sub(walk: GoSchemaWalk, schema: Json, node: unknown, path: readonly string[]): Result {
  const result: Result = { errors: [], score: 0 };
  recursive(walk, schema, node, result, path);
  return result;
}

/** What a local `$ref` (`#`, `#/definitions/x`: a JSON pointer) names in `root`, or the first key it does not find. */
export function localRefTarget(root: Json, ref: string): { value: Json } | { missingKey: string } {
  let at: Json = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (isObj(at) && key in at) at = at[key] as Json;
    else if (Array.isArray(at) && /^\d+$/.test(key) && Number(key) < at.length) at = at[Number(key)] as Json;
    else return { missingKey: key };
  }
  return { value: at };
}

function resolveRef(walk: GoSchemaWalk, ref: string): Json {
  const target = ref.startsWith('#') ? localRefTarget(walk.root, ref) : undefined;
  if (target === undefined || !('value' in target)) throw new UnfollowedSchema(`$ref ${ref}`);
  return target.value;
}

function typesOf(s: Record<string, Json>): string[] | undefined {
  const t = s['type'];
  if (t === undefined) return undefined;
  return typeof t === 'string' ? [t] : (t as string[]);
}

function recursive(walk: GoSchemaWalk, schema: Json, node: unknown, result: Result, path: readonly string[]): void {
  if (typeof schema === 'boolean') {
    if (!schema) add(result, path, 'false', 'False always fails validation');
    return;
  }
  if (!isObj(schema)) throw new UnfollowedSchema('schema');
  if (typeof schema['$ref'] === 'string') {
    recursive(walk, resolveRef(walk, schema['$ref']), node, result, path);
    return;
  }
  const types = typesOf(schema);
  const given = goType(node);
  // A whole number (1.0 included) is an integer, which `number` also takes.
  const fits = types === undefined || types.includes(given) || (given === 'integer' && types.includes('number'));
  if (!fits) {
    add(result, path, 'invalid_type', `Invalid type. Expected: ${goTypeList(types ?? [])}, given: ${given}`);
    return;
  }
  validateSchema(walk, schema, node, result, path);
  if (isJsonNumber(node)) {
    validateNumber(schema, node, result, path);
    validateCommon(walk, schema, node, result, path);
  } else if (Array.isArray(node)) {
    validateArray(walk, schema, node, result, path);
    validateCommon(walk, schema, node, result, path);
  } else if (isObj(node)) {
    validateObject(walk, schema, node, result, path);
    validateCommon(walk, schema, node, result, path);
    const properties = schema['properties'];
    if (isObj(properties)) {
      for (const [key, child] of Object.entries(properties)) if (Object.hasOwn(node, key)) recursive(walk, child, node[key], result, [...path, key]);
    }
  } else {
    validateCommon(walk, schema, node, result, path);
    if (typeof node === 'string') validateString(schema, node, result, path);
  }
  result.score++;
}

function schemaList(schema: Record<string, Json>, key: string): Json[] {
  const v = schema[key];
  return Array.isArray(v) ? v : [];
}

function validateSchema(walk: GoSchemaWalk, schema: Record<string, Json>, node: unknown, result: Result, path: readonly string[]): void {
  const anyOf = schemaList(schema, 'anyOf');
  if (anyOf.length > 0) {
    let best: Result | undefined;
    let valid = false;
    for (const branch of anyOf) {
      const r = sub(walk, branch, node, path);
      if (r.errors.length === 0) {
        valid = true;
        break;
      }
      if (best === undefined || r.score > best.score) best = r;
    }
    if (!valid) {
      add(result, path, 'number_any_of', 'Must validate at least one schema (anyOf)');
      if (best !== undefined) merge(result, best);
    }
  }
  const oneOf = schemaList(schema, 'oneOf');
  if (oneOf.length > 0) {
    let best: Result | undefined;
    let validated = 0;
    for (const branch of oneOf) {
      const r = sub(walk, branch, node, path);
      if (r.errors.length === 0) validated++;
      else if (validated === 0 && (best === undefined || r.score > best.score)) best = r;
    }
    if (validated !== 1) {
      add(result, path, 'number_one_of', 'Must validate one and only one schema (oneOf)');
      if (validated === 0 && best !== undefined) merge(result, best);
    }
  }
  const allOf = schemaList(schema, 'allOf');
  if (allOf.length > 0) {
    let validated = 0;
    for (const branch of allOf) {
      const r = sub(walk, branch, node, path);
      if (r.errors.length === 0) validated++;
      merge(result, r);
    }
    if (validated !== allOf.length) add(result, path, 'number_all_of', 'Must validate all the schemas (allOf)');
  }
  if (schema['not'] !== undefined && sub(walk, schema['not'], node, path).errors.length === 0) {
    add(result, path, 'number_not', 'Must not validate the schema (not)');
  }
  const dependencies = schema['dependencies'];
  if (isObj(dependencies) && isObj(node)) {
    for (const key of Object.keys(node)) {
      const dependency = dependencies[key];
      if (dependency === undefined) continue;
      if (Array.isArray(dependency)) {
        for (const needed of dependency)
          if (typeof needed === 'string' && !Object.hasOwn(node, needed)) add(result, path, 'missing_dependency', `Has a dependency on ${needed}`);
      } else recursive(walk, dependency, node, result, path);
    }
  }
  if (walk.draft >= 7 && schema['if'] !== undefined) {
    const holds = sub(walk, schema['if'], node, path).errors.length === 0;
    const branch = holds ? schema['then'] : schema['else'];
    if (branch !== undefined) {
      const r = sub(walk, branch, node, path);
      if (r.errors.length > 0) {
        if (holds) add(result, path, 'condition_then', 'Must validate "then" as "if" was valid');
        else add(result, path, 'condition_else', 'Must validate "else" as "if" was not valid');
        merge(result, r);
      }
    }
  }
  result.score++;
}

function validateCommon(walk: GoSchemaWalk, schema: Record<string, Json>, node: unknown, result: Result, path: readonly string[]): void {
  const field = fieldOf(path);
  if (walk.draft >= 6 && schema['const'] !== undefined && goJsonText(node) !== goJsonText(schema['const'])) {
    add(result, path, 'const', `${field} does not match: ${goJsonText(schema['const'])}`);
  }
  const allowed = schema['enum'];
  // An empty enum allows nothing (gojsonschema tells it from an absent one).
  if (Array.isArray(allowed) && !allowed.some((x) => goJsonText(x) === goJsonText(node))) {
    add(result, path, 'enum', `${field} must be one of the following: ${allowed.map(goJsonText).join(', ')}`);
  }
  const format = schema['format'];
  if (typeof format === 'string' && format !== '' && !walk.formatHolds(format, node)) add(result, path, 'format', `Does not match format '${format}'`);
  result.score++;
}

function validateArray(walk: GoSchemaWalk, schema: Record<string, Json>, node: unknown[], result: Result, path: readonly string[]): void {
  const items = schema['items'];
  if (Array.isArray(items)) {
    // An empty list is no list to gojsonschema: additionalItems then checks nothing.
    for (let i = 0; i < items.length && i < node.length; i++) merge(result, sub(walk, items[i] as Json, node[i], [...path, String(i)]));
    if (items.length > 0 && items.length < node.length) {
      const extra = schema['additionalItems'];
      if (extra === false) add(result, path, 'array_no_additional_items', 'No additional items allowed on array');
      else if (isObj(extra)) for (let i = items.length; i < node.length; i++) merge(result, sub(walk, extra, node[i], [...path, String(i)]));
    }
  } else if (items !== undefined) {
    node.forEach((item, i) => merge(result, sub(walk, items, item, [...path, String(i)])));
  }
  const min = schema['minItems'];
  if (typeof min === 'number' && node.length < min) add(result, path, 'array_min_items', `Array must have at least ${min} items`);
  const max = schema['maxItems'];
  if (typeof max === 'number' && node.length > max) add(result, path, 'array_max_items', `Array must have at most ${max} items`);
  if (schema['uniqueItems'] === true) {
    const seen = new Map<string, number>();
    node.forEach((item, j) => {
      const key = goJsonText(item);
      const i = seen.get(key);
      if (i !== undefined) add(result, path, 'unique', `array items[${i},${j}] must be unique`);
      seen.set(key, j);
    });
  }
  const contains = schema['contains'];
  if (walk.draft >= 6 && contains !== undefined) {
    let best: Result | undefined;
    let matched = false;
    for (let i = 0; i < node.length; i++) {
      const r = sub(walk, contains, node[i], [...path, String(i)]);
      if (r.errors.length === 0) {
        matched = true;
        break;
      }
      if (best === undefined || r.score > best.score) best = r;
    }
    if (!matched) {
      add(result, path, 'contains', 'At least one of the items must match');
      if (best !== undefined) merge(result, best);
    }
  }
  result.score++;
}

function validateObject(walk: GoSchemaWalk, schema: Record<string, Json>, node: Record<string, Json>, result: Result, path: readonly string[]): void {
  const size = Object.keys(node).length;
  const min = schema['minProperties'];
  if (typeof min === 'number' && size < min) add(result, path, 'array_min_properties', `Must have at least ${min} properties`);
  const max = schema['maxProperties'];
  if (typeof max === 'number' && size > max) add(result, path, 'array_max_properties', `Must have at most ${max} properties`);
  for (const required of schemaList(schema, 'required')) {
    if (typeof required !== 'string') continue;
    if (Object.hasOwn(node, required)) result.score++;
    else add(result, path, 'required', `${required} is required`);
  }
  const properties = isObj(schema['properties']) ? schema['properties'] : {};
  const patterns = isObj(schema['patternProperties']) ? schema['patternProperties'] : {};
  const additional = schema['additionalProperties'];
  for (const key of Object.keys(node)) {
    const found = Object.hasOwn(properties, key);
    let patterned = false;
    for (const [pattern, child] of Object.entries(patterns)) {
      if (!patternMatches(pattern, key)) continue;
      patterned = true;
      merge(result, sub(walk, child, node[key], [...path, key]));
    }
    if (patterned) result.score++;
    if (found || patterned) continue;
    if (additional === false) add(result, path, 'additional_property_not_allowed', `Additional property ${key} is not allowed`);
    else if (isObj(additional)) merge(result, sub(walk, additional, node[key], [...path, key]));
  }
  const names = schema['propertyNames'];
  if (walk.draft >= 6 && names !== undefined) {
    for (const key of Object.keys(node)) {
      const r = sub(walk, names, key, path);
      if (r.errors.length > 0) {
        add(result, path, 'invalid_property_name', `Property name of "${key}" does not match`);
        merge(result, r);
      }
    }
  }
  result.score++;
}

function validateString(schema: Record<string, Json>, node: string, result: Result, path: readonly string[]): void {
  const length = [...node].length;
  const min = schema['minLength'];
  if (typeof min === 'number' && length < min) add(result, path, 'string_gte', `String length must be greater than or equal to ${min}`);
  const max = schema['maxLength'];
  if (typeof max === 'number' && length > max) add(result, path, 'string_lte', `String length must be less than or equal to ${max}`);
  const pattern = schema['pattern'];
  if (typeof pattern === 'string' && !patternMatches(pattern, node)) add(result, path, 'pattern', `Does not match pattern '${pattern}'`);
  result.score++;
}

function validateNumber(schema: Record<string, Json>, node: JsonNumber, result: Result, path: readonly string[]): void {
  const bound = (key: string): JsonNumber | undefined => {
    const v = schema[key];
    return isJsonNumber(v) ? v : undefined;
  };
  const cmp = (limit: JsonNumber) => compareDec(decOfJson(node), decOfJson(limit));
  const multipleOf = bound('multipleOf');
  if (multipleOf !== undefined && !isMultiple(node, multipleOf)) add(result, path, 'multiple_of', `Must be a multiple of ${numberText(multipleOf)}`);
  const max = bound('maximum');
  if (max !== undefined && cmp(max) > 0) add(result, path, 'number_lte', `Must be less than or equal to ${numberText(max)}`);
  const exMax = bound('exclusiveMaximum');
  if (exMax !== undefined && cmp(exMax) >= 0) add(result, path, 'number_lt', `Must be less than ${numberText(exMax)}`);
  const min = bound('minimum');
  if (min !== undefined && cmp(min) < 0) add(result, path, 'number_gte', `Must be greater than or equal to ${numberText(min)}`);
  const exMin = bound('exclusiveMinimum');
  if (exMin !== undefined && cmp(exMin) <= 0) add(result, path, 'number_gt', `Must be greater than ${numberText(exMin)}`);
  result.score++;
}

function patternMatches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    throw new UnfollowedSchema(`pattern ${pattern}`);
  }
}
