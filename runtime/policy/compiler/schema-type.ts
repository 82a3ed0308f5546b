/**
 * A JSON schema turned into a Rego type as OPA v1.20.2's compiler turns it
 * (`loadSchema`: gojsonschema compiles the schema, then OPA's schema parser
 * reads the compiled sub-schemas). What OPA reads, and so what is read here:
 * `type` (the first of boolean, string, integer/number, object, array that
 * the list holds; `null` alone, or no type, is `any`), `properties` (an
 * object with properties has exactly those: closed, `additionalProperties`
 * is not read; one without is `object[any: any]`), `items` (one schema: an
 * array of it; a list: a tuple), `anyOf` (the union, with the schema's own
 * object type when it has static properties), `allOf` (merged as OPA's
 * `mergeSchemas` merges: properties appended, types compared as
 * gojsonschema prints them, the merge mutating the first schema as it does)
 * and local `$ref`s (the schema referred to, parsed once and shared, as
 * gojsonschema's reference pool shares it). `required`, `enum`, `const`,
 * `oneOf`, `not` and formats give no type. Where a `$ref` refers to a schema
 * being read (a recursive schema) OPA builds a cyclic type; here the
 * recursion point is `any`.
 */
import { goSchemaRefusal } from '../builtins/json-schema.js';
import { isObj, type Json, localRefTarget } from '../builtins/json-schema-go-errors.js';
import { ANY, arrayOf, BOOLEAN, NUMBER, objectOf, or, type RegoType, STRING } from './rego-type.js';

/** A schema OPA refuses, with OPA's text (`unable to compile the schema: …`, `type checking: …`). */
export class SchemaTypeError extends Error {}

/** gojsonschema's `SubSchema`, the part OPA's schema parser reads. */
interface Sub {
  property: string;
  types: string[];
  props: Sub[];
  items: Sub[];
  itemsSingle: boolean;
  anyOf?: Sub[];
  allOf?: Sub[];
  ref?: string;
  refSchema?: Sub;
}

/** gojsonschema's text of a type list: `undefined`, `object`, `[string,null]`. */
function typesText(types: readonly string[]): string {
  if (types.length === 0) return 'undefined';
  return types.length === 1 ? (types[0] as string) : `[${types.join(',')}]`;
}

/** gojsonschema's `Types.Add`: false when the type is there already. */
function addType(s: Sub, t: string): boolean {
  if (s.types.includes(t)) return false;
  s.types.push(t);
  return true;
}

/** Builds the sub-schemas of one compiled schema; `$ref` targets are parsed once, as gojsonschema's pool does. */
class SubSchemaReader {
  private readonly pool = new Map<string, Sub>();
  constructor(private readonly root: Json) {}

  read(node: Json, property: string): Sub {
    const s: Sub = { property, types: [], props: [], items: [], itemsSingle: false };
    if (!isObj(node)) return s;
    const ref = node['$ref'];
    if (typeof ref === 'string') {
      s.ref = ref;
      const pooled = this.pool.get(ref);
      if (pooled === undefined) {
        // The first time a reference is met, the schema it names is parsed and not the keywords beside it.
        const target: Sub = { property: '$ref', types: [], props: [], items: [], itemsSingle: false, ref };
        this.pool.set(ref, target);
        const found = localRefTarget(this.root, ref);
        if ('value' in found) Object.assign(target, this.read(found.value, '$ref'), { property: '$ref', ref });
        s.refSchema = target;
        return s;
      }
      s.refSchema = pooled;
    }
    const t = node['type'];
    if (typeof t === 'string') s.types.push(t);
    else if (Array.isArray(t)) s.types.push(...t.filter((x): x is string => typeof x === 'string'));
    const props = node['properties'];
    if (isObj(props)) for (const [k, v] of Object.entries(props)) s.props.push(this.read(v, k));
    const items = node['items'];
    if (isObj(items)) {
      s.items = [this.read(items, 'items')];
      s.itemsSingle = true;
    } else if (Array.isArray(items)) s.items = items.map((x) => this.read(x, 'items'));
    for (const k of ['anyOf', 'allOf'] as const) {
      const list = node[k];
      if (Array.isArray(list)) s[k] = list.map((x) => this.read(x, k));
    }
    return s;
  }
}

/** OPA's `mergeSchemas`: mutates and returns the first schema. */
function mergeSchemas(schemas: Sub[]): Sub | undefined {
  const result = schemas[0];
  if (result === undefined) return undefined;
  for (const s of schemas) {
    if (s.props.length > 0) addType(s, 'object');
    else if (s.items.length > 0) addType(s, 'array');
  }
  for (const s of schemas.slice(1)) {
    if (typesText(result.types) !== typesText(s.types)) {
      throw new SchemaTypeError(`unable to merge these schemas: type mismatch: ${typesText(result.types)} and ${typesText(s.types)}`);
    }
    if (result.types.includes('object') && result.props.length > 0 && s.types.includes('object') && s.props.length > 0) result.props.push(...s.props);
    else if (result.types.includes('array') && result.items.length > 0 && s.types.includes('array') && s.items.length > 0) {
      for (let j = 0; j < s.items.length; j++) {
        if (result.items.length - 1 < j) result.items.push(s.items[j] as Sub);
        if (typesText((result.items[j] as Sub).types) !== typesText((s.items[j] as Sub).types)) throw new SchemaTypeError('unable to merge these schemas');
      }
    }
  }
  return result;
}

/** OPA's schema parser over the sub-schemas. */
class SchemaParser {
  /** The `$ref`s being parsed: a reference met again inside its own schema is `any` here (OPA: a cyclic type). */
  private readonly open = new Set<string>();

  parse(s: Sub): RegoType {
    if (s.refSchema !== undefined) {
      const key = s.ref as string;
      if (this.open.has(key)) return ANY;
      this.open.add(key);
      try {
        return this.parse(s.refSchema);
      } finally {
        this.open.delete(key);
      }
    }
    if (s.anyOf !== undefined) {
      let type: RegoType | undefined;
      if (s.types.length > 0) {
        const core = this.parse({ ...s, anyOf: undefined });
        if (core.kind === 'object' && core.props.length > 0 && core.dyn === undefined) type = or(type, core);
      }
      for (const m of s.anyOf) type = or(this.parse(m), type);
      return type ?? ANY;
    }
    if (s.allOf !== undefined) {
      const merged = mergeSchemas(s.allOf);
      if (merged === undefined) return ANY;
      if (s.types.length > 0) {
        const both = (t: string) => s.types.includes(t) && merged.types.includes(t);
        if (both('object') || both('array')) return this.parse(mergeSchemas([merged, s]) as Sub);
        if (typesText(s.types) !== typesText(merged.types)) throw new SchemaTypeError('unable to merge these schemas');
      }
      return this.parse(merged);
    }
    if (s.types.length > 0) {
      if (s.types.includes('boolean')) return BOOLEAN;
      if (s.types.includes('string')) return STRING;
      if (s.types.includes('integer') || s.types.includes('number')) return NUMBER;
      if (s.types.includes('object')) {
        if (s.props.length === 0) return objectOf([], { key: ANY, value: ANY });
        const props = new Map<string, RegoType>();
        for (const p of s.props) {
          const t = this.parse(p);
          if (!props.has(p.property)) props.set(p.property, t);
        }
        return objectOf([...props]);
      }
      if (s.types.includes('array')) {
        if (s.items.length === 0) return arrayOf([], ANY);
        if (s.itemsSingle) return arrayOf([], this.parse(s.items[0] as Sub));
        return arrayOf(s.items.map((i) => this.parse(i)));
      }
    }
    if (s.props.length > 0) {
      if (addType(s, 'object')) return this.parse(s);
    } else if (s.items.length > 0) {
      if (addType(s, 'array')) return this.parse(s);
    }
    return ANY;
  }
}

/**
 * The Rego type of a JSON schema (a JSON value: objects, arrays, strings, numbers, booleans, null), as OPA's
 * `loadSchema` makes it. Throws {@link SchemaTypeError} with OPA's text where OPA refuses the schema.
 */
export function schemaType(schema: unknown): RegoType {
  const json = schema as Json;
  const refused = goSchemaRefusal(json);
  if (refused !== undefined) throw new SchemaTypeError(`unable to compile the schema: ${refused}`);
  const root = new SubSchemaReader(json).read(json, '');
  try {
    return new SchemaParser().parse(root);
  } catch (e) {
    if (e instanceof SchemaTypeError) throw new SchemaTypeError(`type checking: ${e.message}`);
    throw e;
  }
}
