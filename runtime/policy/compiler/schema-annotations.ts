/**
 * The types that `schemas` annotations give `input` and `data` in a rule's
 * body, as OPA v1.20.2's type checker applies them once annotations are
 * read: always in `opa check` and `opa test`, and in the rego package (the
 * server) when a module calls rego.metadata.rule() or chain(). For each rule, the schema
 * annotations of its scopes in OPA's order (subpackages from the root down,
 * package, document, then the rule's own; an `else` branch has no rule
 * scope of its own), each one's type put at its path: `input` replaced,
 * `input.x.y` or `data.x` overriding the type there (OPA's `override`:
 * static properties replaced or added, `object<x: T>[any: any]` over a type
 * that is no object). A schema given as `schema.a.b` names an entry of the
 * schema set (`--schema`), `schema` alone its root; one the set lacks, or
 * that OPA cannot type, is an error at the rule (with no set at all, OPA
 * skips such an annotation).
 */
import type { Module, Rule } from '../ast.js';
import { PolicyError } from '../errors.js';
import { annotatedStatement, metadataBlocks, packagePath, refSegments, rulePath } from './metadata.js';
import { ANY, objectOf, type RegoType } from './rego-type.js';
import { schemaType, SchemaTypeError } from './schema-type.js';

/** Raw JSON schemas by their path below `schema` (`""` for the root, `"a\0b"` for `schema.a.b`). */
export type SchemaSet = ReadonlyMap<string, unknown>;

/** The key of a schema path (its segments below `schema`) in a {@link SchemaSet}. */
export function schemaKey(segments: readonly string[]): string {
  return segments.join('\u0000');
}

/** What annotations make of `input` and `data` in one rule's body. */
export interface RuleSchemaEnv {
  /** `input`'s type, when an annotation (or the global input schema) sets it. */
  input?: RegoType;
  /**
   * `data`'s type where annotations put one, by first key below `data`; a key absent here is typed as it
   * would be without annotations only when `data` has no annotation at all (else OPA types it from the rules
   * typed so far, which is not modelled: it is left untyped).
   */
  data?: Map<string, RegoType>;
}

interface SchemaAnnotation {
  /** `input` or `data` and the keys below it. */
  root: 'input' | 'data';
  path: string[];
  /** The schema set entry named (`schema.a.b` → ["a", "b"]), or the inline definition. */
  schema: { ref: string[] } | { definition: unknown };
}

/**
 * The `schemas` entries of one annotation block, with OPA's parse errors for a path that names neither input nor
 * data (`invalid document reference`), a schema that is no `schema…` ref (`invalid schema reference`) and one
 * that is neither text nor an object (`invalid schema declaration for path "input"`).
 */
function schemaEntries(doc: Record<string, unknown>, loc: { file: string; row: number; col: number }, errors: PolicyError[]): SchemaAnnotation[] {
  const list = doc['schemas'];
  if (!Array.isArray(list)) return [];
  const out: SchemaAnnotation[] = [];
  const fail = (detail: string) => errors.push(new PolicyError({ code: 'rego_parse_error', detail, location: loc }));
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) continue;
    // OPA reads one key of an entry (which, when there are several, varies: Go's map order); here the first.
    const first = Object.entries(entry as Record<string, unknown>)[0];
    if (first === undefined) continue;
    const [k, v] = first;
    const path = refSegments(k);
    const root = path?.[0];
    if (path === undefined || (root !== 'input' && root !== 'data')) {
      fail('invalid document reference');
      continue;
    }
    if (typeof v === 'string') {
      const ref = refSegments(v);
      if (ref === undefined || ref[0] !== 'schema') fail('invalid schema reference');
      else out.push({ root, path: path.slice(1), schema: { ref: ref.slice(1) } });
    } else if (typeof v === 'object' && v !== null && !Array.isArray(v)) out.push({ root, path: path.slice(1), schema: { definition: v } });
    else fail(`invalid schema declaration for path ${JSON.stringify(k.trim())}`);
  }
  return out;
}

type Scope = 'package' | 'subpackages' | 'rule' | 'document';

export interface Placed {
  scope: Scope;
  /** Where its `# METADATA` comment is. */
  loc: { file: string; row: number; col: number };
  /** The package path (package scopes) or rule path (document scope). */
  path: string;
  rule?: Rule;
  schemas: SchemaAnnotation[];
}

/**
 * The annotations of every module (in file name order, as OPA sorts them), placed by scope, and OPA's
 * `… annotation redeclared: file:row` for a second package or document annotation of one path.
 */
export function placeAnnotations(modules: readonly Module[], sources: ReadonlyMap<string, string>, errors: PolicyError[]): Placed[] {
  const out: Placed[] = [];
  const sorted = [...modules].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  for (const m of sorted) {
    for (const b of metadataBlocks(sources.get(m.file) ?? '', m.file)) {
      const loc = { file: m.file, row: b.row, col: 1 };
      const schemas = schemaEntries(b.doc, loc, errors);
      const target = annotatedStatement(m, b.row);
      const declared = b.doc['scope'];
      let placed: Placed | undefined;
      if (target === m.package) placed = { scope: declared === 'subpackages' ? 'subpackages' : 'package', loc, path: packagePath(m).join('.'), schemas };
      else if (target !== undefined && 'head' in target) {
        if (declared === 'document') placed = { scope: 'document', loc, path: rulePath(target).join('.'), schemas };
        else placed = { scope: 'rule', loc, path: rulePath(target).join('.'), rule: target, schemas };
      }
      if (placed === undefined) continue;
      const p = placed;
      const other = p.scope === 'package' || p.scope === 'document' ? out.find((o) => o.scope === p.scope && o.path === p.path) : undefined;
      if (other !== undefined) {
        errors.push(
          new PolicyError({ code: 'rego_type_error', detail: `${p.scope} annotation redeclared: ${other.loc.file}:${other.loc.row}`, location: p.loc }),
        );
        continue;
      }
      out.push(p);
    }
  }
  return out;
}

/** OPA's getRuleAnnotation: subpackages (root first), package, document, then the rule's own. */
function ruleAnnotations(placed: readonly Placed[], rule: Rule, own: boolean): SchemaAnnotation[] {
  const pkg = packagePath(rule.module);
  const out: SchemaAnnotation[] = [];
  for (let n = 0; n <= pkg.length; n++) {
    const p = pkg.slice(0, n).join('.');
    for (const a of placed) if (a.scope === 'subpackages' && a.path === p) out.push(...a.schemas);
  }
  for (const a of placed) if (a.scope === 'package' && a.path === pkg.join('.')) out.push(...a.schemas);
  const path = rulePath(rule).join('.');
  for (const a of placed) if (a.scope === 'document' && a.path === path) out.push(...a.schemas);
  if (own) for (const a of placed) if (a.scope === 'rule' && a.rule === rule) out.push(...a.schemas);
  return out;
}

/** OPA's getObjectType: `keys` nested as static properties over `o`, each object with dynamic property `dyn`. */
function nestedObject(keys: readonly string[], o: RegoType, dyn: { key: RegoType | undefined; value: RegoType | undefined } | undefined): RegoType {
  const [k, ...rest] = keys as [string, ...string[]];
  return objectOf([[k, rest.length === 0 ? o : nestedObject(rest, o, dyn)]], dyn);
}

/** OPA's override: `t` with the type at `keys` replaced by `o`. */
export function overrideType(keys: readonly string[], t: RegoType, o: RegoType): RegoType {
  if (keys.length === 0) return o;
  if (t.kind !== 'object') return nestedObject(keys, o, { key: ANY, value: ANY });
  const [k, ...rest] = keys as [string, ...string[]];
  let found = false;
  const props: Array<[string, RegoType | undefined]> = t.props.map(([key, v]) => {
    if (key !== k) return [key, v];
    found = true;
    return [key, rest.length === 0 || v === undefined ? o : overrideType(rest, v, o)];
  });
  if (!found) {
    const added = nestedObject(keys, o, t.dyn);
    if (added.kind === 'object') props.push(...added.props);
  }
  return objectOf(props, t.dyn);
}

/** Types schemas once each (OPA caches the types of named schemas; an inline one is typed at each use). */
class SchemaTypes {
  private readonly named = new Map<string, RegoType>();
  constructor(private readonly set: SchemaSet | undefined) {}

  typeOf(a: SchemaAnnotation, rule: Rule): RegoType | PolicyError | undefined {
    const fail = (detail: string) => new PolicyError({ code: 'rego_type_error', detail, location: rule.loc });
    if ('definition' in a.schema) {
      try {
        return schemaType(a.schema.definition);
      } catch (e) {
        if (e instanceof SchemaTypeError) return fail(e.message);
        throw e;
      }
    }
    // With no schema set at all (no `--schema`), OPA skips an annotation that names one.
    if (this.set === undefined) return undefined;
    const key = schemaKey(a.schema.ref);
    const hit = this.named.get(key);
    if (hit !== undefined) return hit;
    const raw = this.set?.get(key);
    if (raw === undefined) return fail(`undefined schema: ${['schema', ...a.schema.ref].join('.')}`);
    try {
      const t = schemaType(raw);
      this.named.set(key, t);
      return t;
    } catch (e) {
      if (e instanceof SchemaTypeError) return fail(e.message);
      throw e;
    }
  }
}

/**
 * Each rule's (and `else` branch's) schema environment, with the errors OPA reports for annotations it
 * cannot type (one per rule the annotation applies to, at the rule). `inputType` is the global input
 * schema's type (`--schema file`), the base the annotations override.
 */
export function ruleSchemaEnvs(options: {
  modules: readonly Module[];
  /** The modules' annotations ({@link placeAnnotations}). */
  placed: readonly Placed[];
  set: SchemaSet | undefined;
  inputType: RegoType | undefined;
  errors: PolicyError[];
}): Map<Rule, RuleSchemaEnv> {
  const placed = options.placed;
  const out = new Map<Rule, RuleSchemaEnv>();
  if (!placed.some((p) => p.schemas.length > 0)) return out;
  const types = new SchemaTypes(options.set);
  for (const m of options.modules) {
    for (const r of m.rules) {
      for (let b: Rule | undefined = r; b !== undefined; b = b.else) {
        const annotations = ruleAnnotations(placed, b, b === r);
        if (annotations.length === 0) continue;
        let input = options.inputType;
        let data: RegoType | undefined;
        for (const a of annotations) {
          const t = types.typeOf(a, b);
          if (t === undefined) continue;
          if (t instanceof PolicyError) {
            options.errors.push(t);
            continue;
          }
          if (a.root === 'input') input = overrideType(a.path, input ?? ANY, t);
          else data = overrideType(a.path, data ?? objectOf([], { key: ANY, value: ANY }), t);
        }
        const env: RuleSchemaEnv = {};
        if (input !== undefined) env.input = input;
        if (data !== undefined) env.data = new Map(data.kind === 'object' ? data.props.map(([k, v]) => [k, v ?? ANY]) : []);
        out.set(b, env);
      }
    }
  }
  return out;
}
