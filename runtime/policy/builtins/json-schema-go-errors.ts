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
 * This walk only lists errors. Whether the document is valid is ajv's answer;
 * when the two disagree, or the schema uses what this walk does not follow
 * (a `$ref` that is not a local JSON pointer, a pattern JavaScript cannot
 * read), the caller keeps ajv's list.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

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
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Go's `json.Marshal` of a decoded value: object keys sorted, numbers as float64 print them. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObj(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** gojsonschema's name of a decoded value's type: a whole number is `integer`. */
export function goType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
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
  if (typeof node === 'number') {
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
  if (schema['if'] !== undefined) {
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
  if (schema['const'] !== undefined && canonical(node) !== canonical(schema['const'])) {
    add(result, path, 'const', `${field} does not match: ${JSON.stringify(schema['const'])}`);
  }
  const allowed = schema['enum'];
  if (Array.isArray(allowed) && allowed.length > 0 && !allowed.some((x) => canonical(x) === canonical(node))) {
    add(result, path, 'enum', `${field} must be one of the following: ${allowed.map((x) => JSON.stringify(x)).join(', ')}`);
  }
  const format = schema['format'];
  if (typeof format === 'string' && format !== '' && !walk.formatHolds(format, node)) add(result, path, 'format', `Does not match format '${format}'`);
  result.score++;
}

function validateArray(walk: GoSchemaWalk, schema: Record<string, Json>, node: unknown[], result: Result, path: readonly string[]): void {
  const items = schema['items'];
  if (Array.isArray(items)) {
    for (let i = 0; i < items.length && i < node.length; i++) merge(result, sub(walk, items[i] as Json, node[i], [...path, String(i)]));
    if (items.length < node.length) {
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
      const key = canonical(item);
      const i = seen.get(key);
      if (i !== undefined) add(result, path, 'unique', `array items[${i},${j}] must be unique`);
      seen.set(key, j);
    });
  }
  const contains = schema['contains'];
  if (contains !== undefined) {
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
  if (names !== undefined) {
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

function validateNumber(schema: Record<string, Json>, node: number, result: Result, path: readonly string[]): void {
  const multipleOf = schema['multipleOf'];
  if (typeof multipleOf === 'number' && !Number.isInteger(node / multipleOf)) add(result, path, 'multiple_of', `Must be a multiple of ${multipleOf}`);
  const max = schema['maximum'];
  if (typeof max === 'number' && node > max) add(result, path, 'number_lte', `Must be less than or equal to ${max}`);
  const exMax = schema['exclusiveMaximum'];
  if (typeof exMax === 'number' && node >= exMax) add(result, path, 'number_lt', `Must be less than ${exMax}`);
  const min = schema['minimum'];
  if (typeof min === 'number' && node < min) add(result, path, 'number_gte', `Must be greater than or equal to ${min}`);
  const exMin = schema['exclusiveMinimum'];
  if (typeof exMin === 'number' && node <= exMin) add(result, path, 'number_gt', `Must be greater than ${exMin}`);
  result.score++;
}

function patternMatches(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    throw new UnfollowedSchema(`pattern ${pattern}`);
  }
}
