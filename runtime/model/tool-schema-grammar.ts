import type { GbnfJsonSchema } from 'node-llama-cpp';
import { ModelRequestError } from './model-request-error.js';

/**
 * Tool parameter schemas, as OpenAI, Anthropic, pydantic and zod write them,
 * turned into the subset of JSON Schema that node-llama-cpp compiles into a
 * generation grammar. Every value the result lets the model generate is
 * valid against the original schema (`checkToolArguments` checks it again
 * after generation); what no grammar here can express is refused before
 * generation with a 400 naming the keyword and where it is.
 *
 * - `anyOf` / `oneOf` become one `oneOf` of their branches; `allOf` is merged into one schema.
 * - `$ref` to `#/$defs/…` or `#/definitions/…` is inlined (a recursive one is refused).
 * - `type` arrays and `nullable: true` become a `oneOf` of one type each.
 * - `enum` / `const` of plain values; an `enum` keeps only the values its `type` allows.
 * - integer `minimum` / `maximum` / `exclusiveMinimum` / `exclusiveMaximum` / `multipleOf`
 *   become the allowed integers, at most `MAX_INTEGER_CHOICES` of them from the lower bound
 *   (or up to the upper bound when there is no lower one); bounds on non-integer numbers are refused.
 * - `minLength` / `maxLength`, `minItems` / `maxItems`, `minProperties` / `maxProperties`, and
 *   `format` `date`, `time`, `date-time` are kept; other formats are annotations (as JSON Schema's default).
 * - `pattern`, `not`, `if`, `uniqueItems`, `contains`, `patternProperties`, … are refused.
 *
 * node-llama-cpp generates every listed property (its `required` is all of them); an optional
 * one is then given a value its schema allows (`null` for pydantic's `Optional[...]`).
 */
export const MAX_INTEGER_CHOICES = 1000;

type Schema = Record<string, unknown>;
type Out = Record<string, unknown>;

/** Keywords that say nothing about which values are valid. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  'example',
  '$schema',
  '$id',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  'discriminator',
  'strict',
  'format',
  'contentEncoding',
  'contentMediaType',
  '$defs',
  'definitions',
]);

/** Keywords the grammar cannot express. */
const REFUSED = [
  'pattern',
  'not',
  'if',
  'then',
  'else',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'patternProperties',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
  'dependencies',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$dynamicRef',
  '$recursiveRef',
];

const GRAMMAR_FORMATS = new Set(['date', 'time', 'date-time']);
const PRIMITIVES = ['string', 'number', 'integer', 'boolean', 'null'] as const;

interface Walk {
  root: Schema;
  tool: string;
  /** `$ref`s being inlined, to find recursion. */
  refs: readonly string[];
}

/**
 * The grammar schema of a tool's parameters; throws a 400 `ModelRequestError` naming the keyword it cannot compile.
 *
 * @example
 * toolGrammarSchema({ tool: 'f', schema: { type: 'object', properties: { n: { anyOf: [{ type: 'integer', minimum: 0, maximum: 10 }, { type: 'null' }] } } } });
 */
export function toolGrammarSchema(options: { tool: string; schema: Schema }): GbnfJsonSchema {
  return grammarOnlySchema(markedSchema(options));
}

/** The grammar schema with integer ranges marked for `documentedSchema`. */
export function markedSchema(options: { tool: string; schema: Schema }): GbnfJsonSchema {
  return compile(options.schema, '', { root: options.schema, tool: options.tool, refs: [] }) as GbnfJsonSchema;
}

function refuse(w: Walk, path: string, message: string): never {
  throw new ModelRequestError({ status: 400, message: `unsupported parameters schema for tool '${w.tool}' at ${path || '/'}: ${message}` });
}

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function described(out: Out, schema: Schema): Out {
  return typeof schema.description === 'string' && !('description' in out) ? { ...out, description: schema.description } : out;
}

function compile(input: unknown, path: string, w: Walk): Out {
  if (input === true) return anyValue();
  if (!isSchema(input)) return refuse(w, path, `a schema must be an object or true, got ${JSON.stringify(input)}`);
  for (const keyword of REFUSED) {
    if (keyword === 'uniqueItems' && input.uniqueItems === false) continue;
    if (keyword in input) refuse(w, path, `'${keyword}' cannot be enforced by the generation grammar; remove it from the schema`);
  }
  let schema = input;
  const used: string[] = [];
  if (typeof schema.$ref === 'string') schema = inlineRef(schema, path, w, used);
  if (Array.isArray(schema.allOf)) schema = mergeAll(schema, path, w, used);
  // What lies below an inlined definition sees its reference, so a recursive one is found.
  if (used.length > 0) w = { ...w, refs: [...w.refs, ...used] };
  if (schema.nullable === true) {
    const { nullable: _nullable, ...rest } = schema;
    return described({ oneOf: [compile(rest, path, w), { type: 'null' }] }, schema);
  }
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches !== undefined) {
    const key = schema.anyOf !== undefined ? 'anyOf' : 'oneOf';
    if (!Array.isArray(branches) || branches.length === 0) refuse(w, path, `'${key}' must be a non-empty array`);
    const { anyOf: _a, oneOf: _o, ...siblings } = schema;
    const constraining = Object.keys(siblings).some((k) => !ANNOTATIONS.has(k));
    const compiled = branches.map((branch, i) => {
      const at = `${path}/${key}/${i}`;
      return compile(constraining ? { allOf: [siblings, branch] } : branch, at, w);
    });
    return described({ oneOf: compiled }, schema);
  }
  if ('const' in schema) return described({ const: plainValue(schema.const, `${path}/const`, w) }, schema);
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.map((v, i) => plainValue(v, `${path}/enum/${i}`, w));
    const types = typesOf(schema);
    const allowed = types ? values.filter((v) => types.some((t) => valueHasType(v, t))) : values;
    if (allowed.length === 0) refuse(w, path, "no value of 'enum' has the schema's 'type'");
    return described({ enum: allowed }, schema);
  }
  const types = typesOf(schema, w, path) ?? inferredTypes(schema);
  if (types.length === 0) return described(anyValue(), schema);
  if (types.length > 1) return described({ oneOf: types.map((t) => typed(schema, t, path, w)) }, schema);
  return typed(schema, types[0]!, path, w);
}

function typesOf(schema: Schema, w?: Walk, path?: string): string[] | undefined {
  const type = schema.type;
  if (type === undefined) return undefined;
  const list = Array.isArray(type) ? type : [type];
  for (const t of list) {
    if (typeof t !== 'string' || ![...PRIMITIVES, 'object', 'array'].includes(t)) {
      if (w) refuse(w, `${path}/type`, `unknown type ${JSON.stringify(t)}`);
      return undefined;
    }
  }
  return list as string[];
}

/** The type a schema without `type` implies by its keywords; none means any value. */
function inferredTypes(schema: Schema): string[] {
  if ('properties' in schema || 'additionalProperties' in schema || 'required' in schema) return ['object'];
  if ('items' in schema || 'prefixItems' in schema || 'minItems' in schema || 'maxItems' in schema) return ['array'];
  if ('minLength' in schema || 'maxLength' in schema) return ['string'];
  if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].some((k) => k in schema)) return ['number'];
  return [];
}

function typed(schema: Schema, type: string, path: string, w: Walk): Out {
  switch (type) {
    case 'string': {
      const out: Out = { type: 'string' };
      if (typeof schema.format === 'string' && GRAMMAR_FORMATS.has(schema.format)) return described({ type: 'string', format: schema.format }, schema);
      for (const k of ['minLength', 'maxLength'] as const) if (schema[k] !== undefined) out[k] = count(schema[k], `${path}/${k}`, w);
      return described(out, schema);
    }
    case 'integer':
    case 'number':
      return described(numeric(schema, type, path, w), schema);
    case 'boolean':
    case 'null':
      return described({ type }, schema);
    case 'object':
      return described(object(schema, path, w), schema);
    case 'array':
      return described(array(schema, path, w), schema);
    default:
      return refuse(w, `${path}/type`, `unknown type ${JSON.stringify(type)}`);
  }
}

function numeric(schema: Schema, type: 'integer' | 'number', path: string, w: Walk): Out {
  const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'].filter((k) => schema[k] !== undefined);
  if (bounds.length === 0) return { type };
  for (const k of bounds) {
    const value = schema[k];
    // Draft 4's boolean exclusiveMinimum/Maximum qualify minimum/maximum.
    if (typeof value === 'boolean' && (k === 'exclusiveMinimum' || k === 'exclusiveMaximum')) continue;
    if (typeof value !== 'number' || !Number.isFinite(value)) refuse(w, `${path}/${k}`, `'${k}' must be a finite number, got ${JSON.stringify(value)}`);
  }
  if (type === 'number') {
    refuse(w, `${path}/${bounds[0]}`, `'${bounds[0]}' on a non-integer number cannot be enforced by the generation grammar; use type 'integer' or remove it`);
  }
  const bound = (k: string) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined);
  const lows = [
    bound('minimum') === undefined ? undefined : schema.exclusiveMinimum === true ? Math.floor(bound('minimum')!) + 1 : Math.ceil(bound('minimum')!),
  ];
  if (bound('exclusiveMinimum') !== undefined) lows.push(Math.floor(bound('exclusiveMinimum')!) + 1);
  const highs = [
    bound('maximum') === undefined ? undefined : schema.exclusiveMaximum === true ? Math.ceil(bound('maximum')!) - 1 : Math.floor(bound('maximum')!),
  ];
  if (bound('exclusiveMaximum') !== undefined) highs.push(Math.ceil(bound('exclusiveMaximum')!) - 1);
  const low = Math.max(...lows.filter((x): x is number => x !== undefined), -Infinity);
  const high = Math.min(...highs.filter((x): x is number => x !== undefined), Infinity);
  const step = bound('multipleOf');
  if (step !== undefined && step <= 0) refuse(w, `${path}/multipleOf`, "'multipleOf' must be greater than 0");
  const from = Number.isFinite(low) ? low : Number.isFinite(high) ? high - (MAX_INTEGER_CHOICES - 1) * (step && Number.isInteger(step) ? step : 1) : 0;
  const values: number[] = [];
  for (let x = from; x <= high && values.length < MAX_INTEGER_CHOICES && x - from <= MAX_INTEGER_CHOICES * Math.max(1, step ?? 1); x++) {
    if (step === undefined || Number.isInteger(x / step)) values.push(x);
  }
  if (!Number.isSafeInteger(from) || values.length === 0)
    refuse(w, path, `no integer lies within ${bounds.map((k) => `${k} ${JSON.stringify(schema[k])}`).join(', ')}`);
  const range = `an integer from ${values[0]} to ${values.at(-1)}${step === undefined ? '' : `, a multiple of ${step}`}`;
  return { enum: values, [RANGE]: range };
}

/** Marks an `enum` made from integer bounds with the range it stands for, which the prompt shows instead of the list. */
const RANGE = 'x-integer-range';

/**
 * A grammar schema as the model's prompt describes it: an integer range as
 * `integer` with the range in its description rather than a list of every value.
 */
export function documentedSchema(schema: GbnfJsonSchema): GbnfJsonSchema {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isSchema(value)) return value;
    if (typeof value[RANGE] === 'string') {
      const note = value[RANGE];
      return { type: 'integer', description: typeof value.description === 'string' ? `${value.description} (${note})` : note };
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'enum' || k === 'const' ? v : walk(v)]));
  };
  return walk(schema) as GbnfJsonSchema;
}

/** A grammar schema without the marks `documentedSchema` reads. */
export function grammarOnlySchema(schema: GbnfJsonSchema): GbnfJsonSchema {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isSchema(value)) return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== RANGE)
        .map(([k, v]) => [k, k === 'enum' || k === 'const' ? v : walk(v)]),
    );
  };
  return walk(schema) as GbnfJsonSchema;
}

function object(schema: Schema, path: string, w: Walk): Out {
  const out: Out = { type: 'object' };
  if (schema.properties !== undefined) {
    if (!isSchema(schema.properties)) refuse(w, `${path}/properties`, "'properties' must be an object");
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, compile(v, `${path}/properties/${k}`, w)]));
  }
  const extra = schema.additionalProperties;
  if (extra === true || (extra === undefined && schema.properties === undefined)) out.additionalProperties = true;
  else if (isSchema(extra)) out.additionalProperties = compile(extra, `${path}/additionalProperties`, w);
  for (const k of ['minProperties', 'maxProperties'] as const) if (schema[k] !== undefined) out[k] = count(schema[k], `${path}/${k}`, w);
  if (schema.required !== undefined) {
    const listed = Object.keys(isSchema(schema.properties) ? schema.properties : {});
    const missing = (Array.isArray(schema.required) ? schema.required : []).filter((k) => typeof k !== 'string' || !listed.includes(k));
    // A required property the grammar does not list could never be generated.
    if (!Array.isArray(schema.required) || missing.length > 0) refuse(w, `${path}/required`, `required ${JSON.stringify(missing)} not among 'properties'`);
  }
  return out;
}

function array(schema: Schema, path: string, w: Walk): Out {
  const out: Out = { type: 'array' };
  const tuple = Array.isArray(schema.items) ? schema.items : schema.prefixItems;
  if (tuple !== undefined) {
    if (!Array.isArray(tuple)) refuse(w, `${path}/prefixItems`, "'prefixItems' must be an array");
    out.prefixItems = tuple.map((item, i) => compile(item, `${path}/prefixItems/${i}`, w));
  }
  const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
  if (rest === false) out.maxItems = (tuple ?? []).length;
  else if (rest !== undefined && rest !== true) out.items = compile(rest, `${path}/items`, w);
  for (const k of ['minItems', 'maxItems'] as const) {
    if (schema[k] === undefined) continue;
    const n = count(schema[k], `${path}/${k}`, w);
    out[k] = k === 'maxItems' && typeof out.maxItems === 'number' ? Math.min(out.maxItems, n) : n;
  }
  return out;
}

function count(value: unknown, path: string, w: Walk): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) refuse(w, path, `must be a whole number from 0, got ${JSON.stringify(value)}`);
  return value;
}

function plainValue(value: unknown, path: string, w: Walk): string | number | boolean | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  return refuse(w, path, `only strings, numbers, booleans and null can be generated as a fixed value, got ${JSON.stringify(value)}`);
}

function valueHasType(value: unknown, type: string): boolean {
  if (type === 'null') return value === null;
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value);
  return typeof value === type;
}

function anyValue(): Out {
  return { oneOf: [{ type: ['string', 'number', 'boolean', 'null'] }, { type: 'object', additionalProperties: true }, { type: 'array' }] };
}

/** The schema a local `$ref` points to, merged with the keywords beside it. */
function inlineRef(schema: Schema, path: string, w: Walk, used: string[]): Schema {
  const ref = schema.$ref as string;
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (!match) refuse(w, `${path}/$ref`, `'$ref' ${JSON.stringify(ref)}: only references into '#/$defs' or '#/definitions' are supported`);
  if (w.refs.includes(ref)) refuse(w, `${path}/$ref`, `'$ref' ${JSON.stringify(ref)} is recursive, which the generation grammar cannot express`);
  const defs = w.root[match[1]!];
  const name = match[2]!.replace(/~1/g, '/').replace(/~0/g, '~');
  const target = isSchema(defs) ? defs[name] : undefined;
  if (target === undefined) refuse(w, `${path}/$ref`, `'$ref' ${JSON.stringify(ref)} names no definition`);
  used.push(ref);
  const { $ref: _ref, ...siblings } = schema;
  return mergeAll({ ...siblings, allOf: [target] }, path, { ...w, refs: [...w.refs, ref] }, used);
}

/** `allOf` (and the keywords beside it) as one schema; refuses what cannot be merged. */
function mergeAll(schema: Schema, path: string, w: Walk, used: string[]): Schema {
  const { allOf, ...siblings } = schema;
  let merged: Schema = {};
  for (const [i, part] of [siblings, ...(Array.isArray(allOf) ? allOf : [])].entries()) {
    if (part === true) continue;
    if (!isSchema(part)) refuse(w, `${path}/allOf/${i}`, 'a schema must be an object');
    let resolved = part;
    if (typeof resolved.$ref === 'string') resolved = inlineRef(resolved, `${path}/allOf/${i}`, w, used);
    if (Array.isArray(resolved.allOf)) resolved = mergeAll(resolved, `${path}/allOf/${i}`, w, used);
    merged = mergeTwo(merged, resolved, `${path}/allOf`, w);
  }
  return merged;
}

function mergeTwo(a: Schema, b: Schema, path: string, w: Walk): Schema {
  const out: Schema = { ...a };
  for (const [key, value] of Object.entries(b)) {
    if (!(key in out) || ANNOTATIONS.has(key)) {
      if (!(key in out) || key === 'description') out[key] = value;
      continue;
    }
    const mine = out[key];
    if (JSON.stringify(mine) === JSON.stringify(value)) continue;
    switch (key) {
      case 'type': {
        const left = Array.isArray(mine) ? mine : [mine];
        const right = Array.isArray(value) ? value : [value];
        const both = left.filter((t) => right.includes(t) || (t === 'integer' && right.includes('number')));
        for (const t of right) if (t === 'integer' && left.includes('number') && !both.includes(t)) both.push(t);
        if (both.length === 0) refuse(w, path, `'allOf' asks for types ${JSON.stringify(mine)} and ${JSON.stringify(value)} at once`);
        out.type = both.length === 1 ? both[0] : both;
        break;
      }
      case 'properties': {
        const props = { ...(mine as Schema) };
        for (const [k, v] of Object.entries(value as Schema)) props[k] = k in props ? { allOf: [props[k], v] } : v;
        out.properties = props;
        break;
      }
      case 'required':
        out.required = [...new Set([...(mine as string[]), ...(value as string[])])];
        break;
      case 'enum': {
        const right = (value as unknown[]).map((v) => JSON.stringify(v));
        out.enum = (mine as unknown[]).filter((v) => right.includes(JSON.stringify(v)));
        break;
      }
      case 'minimum':
      case 'exclusiveMinimum':
      case 'minLength':
      case 'minItems':
      case 'minProperties':
        out[key] = Math.max(mine as number, value as number);
        break;
      case 'maximum':
      case 'exclusiveMaximum':
      case 'maxLength':
      case 'maxItems':
      case 'maxProperties':
        out[key] = Math.min(mine as number, value as number);
        break;
      case 'additionalProperties':
        out[key] = mine === false || value === false ? false : { allOf: [mine, value].filter(isSchema) };
        break;
      case 'items':
        out[key] = isSchema(mine) && isSchema(value) ? { allOf: [mine, value] } : refuse(w, path, "'allOf' with different 'items' lists cannot be merged");
        break;
      default:
        refuse(w, path, `'allOf' with different values of '${key}' cannot be merged into one grammar`);
    }
  }
  return out;
}
