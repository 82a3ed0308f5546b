/**
 * json.verify_schema / json.match_schema, validated with ajv.
 *
 * OPA validates with gojsonschema (drafts 4, 6 and 7, mixed: "hybrid"
 * mode). Here ajv (draft-07 vocabulary) does the validation; draft-04's
 * boolean `exclusiveMinimum`/`exclusiveMaximum` are rewritten to the
 * draft-06+ numeric form first, and `$schema` is ignored, as gojsonschema
 * accepts 2019-09/2020-12 URIs without applying their new keywords.
 * Result shapes and messages are gojsonschema's: `[true, null]` /
 * `[false, "jsonschema: <why>"]` for verify_schema, `[ok, [{error, type,
 * field, desc}]]` for match_schema, where `field` is the dotted path of the
 * value (`(Root)` for the document itself) and `type` gojsonschema's error
 * kind (`invalid_type`, `required`, `number_gte`, ...). The common schema
 * mistakes are reported with gojsonschema's words; others with ajv's.
 *
 * ajv says whether a document is valid; the errors of one it refuses are
 * listed as gojsonschema lists them (`json-schema-go-errors.ts`: its walk
 * order, the closest branch of a failed anyOf/oneOf/contains, allOf's and
 * if/then's own errors), ajv's reworded where that walk does not follow the
 * schema. Differences: where gojsonschema walks a Go map (an object's
 * properties, pattern properties, dependencies) its order is random; here it
 * is the schema's or the document's. Remote `$ref`s are not fetched (an error).
 */
import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { RegoObject, type Value } from '../value.js';
import { parseJSON, stringifyJSON } from '../value-json.js';
import { type GoSchemaError, goSchemaErrors, goType, goTypeList, isObj, type Json, localRefTarget, UnfollowedSchema } from './json-schema-go-errors.js';
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
const INT_KEYWORDS = ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'];
const NUM_KEYWORDS = ['minimum', 'maximum', 'multipleOf'];
const SCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf'];
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs'];
const SUBSCHEMAS = ['not', 'if', 'then', 'else', 'contains', 'propertyNames', 'additionalItems'];

/** gojsonschema's checks of a schema, with its messages (the common cases). */
function checkSchema(s: Json, root: Json): void {
  if (typeof s === 'boolean') return;
  if (!isObj(s)) throw new BuiltinError('schema is invalid');
  const t = s['type'];
  if (t !== undefined) {
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
  for (const k of INT_KEYWORDS) {
    const v = s[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isInteger(v)) throw new BuiltinError(`${k} must be of an integer`);
    if (v < 0) throw new BuiltinError(`${k} must be greater than or equal to 0`);
  }
  for (const k of NUM_KEYWORDS) {
    const v = s[k];
    if (v !== undefined && typeof v !== 'number') throw new BuiltinError(`${k} must be of a Number`);
  }
  if (typeof s['multipleOf'] === 'number' && s['multipleOf'] <= 0) throw new BuiltinError('multipleOf must be strictly greater than 0');
  const req = s['required'];
  if (req !== undefined) {
    if (!Array.isArray(req)) throw new BuiltinError('required must be of an array');
    if (!req.every((x) => typeof x === 'string')) throw new BuiltinError('Invalid type. Expected: string, given: required');
  }
  const en = s['enum'];
  if (en !== undefined) {
    if (!Array.isArray(en)) throw new BuiltinError('enum must be of an array');
    const keys = en.map((x) => JSON.stringify(x));
    if (new Set(keys).size !== keys.length) throw new BuiltinError('enum items must be unique');
  }
  const pattern = s['pattern'];
  if (pattern !== undefined) {
    try {
      if (typeof pattern !== 'string') throw new Error('not a string');
      new RegExp(pattern, 'u');
    } catch {
      throw new BuiltinError('pattern must be a valid regex');
    }
  }
  for (const k of SCHEMA_MAPS) {
    const v = s[k];
    if (v === undefined) continue;
    if (!isObj(v)) throw new BuiltinError(`${k === 'properties' ? 'Properties' : k} must be of type object`);
    for (const sub of Object.values(v)) checkSchema(sub, root);
  }
  for (const k of SCHEMA_LISTS) {
    const v = s[k];
    if (v === undefined) continue;
    if (!Array.isArray(v)) throw new BuiltinError(`${k} must be of an array`);
    for (const sub of v) checkSchema(sub, root);
  }
  for (const k of SUBSCHEMAS) {
    const v = s[k];
    if (v === undefined) continue;
    if (!isObj(v) && typeof v !== 'boolean') throw new BuiltinError(`${k} must be of an object`);
    checkSchema(v, root);
  }
  const items = s['items'];
  if (items !== undefined) {
    if (Array.isArray(items)) for (const sub of items) checkSchema(sub, root);
    else if (isObj(items) || typeof items === 'boolean') checkSchema(items, root);
    else throw new BuiltinError('Invalid type. Expected: Valid Schema/Array Of Schemas, given: items');
  }
  const ap = s['additionalProperties'];
  if (ap !== undefined) {
    if (!isObj(ap) && typeof ap !== 'boolean') throw new BuiltinError('Invalid type. Expected: boolean/Valid Schema, given: additionalProperties');
    checkSchema(ap, root);
  }
  const ref = s['$ref'];
  if (typeof ref === 'string') {
    if (!ref.startsWith('#')) throw new BuiltinError(`remote $ref ${JSON.stringify(ref)} is not fetched`);
    const target = localRefTarget(root, ref);
    if ('missingKey' in target) throw new BuiltinError(`Object has no key '${target.missingKey}'`);
  }
}

/** Draft-04 → draft-07: boolean exclusiveMinimum/Maximum become numbers. */
function normalize(s: Json, top: boolean): Json {
  if (Array.isArray(s)) return s.map((x) => normalize(x, false));
  if (!isObj(s)) return s;
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === '$schema' && top) continue;
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') out[k] = v;
    else out[k] = normalize(v, false);
  }
  for (const [bound, ex] of [
    ['minimum', 'exclusiveMinimum'],
    ['maximum', 'exclusiveMaximum'],
  ] as const) {
    if (typeof out[ex] === 'boolean') {
      if (out[ex] === true && typeof out[bound] === 'number') {
        out[ex] = out[bound];
        delete out[bound];
      } else delete out[ex];
    }
  }
  return out;
}

/** A compiled schema: ajv's validator, and the schema as it was compiled (for gojsonschema's error walk). */
interface CompiledSchema {
  validate: ValidateFunction;
  schema: Json;
}

const compiled = new Map<string, CompiledSchema>();
const CACHE_MAX = 256;

/** Parses (string) and compiles a schema; throws gojsonschema's message when it is invalid. */
/** What OPA v1.20.2 answers for a schema or document that is neither text nor an object (an array document is read). */
const WRONG_TYPE = 'wrong type, expected string or object';

function compileSchema(arg: Value | undefined): CompiledSchema {
  // gojsonschema's loader refusals, as OPA passes them on (verify_schema answers them as `[false, "jsonschema: …"]`).
  if (Array.isArray(arg)) throw new BuiltinError('schema is invalid');
  const key = typeof arg === 'string' ? arg : arg instanceof RegoObject ? stringifyJSON(arg) : null;
  if (key === null) throw new BuiltinError(WRONG_TYPE);
  const hit = compiled.get(key);
  if (hit !== undefined) return hit;
  let schema: Json;
  try {
    schema = JSON.parse(key) as Json;
  } catch {
    throw new BuiltinError('invalid JSON string');
  }
  checkSchema(schema, schema);
  const normalized = normalize(schema, true);
  let entry: CompiledSchema;
  try {
    entry = { validate: ajv().compile(normalized as object), schema: normalized };
  } catch (e) {
    throw new BuiltinError(e instanceof Error ? e.message : String(e));
  }
  if (compiled.size >= CACHE_MAX) compiled.delete(compiled.keys().next().value as string);
  compiled.set(key, entry);
  return entry;
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
 * The errors of a document ajv refused, as gojsonschema lists them (`json-schema-go-errors.ts`); ajv's own list,
 * reworded, where that walk does not follow the schema or finds nothing wrong (the two validators then disagree).
 */
function documentErrors(entry: CompiledSchema, data: unknown): RegoObject[] {
  let errors: GoSchemaError[] = [];
  try {
    errors = goSchemaErrors({ root: entry.schema, formatHolds }, data);
  } catch (e) {
    if (!(e instanceof UnfollowedSchema)) throw e;
  }
  if (errors.length === 0) return matchErrors(entry.validate.errors ?? []);
  return errors.map(({ type, desc, field }) => errorObject(type, desc, field));
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

function documentOf(v: Value | undefined): unknown {
  if (typeof v === 'string') {
    try {
      return JSON.parse(stringifyJSON(parseJSON(v))) as unknown;
    } catch {
      throw new BuiltinError('invalid JSON string');
    }
  }
  if (v instanceof RegoObject || Array.isArray(v)) return JSON.parse(stringifyJSON(v)) as unknown;
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
      const entry = compileSchema(schema);
      if (entry.validate(data)) return [true, []];
      return [false, documentErrors(entry, data)];
    },
  },
];
