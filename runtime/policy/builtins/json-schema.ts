/**
 * json.verify_schema / json.match_schema, as OPA's gojsonschema reads and
 * applies a schema.
 *
 * gojsonschema reads drafts 4, 6 and 7, and by default a "hybrid" of them;
 * the root's `$schema` picks one (`schemaDraft`). `checkSchema` refuses what
 * its parser refuses, in its words (the common cases); draft-04's boolean
 * `exclusiveMinimum`/`exclusiveMaximum` are rewritten to the draft-06 numbers
 * (in schema positions only). Whether a document matches, and its errors, come
 * from a walk that follows gojsonschema's (`json-schema-go-errors.ts`: its
 * order, the closest branch of a failed anyOf/oneOf/contains, allOf's and
 * if/then's own errors, the keywords of the schema's draft). ajv decides only
 * where that walk cannot follow the schema (a pattern JavaScript cannot read);
 * until 4 Dec it decided every document, and differed from OPA where ajv and
 * gojsonschema disagree (a `$ref` beside other keywords, draft-04 schemas
 * using later keywords, `additionalItems` beside `items: []`) or where ajv is
 * wrong (8.17.1: an empty array against `contains` inside `anyOf` under
 * `items` passed after a non-empty one).
 *
 * Result shapes and messages are gojsonschema's: `[true, null]` /
 * `[false, "jsonschema: <why>"]` for verify_schema, `[ok, [{error, type,
 * field, desc}]]` for match_schema, where `field` is the dotted path of the
 * value (`(Root)` for the document itself) and `type` gojsonschema's error
 * kind (`invalid_type`, `required`, `number_gte`, ...). Differences: where
 * gojsonschema walks a Go map (an object's properties, pattern properties,
 * dependencies) its order is random; here it is the schema's or the
 * document's. Remote `$ref`s are not fetched (an error).
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { RegoObject, type Value } from '../value.js';
import { parseJSON, stringifyJSON } from '../value-json.js';
import { decOf } from '../decimal.js';
import {
  type Draft,
  goJsonText,
  doublesOf,
  goSchemaErrors,
  goType,
  goTypeList,
  HYBRID,
  isJsonNumber,
  isObj,
  type Json,
  jsonOf,
  localRefTarget,
  UnfollowedSchema,
} from './json-schema-go-errors.js';
import { type BuiltinDefinition, BuiltinError } from './registry.js';

type FormatsPlugin = (ajv: Ajv) => Ajv;
const require = createRequire(import.meta.url);
let validator: Ajv | undefined;

/**
 * The validator, made at the first schema check: ajv and its formats (about
 * 180 modules, both CommonJS) are loaded then, so a policy engine whose
 * policies never call json.*_schema does not hold them.
 */
function ajv(): Ajv {
  if (validator) return validator;
  const { Ajv } = require('ajv') as typeof import('ajv');
  const formats = require('ajv-formats') as { default?: FormatsPlugin } & FormatsPlugin;
  validator = new Ajv({ allErrors: true, verbose: true, strict: false, logger: false, validateSchema: false, validateFormats: true });
  (formats.default ?? formats)(validator);
  return validator;
}

const PRIMITIVES = ['array', 'boolean', 'integer', 'number', 'null', 'object', 'string'];

/**
 * gojsonschema's checks of a schema as its parser makes them, keyword by
 * keyword in its order (so the first of several mistakes is the one named),
 * in its words, for `draft`'s keywords. `refs` holds the `$ref`s already
 * met: gojsonschema parses each referenced schema once.
 */
function checkSchema(s: Json, root: Json, draft: Draft, refs = new Set<string>()): void {
  if (typeof s === 'boolean' && draft >= 6) return;
  // gojsonschema's loader refuses a root that is no schema; its parser words a nested one (a draft-04 `true`) so.
  if (!isObj(s)) throw new BuiltinError(s === root ? 'schema is invalid' : 'Expected: Valid Schema, given: Invalid JSON');
  if (s === root && s['$schema'] !== undefined && typeof s['$schema'] !== 'string') throw new BuiltinError('$schema must be of type string');
  const idKey = draft === 4 || (draft === HYBRID && s['id'] !== undefined) ? 'id' : '$id';
  stringKeyword(s, idKey);
  const definitions = s['definitions'];
  if (definitions !== undefined) {
    const refused = 'Invalid type. Expected: Array Of Schemas, given: definitions';
    if (!isObj(definitions)) throw new BuiltinError(refused);
    for (const d of Object.values(definitions)) {
      if (!isObj(d) && typeof d !== 'boolean') throw new BuiltinError(refused);
      checkSchema(d, root, draft, refs);
    }
  }
  stringKeyword(s, 'title');
  stringKeyword(s, 'description');
  const ref = stringKeyword(s, '$ref');
  if (ref !== undefined) {
    if (!ref.startsWith('#')) throw new BuiltinError(`remote $ref ${JSON.stringify(ref)} is not fetched`);
    const target = localRefTarget(root, ref);
    if ('missingKey' in target) throw new BuiltinError(`Object has no key '${target.missingKey}'`);
    // The first time gojsonschema meets a reference it parses the schema referred to, and not the keywords
    // beside the `$ref`; a reference met again is taken from its pool, and the parse goes on through them.
    if (!refs.has(ref)) {
      refs.add(ref);
      checkSchema(target.value, root, draft, refs);
      return;
    }
  }
  checkTypes(s['type']);
  const sub = (v: Json) => checkSchema(v, root, draft, refs);
  const properties = s['properties'];
  if (properties !== undefined) {
    if (!isObj(properties)) throw new BuiltinError('Properties must be of type object');
    Object.values(properties).forEach(sub);
  }
  const ap = s['additionalProperties'];
  if (ap !== undefined) {
    if (!isObj(ap) && typeof ap !== 'boolean') throw new BuiltinError('Invalid type. Expected: boolean/Valid Schema, given: additionalProperties');
    if (isObj(ap)) sub(ap);
  }
  const patterns = s['patternProperties'];
  if (patterns !== undefined) {
    if (!isObj(patterns)) throw new BuiltinError('Invalid type. Expected: Valid Schema, given: patternProperties');
    Object.values(patterns).forEach(sub);
  }
  const names = s['propertyNames'];
  if (names !== undefined && draft >= 6) {
    // (sic: gojsonschema names patternProperties here)
    if (!isObj(names) && typeof names !== 'boolean') throw new BuiltinError('Invalid type. Expected: Valid Schema, given: patternProperties');
    sub(names);
  }
  checkDependencies(s['dependencies'], sub);
  const items = s['items'];
  if (items !== undefined) {
    const refused = 'Invalid type. Expected: Valid Schema/Array Of Schemas, given: items';
    for (const item of Array.isArray(items) ? items : [items]) {
      if (!isObj(item) && typeof item !== 'boolean') throw new BuiltinError(refused);
      sub(item);
    }
  }
  const additionalItems = s['additionalItems'];
  if (additionalItems !== undefined) {
    // true/false is a setting in every draft, not a boolean schema.
    if (!isObj(additionalItems) && typeof additionalItems !== 'boolean')
      throw new BuiltinError('Invalid type. Expected: boolean/Valid Schema, given: additionalItems');
    if (isObj(additionalItems)) sub(additionalItems);
  }
  const multipleOf = s['multipleOf'];
  if (multipleOf !== undefined && !isJsonNumber(multipleOf)) throw new BuiltinError('Invalid type. Expected: Number, given: multipleOf');
  if (isJsonNumber(multipleOf) && decOf(multipleOf).m <= 0n) throw new BuiltinError('multipleOf must be strictly greater than 0');
  for (const [bound, ex] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (s[bound] !== undefined && !isJsonNumber(s[bound])) throw new BuiltinError(`${bound} must be of a Number`);
    checkExclusiveBound(s, bound, ex, draft);
  }
  checkCounts(s, 'minLength', 'maxLength', 'minLength cannot be greater than maxLength');
  const pattern = stringKeyword(s, 'pattern');
  if (pattern !== undefined) {
    try {
      new RegExp(pattern, 'u');
    } catch {
      throw new BuiltinError('pattern must be a valid regex');
    }
  }
  stringKeyword(s, 'format');
  checkCounts(s, 'minProperties', 'maxProperties', 'minProperties cannot be greater than maxProperties');
  const req = s['required'];
  if (req !== undefined) {
    if (!Array.isArray(req)) throw new BuiltinError('required must be of an array');
    if (!req.every((x) => typeof x === 'string')) throw new BuiltinError('Invalid type. Expected: string, given: required');
    if (new Set(req).size !== req.length) throw new BuiltinError('required items must be unique');
  }
  checkCounts(s, 'minItems', 'maxItems');
  if (s['uniqueItems'] !== undefined && typeof s['uniqueItems'] !== 'boolean') throw new BuiltinError('uniqueItems must be of a boolean');
  if (s['contains'] !== undefined && draft >= 6) sub(s['contains']);
  // gojsonschema keeps `const` and `enum` as Go's JSON text of float64s: a number beyond a double is refused.
  if (s['const'] !== undefined && draft >= 6) goJsonText(s['const']);
  const en = s['enum'];
  if (en !== undefined) {
    if (!Array.isArray(en)) throw new BuiltinError('enum must be of an array');
    const keys = en.map(goJsonText);
    if (new Set(keys).size !== keys.length) throw new BuiltinError('enum items must be unique');
  }
  for (const k of ['oneOf', 'anyOf', 'allOf']) {
    const v = s[k];
    if (v === undefined) continue;
    if (!Array.isArray(v)) throw new BuiltinError(`${k} must be of an array`);
    v.forEach(sub);
  }
  for (const k of draft >= 7 ? ['not', 'if', 'then', 'else'] : ['not']) {
    const v = s[k];
    if (v === undefined) continue;
    if (!isObj(v) && typeof v !== 'boolean') throw new BuiltinError(`${k} must be of an object`);
    sub(v);
  }
}

/** A keyword whose value must be text (gojsonschema's `getString`): the text, or undefined when absent. */
function stringKeyword(s: Record<string, Json>, key: string): string | undefined {
  const v = s[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new BuiltinError(`Invalid type. Expected: string, given: ${key}`);
  return v;
}

function checkTypes(t: Json | undefined): void {
  if (t === undefined) return;
  const ts = typeof t === 'string' ? [t] : Array.isArray(t) && t.every((x) => typeof x === 'string') ? (t as string[]) : null;
  if (ts === null) throw new BuiltinError('Invalid type. Expected: type, given: string/Array Of Strings');
  const seen = new Set<string>();
  for (const x of ts) {
    if (!PRIMITIVES.includes(x)) {
      throw new BuiltinError(`has a primitive type that is NOT VALID -- given: /${x}/ Expected valid values are:[${PRIMITIVES.join(' ')}]`);
    }
    if (seen.has(x)) throw new BuiltinError(`${x} type is duplicated`);
    seen.add(x);
  }
}

/** A pair of counts (non-negative integers); `message` when the low one may not exceed the high one. */
function checkCounts(s: Record<string, Json>, low: string, high: string, message?: string): void {
  for (const k of [low, high]) {
    const v = s[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new BuiltinError(`${k} must be of an integer`);
    if (v < 0) throw new BuiltinError(`${k} must be greater than or equal to 0`);
  }
  const [l, h] = [s[low], s[high]];
  if (message !== undefined && typeof l === 'number' && typeof h === 'number' && l > h) throw new BuiltinError(message);
}

/** `dependencies`: a map of names to a schema or a list of names. */
function checkDependencies(deps: Json | undefined, sub: (v: Json) => void): void {
  if (deps === undefined) return;
  if (!isObj(deps)) throw new BuiltinError('dependencies must be of type object');
  const refused = 'Dependency must be of type Schema Or Array Of Strings';
  for (const v of Object.values(deps)) {
    if (Array.isArray(v)) {
      if (!v.every((x) => typeof x === 'string')) throw new BuiltinError(refused);
    } else if (isObj(v) || typeof v === 'boolean') sub(v);
    else throw new BuiltinError(refused);
  }
}

/**
 * gojsonschema's reading of `exclusiveMinimum`/`exclusiveMaximum`: a boolean
 * beside its bound in draft 4, a number from draft 6, either in hybrid mode.
 */
function checkExclusiveBound(s: Record<string, Json>, bound: string, ex: string, draft: Draft): void {
  const v = s[ex];
  if (v === undefined) return;
  const wanted = draft === 4 ? 'boolean' : draft === HYBRID ? 'boolean/number' : 'number';
  if (!wanted.split('/').includes(isJsonNumber(v) ? 'number' : typeof v)) throw new BuiltinError(`Invalid type. Expected: ${wanted}, given: ${ex}`);
  if (typeof v === 'boolean' && s[bound] === undefined) throw new BuiltinError(`${ex} cannot be used without ${bound}`);
}

/**
 * The JSON-schema draft gojsonschema reads a schema with: the root's `$schema`
 * when it names draft 4, 6 or 7 (an empty fragment ignored, as its
 * `gojsonreference` prints the URI), else its "hybrid" mode, which reads the
 * keywords of every draft and a boolean or numeric `exclusiveMinimum`.
 */
export function schemaDraft(root: Json): Draft {
  const uri = isObj(root) ? root['$schema'] : undefined;
  if (typeof uri !== 'string') return HYBRID;
  const m = /^http:\/\/json-schema\.org\/draft-0([467])\/schema#?$/.exec(uri);
  return m === null ? HYBRID : (Number(m[1]) as Draft);
}

/** Keywords whose value is a map of names to schemas (`dependencies`: or to lists of names). */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependencies'];
/** Keywords whose value is data or a scalar setting, never a schema to rewrite. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required', 'type', '$ref', '$schema', '$id', 'id']);

/**
 * Draft-04's (and hybrid mode's) boolean exclusiveMinimum/Maximum become the
 * draft-06 numbers, in schema positions only: a property named
 * `exclusiveMinimum` under `properties` is a name, not a keyword, and its
 * schema (`true`, `false`) must stay. `$schema` at the root is dropped for ajv.
 */
function normalize(s: Json, top: boolean): Json {
  if (Array.isArray(s)) return s.map((x) => normalize(x, false));
  if (!isObj(s)) return s;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$schema' && top) continue;
    if (DATA_KEYWORDS.has(k)) out[k] = v;
    else if (SCHEMA_MAPS.includes(k) && isObj(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, Array.isArray(sub) ? sub : normalize(sub, false)]));
    else out[k] = normalize(v, false);
  }
  for (const [bound, ex] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (typeof out[ex] === 'boolean') {
      if (out[ex] === true && isJsonNumber(out[bound])) {
        out[ex] = out[bound];
        delete out[bound];
      } else delete out[ex];
    }
  }
  return out;
}

/** A checked schema: as the walk reads it (draft-04 bounds rewritten), its draft, and ajv's validator once one was needed. */
interface CompiledSchema {
  schema: Json;
  draft: Draft;
  validate?: ValidateFunction;
}

const compiled = new Map<string, CompiledSchema>();
const CACHE_MAX = 256;

/** What OPA v1.20.2 answers for a schema or document that is neither text nor an object (an array document is read). */
const WRONG_TYPE = 'wrong type, expected string or object';

/** Parses (string) and checks a schema; throws gojsonschema's message when it is invalid. */
function compileSchema(arg: Value | undefined): CompiledSchema {
  // gojsonschema's loader refusals, as OPA passes them on (verify_schema answers them as `[false, "jsonschema: …"]`).
  if (Array.isArray(arg)) throw new BuiltinError('schema is invalid');
  const key = typeof arg === 'string' ? arg : arg instanceof RegoObject ? stringifyJSON(arg) : null;
  if (key === null) throw new BuiltinError(WRONG_TYPE);
  const hit = compiled.get(key);
  if (hit !== undefined) return hit;
  let schema: Json;
  try {
    schema = jsonOf(typeof arg === 'string' ? parseJSON(arg) : (arg as Value));
  } catch {
    throw new BuiltinError('invalid JSON string');
  }
  const draft = schemaDraft(schema);
  checkSchema(schema, schema, draft);
  const entry: CompiledSchema = { schema: normalize(schema, true), draft };
  if (compiled.size >= CACHE_MAX) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, entry);
  return entry;
}

/** ajv's validator of a schema, for what gojsonschema's walk does not follow (compiled on first need). */
function ajvValidator(entry: CompiledSchema): ValidateFunction {
  if (entry.validate !== undefined) return entry.validate;
  try {
    entry.validate = ajv().compile(doublesOf(entry.schema) as object);
  } catch (e) {
    throw new BuiltinError(e instanceof Error ? e.message : String(e));
  }
  return entry.validate;
}

/** Whether a string is of `format` by the validator's own checker (unknown formats, and values other than strings, hold). */
function formatHolds(format: string, value: unknown): boolean {
  if (typeof value !== 'string') return true;
  const known = (ajv().formats as Record<string, unknown>)[format];
  const check = known instanceof RegExp || typeof known === 'function' ? known : isObj(known) ? (known['validate'] as unknown) : undefined;
  if (check instanceof RegExp) return check.test(value);
  return typeof check === 'function' ? (check as (text: string) => boolean)(value) !== false : true;
}

/**
 * `[valid, errors]` for a document: gojsonschema's walk decides and lists
 * (`json-schema-go-errors.ts`); ajv decides, its errors reworded, where the
 * walk does not follow the schema (a remote `$ref`, a pattern JavaScript
 * cannot read).
 */
function matchDocument(entry: CompiledSchema, data: Json): [boolean, RegoObject[]] {
  try {
    const errors = goSchemaErrors({ root: entry.schema, draft: entry.draft, formatHolds }, data);
    return [errors.length === 0, errors.map(({ type, desc, field }) => errorObject(type, desc, field))];
  } catch (e) {
    if (!(e instanceof UnfollowedSchema)) throw e;
  }
  const validate = ajvValidator(entry);
  return validate(doublesOf(data)) ? [true, []] : [false, matchErrors(validate.errors ?? [])];
}

function errorObject(type: string, desc: string, f: string): RegoObject {
  return RegoObject.fromEntries([
    ['error', `${f}: ${desc}`],
    ['type', type],
    ['field', f],
    ['desc', desc],
  ]);
}

function field(instancePath: string): string {
  if (instancePath === '') return '(Root)';
  return instancePath
    .slice(1)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
}

/** gojsonschema's `{type, desc}` (and field) for one ajv error. */
function describe(e: ErrorObject, f: string): [string, string, string] {
  const p = e.params as Record<string, unknown>;
  const n = (x: unknown) => String(x);
  switch (e.keyword) {
    case 'type': {
      const want = Array.isArray(p['type']) ? goTypeList(p['type'] as string[]) : n(p['type']);
      return ['invalid_type', `Invalid type. Expected: ${want}, given: ${goType(e.data)}`, f];
    }
    case 'required':
      return ['required', `${n(p['missingProperty'])} is required`, f];
    case 'enum':
      return ['enum', `${f} must be one of the following: ${(p['allowedValues'] as unknown[]).map((x) => JSON.stringify(x)).join(', ')}`, f];
    case 'const':
      return ['const', `${f} does not match: ${JSON.stringify(p['allowedValue'])}`, f];
    case 'minimum':
      return ['number_gte', `Must be greater than or equal to ${n(p['limit'])}`, f];
    case 'exclusiveMinimum':
      return ['number_gt', `Must be greater than ${n(p['limit'])}`, f];
    case 'maximum':
      return ['number_lte', `Must be less than or equal to ${n(p['limit'])}`, f];
    case 'exclusiveMaximum':
      return ['number_lt', `Must be less than ${n(p['limit'])}`, f];
    case 'multipleOf':
      return ['multiple_of', `Must be a multiple of ${n(p['multipleOf'])}`, f];
    case 'minLength':
      return ['string_gte', `String length must be greater than or equal to ${n(p['limit'])}`, f];
    case 'maxLength':
      return ['string_lte', `String length must be less than or equal to ${n(p['limit'])}`, f];
    case 'pattern':
      return ['pattern', `Does not match pattern '${n(p['pattern'])}'`, f];
    case 'format':
      return ['format', `Does not match format '${n(p['format'])}'`, f];
    case 'minItems':
      return ['array_min_items', `Array must have at least ${n(p['limit'])} items`, f];
    case 'maxItems':
      return ['array_max_items', `Array must have at most ${n(p['limit'])} items`, f];
    case 'uniqueItems': {
      const [i, j] = [Number(p['i']), Number(p['j'])].sort((a, b) => a - b);
      return ['unique', `array items[${i},${j}] must be unique`, f];
    }
    case 'minProperties':
      return ['array_min_properties', `Must have at least ${n(p['limit'])} properties`, f];
    case 'maxProperties':
      return ['array_max_properties', `Must have at most ${n(p['limit'])} properties`, f];
    case 'additionalProperties':
      return ['additional_property_not_allowed', `Additional property ${n(p['additionalProperty'])} is not allowed`, f];
    case 'additionalItems':
      return ['array_no_additional_items', 'No additional items allowed on array', f];
    case 'anyOf':
      return ['number_any_of', 'Must validate at least one schema (anyOf)', f];
    case 'oneOf':
      return ['number_one_of', 'Must validate one and only one schema (oneOf)', f];
    case 'not':
      return ['number_not', 'Must not validate the schema (not)', f];
    case 'if':
      return p['failingKeyword'] === 'else'
        ? ['condition_else', 'Must validate "else" as "if" was not valid', f]
        : ['condition_then', 'Must validate "then" as "if" was valid', f];
    case 'dependencies':
    case 'dependentRequired':
      return ['missing_dependency', `Has a dependency on ${n(p['property'] ?? p['missingProperty'])}`, f];
    case 'contains':
      return ['contains', 'At least one of the items must match', f];
    case 'propertyNames':
      return ['invalid_property_name', `Property name of "${n(p['propertyName'])}" does not match`, f];
    case 'false schema':
      return ['false', 'False always fails validation', f];
    default:
      return [e.keyword, e.message ?? e.keyword, f];
  }
}

function matchErrors(errors: readonly ErrorObject[]): RegoObject[] {
  // A failed anyOf/oneOf/not reports itself, not its branches' errors.
  const combinators = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'not').map((e) => e.schemaPath + '/');
  const out: RegoObject[] = [];
  for (const e of errors) {
    if (combinators.some((c) => e.schemaPath.startsWith(c))) continue;
    if (e.keyword === 'propertyNames' && errors.some((x) => x !== e && x.schemaPath.startsWith(e.schemaPath + '/'))) continue;
    const f = field(e.instancePath);
    const [type, desc] = describe(e, f);
    out.push(errorObject(type, desc, f));
  }
  return out;
}

/** The document to check, numbers kept exact (gojsonschema reads them as `json.Number`). */
function documentOf(v: Value | undefined): Json {
  if (typeof v === 'string') {
    try {
      return jsonOf(parseJSON(v));
    } catch {
      throw new BuiltinError('invalid JSON string');
    }
  }
  if (v instanceof RegoObject || Array.isArray(v)) return jsonOf(v);
  throw new BuiltinError(WRONG_TYPE);
}

export const jsonSchemaBuiltins: BuiltinDefinition[] = [
  {
    name: 'json.verify_schema',
    args: ['any'],
    result: 'array',
    impl: ([schema]) => {
      try {
        compileSchema(schema);
        return [true, null];
      } catch (e) {
        if (e instanceof BuiltinError && e.kind === 'builtin') return [false, `jsonschema: ${e.message}`];
        throw e;
      }
    },
  },
  {
    name: 'json.match_schema',
    args: ['any', 'any'],
    result: 'array',
    impl: ([doc, schema]) => {
      const data = documentOf(doc);
      return matchDocument(compileSchema(schema), data);
    },
  },
];

/**
 * gojsonschema's refusal of a schema given as a JSON value (what its loader's
 * `Compile` answers, in its words), or undefined when it compiles. The
 * compiler's type check of schema annotations reports it as OPA does.
 */
export function goSchemaRefusal(schema: Json): string | undefined {
  try {
    checkSchema(schema, schema, schemaDraft(schema));
    return undefined;
  } catch (e) {
    if (e instanceof BuiltinError) return e.message;
    throw e;
  }
}
