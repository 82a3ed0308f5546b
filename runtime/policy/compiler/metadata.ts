/**
 * `# METADATA` annotations and the `rego.metadata.chain()` /
 * `rego.metadata.rule()` builtins, as OPA does them: a comment block that
 * starts with `# METADATA` holds YAML and annotates the package or rule
 * right below it. Scope defaults to `package` (above a package) or `rule`;
 * `document` applies to every rule of the same path, `subpackages` to the
 * package and the packages below it. As in OPA, the two builtins are
 * replaced at compile time by constants for the rule they appear in:
 * `rule()` is that rule's own annotations (`{}` if none), `chain()` is
 * `[{path, annotations?}]` from the rule through document, package and
 * subpackages annotations up to the root.
 */
import { type Body, type Expr, type Module, opRef, refName, type Rule, type Term } from '../ast.js';
import { PolicyError } from '../errors.js';
import { parseTermText } from '../parser.js';
import { fromJS } from '../value-json.js';
import { RegoObject, RegoSet, type Value } from '../value.js';
import { mapTerm } from './walk.js';
import { yamlLibrary } from '../yaml-library.js';

type Scope = 'package' | 'subpackages' | 'rule' | 'document';

interface Annotation {
  scope: Scope;
  value: RegoObject;
  /** The annotated package path (without `data`) or rule path. */
  path: string[];
}

const FIELDS = ['scope', 'title', 'description', 'related_resources', 'authors', 'organizations', 'schemas', 'entrypoint', 'custom'];

export function packagePath(m: Module): string[] {
  return m.package.path.terms.slice(1).map((t) => (t.type === 'string' ? t.value : '?'));
}

export function rulePath(r: Rule): string[] {
  const out = packagePath(r.module);
  for (const t of r.head.ref) {
    if (t.type === 'var') out.push(t.name);
    else if (t.type === 'string') out.push(t.value);
    else break;
  }
  return out;
}

/** `input.a["b-c"]` → ["input", "a", "b-c"]; undefined when the text is no ground ref of strings. */
export function refSegments(text: string): string[] | undefined {
  let t: Term;
  try {
    t = parseTermText(text);
  } catch {
    return undefined;
  }
  if (t.type === 'var') return [t.name];
  if (t.type !== 'ref') return undefined;
  const out: string[] = [];
  for (const [i, x] of t.terms.entries()) {
    if (i === 0 && x.type === 'var') out.push(x.name);
    else if (i > 0 && x.type === 'string') out.push(x.value);
    else return undefined;
  }
  return out;
}

/**
 * A `schemas` entry as OPA's annotation JSON has it: `{path: ["input", "x"], schema: ["schema", "a"]}` for
 * `- input.x: schema.a`, `{path, definition}` for an inline schema; kept as written where it is neither.
 */
function schemaEntry(entry: unknown): unknown {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return entry;
  const pairs = Object.entries(entry as Record<string, unknown>);
  if (pairs.length !== 1) return entry;
  const [k, v] = pairs[0] as [string, unknown];
  const path = refSegments(k);
  if (path === undefined) return entry;
  if (typeof v === 'string') {
    const schema = refSegments(v);
    return schema === undefined ? entry : { path, schema };
  }
  return typeof v === 'object' && v !== null ? { path, definition: v } : entry;
}

/** `Name <email>` → {name, email}; objects are kept. */
function author(a: unknown, loc: Module['package']['loc']): unknown {
  if (typeof a === 'string') {
    const m = /^(.*?)\s*<([^>]*)>\s*$/.exec(a.trim());
    if (m === null) return { name: a.trim() };
    const out: Record<string, string> = {};
    if (m[1] !== '') out['name'] = m[1] as string;
    out['email'] = m[2] as string;
    return out;
  }
  if (typeof a === 'object' && a !== null) return a;
  throw new PolicyError({ code: 'rego_parse_error', detail: 'invalid author', location: loc });
}

function annotationValue(doc: Record<string, unknown>, scope: Scope, loc: Module['package']['loc']): RegoObject {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc)) {
    // OPA ignores keys it does not know.
    if (!FIELDS.includes(k) || v === null || v === undefined) continue;
    if (k === 'authors') out[k] = (Array.isArray(v) ? v : [v]).map((a) => author(a, loc));
    else if (k === 'related_resources') out[k] = (Array.isArray(v) ? v : [v]).map((r) => (typeof r === 'string' ? { ref: r } : r));
    else if (k === 'schemas' && Array.isArray(v)) out[k] = v.map(schemaEntry);
    else out[k] = v;
  }
  out['scope'] = scope;
  return fromJS(out) as RegoObject;
}

export interface Block {
  /** 1-based row of the first line after the block. */
  nextRow: number;
  doc: Record<string, unknown>;
  row: number;
}

/** The `# METADATA` blocks of a source, each with the row of the line after it. */
export function metadataBlocks(source: string, file: string): Block[] {
  const lines = source.split(/\r?\n/);
  const out: Block[] = [];
  // As OPA's IsMetadataComment: a comment in column 1 whose text, trimmed, starts with METADATA (`# METADATA:` too);
  // the block is the comments in column 1 on the rows right below it, up to the next such comment.
  const isStart = (line: string): boolean => line.startsWith('#') && line.slice(1).trim().startsWith('METADATA');
  for (let i = 0; i < lines.length; i++) {
    if (!isStart(lines[i] ?? '')) continue;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && (lines[j] ?? '').startsWith('#') && !isStart(lines[j] ?? '')) {
      const l = (lines[j] ?? '').slice(1);
      body.push(l.startsWith(' ') ? l.slice(1) : l);
      j++;
    }
    let doc: unknown;
    try {
      doc = yamlLibrary().parse(body.join('\n')) ?? {};
    } catch (e) {
      throw new PolicyError({ code: 'rego_parse_error', detail: `yaml: ${(e as Error).message.split('\n')[0]}`, location: { file, row: i + 1, col: 1 } });
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw new PolicyError({ code: 'rego_parse_error', detail: 'invalid metadata block', location: { file, row: i + 1, col: 1 } });
    }
    out.push({ nextRow: j + 1, doc: doc as Record<string, unknown>, row: i + 1 });
    i = j - 1;
  }
  return out;
}

/** The package, import or rule an annotation written at `row` annotates (OPA's attachAnnotationsNodes). */
export function annotatedStatement(m: Module, row: number): Module['package'] | Module['imports'][number] | Rule | undefined {
  let best: Module['package'] | Module['imports'][number] | Rule | undefined;
  for (const s of [m.package, ...m.imports, ...m.rules]) if (s.loc.row > row && (best === undefined || s.loc.row < best.loc.row)) best = s;
  return best;
}

/**
 * Replaces rego.metadata.chain()/rule() calls with their values; returns whether there was one (OPA then parses
 * every module's annotations, and its type checker applies their schemas).
 */
export function rewriteMetadataCalls(modules: Module[], sources: ReadonlyMap<string, string>): boolean {
  const uses = modules.some((m) => (sources.get(m.file) ?? '').includes('rego.metadata.'));
  if (!uses) return false;
  let called = false;
  const byRule = new Map<Rule, Annotation[]>();
  const all: Annotation[] = [];
  for (const m of modules) {
    const blocks = metadataBlocks(sources.get(m.file) ?? '', m.file);
    for (const b of blocks) {
      const loc = { file: m.file, row: b.row, col: 1 };
      // As OPA's attachAnnotationsNodes: the first statement (package, import or rule) on a row after the block's
      // METADATA comment, whatever lies between (comments, another block).
      const target = annotatedStatement(m, b.row);
      const rule = target !== undefined && 'head' in target ? target : undefined;
      const isPackage = target === m.package;
      const declared = b.doc['scope'];
      if (isPackage) {
        const scope: Scope = declared === 'subpackages' ? 'subpackages' : 'package';
        all.push({ scope, value: annotationValue(b.doc, scope, loc), path: packagePath(m) });
      } else if (rule !== undefined) {
        const scope: Scope = declared === 'document' ? 'document' : 'rule';
        const a = { scope, value: annotationValue(b.doc, scope, loc), path: rulePath(rule) };
        all.push(a);
        byRule.set(rule, [...(byRule.get(rule) ?? []), a]);
      }
    }
  }
  const entry = (path: string[], ann: RegoObject | undefined): Value => {
    const o = RegoObject.fromEntries([['path', path]]);
    if (ann !== undefined) o.set('annotations', ann);
    return o;
  };
  for (const m of modules) {
    for (const r of m.rules) {
      const path = rulePath(r);
      const own = (byRule.get(r) ?? []).find((a) => a.scope === 'rule');
      const chain: Value[] = [entry(path, own?.value)];
      for (const a of all) if (a.scope === 'document' && a.path.join('.') === path.join('.')) chain.push(entry(a.path, a.value));
      const pkg = packagePath(m);
      for (let n = pkg.length; n >= 0; n--) {
        const p = pkg.slice(0, n);
        for (const a of all) {
          if (a.path.join('.') !== p.join('.')) continue;
          if ((a.scope === 'package' && n === pkg.length) || a.scope === 'subpackages') chain.push(entry(p, a.value));
        }
      }
      const ruleValue: Value = own?.value ?? new RegoObject();
      for (let b: Rule | undefined = r; b !== undefined; b = b.else) called = rewriteRule(b, chain, ruleValue) || called;
    }
  }
  return called;
}

function constTerm(v: Value, loc: Term['loc']): Term {
  if (v === null) return { type: 'null', loc };
  if (typeof v === 'boolean') return { type: 'boolean', value: v, loc };
  if (typeof v === 'string') return { type: 'string', value: v, loc };
  if (typeof v === 'number' || typeof v === 'bigint') return { type: 'number', value: v, loc };
  if (Array.isArray(v)) return { type: 'array', items: v.map((x) => constTerm(x, loc)), loc };
  if (v instanceof RegoObject) return { type: 'object', entries: v.entries().map(([k, x]): [Term, Term] => [constTerm(k, loc), constTerm(x, loc)]), loc };
  if (v instanceof RegoSet) return { type: 'set', items: v.values().map((x) => constTerm(x, loc)), loc };
  return { type: 'number', value: v, loc };
}

function rewriteRule(r: Rule, chain: Value[], rule: Value): boolean {
  let called = false;
  const sub = (t: Term): Term =>
    mapTerm(t, (x) => {
      if (x.type !== 'call' || x.args.length !== 0) return undefined;
      const name = refName(x.op);
      if (name === 'rego.metadata.chain' || name === 'rego.metadata.rule') called = true;
      if (name === 'rego.metadata.chain') return constTerm(chain, x.loc);
      if (name === 'rego.metadata.rule') return constTerm(rule, x.loc);
      return undefined;
    });
  const body = (b: Body): Body => b.map(expr);
  const expr = (e: Expr): Expr => {
    switch (e.kind) {
      case 'term':
        return { ...e, term: sub(e.term) };
      case 'call': {
        const name = refName(e.op);
        if ((name === 'rego.metadata.chain' || name === 'rego.metadata.rule') && e.args.length === 1) {
          called = true;
          const v = name === 'rego.metadata.chain' ? chain : rule;
          return { ...e, op: opRef('eq', e.op.loc), args: [sub(e.args[0] as Term), constTerm(v, e.loc)] };
        }
        return { ...e, args: e.args.map(sub) };
      }
      case 'every':
        return { ...e, domain: sub(e.domain), body: body(e.body) };
      case 'notbody':
        return { ...e, body: body(e.body) };
      case 'some':
        return { ...e, ...(e.inDomain !== undefined ? { inDomain: sub(e.inDomain) } : {}) };
      default:
        return e;
    }
  };
  r.body = body(r.body);
  if (r.head.value !== undefined) r.head.value = sub(r.head.value);
  if (r.head.key !== undefined) r.head.key = sub(r.head.key);
  return called;
}
