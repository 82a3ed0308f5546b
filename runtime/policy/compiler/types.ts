/**
 * The part of OPA's compile-time type checker (`v1/ast/check.go`) whose answer
 * is certain without OPA's full inference: a builtin call whose arguments'
 * types are all known and one of them is not a type the builtin declares, and
 * a ref into an object whose keys are all known, with a key it never has.
 *
 * The safety rule: nothing OPA accepts is refused. A type is known only when
 * it cannot be anything else in OPA's inference: a scalar literal, a local
 * whose one binding is `x := <literal>` (and that is otherwise only read), or
 * a rule with one definition whose value is a literal. Everything else is
 * `any`, and a call with an argument of type `any` (or a composite) is left
 * to evaluation, as are expressions with `with`.
 */
import { type Body, type Expr, refName, type RefTerm, type Rule, type Term } from '../ast.js';
import { PolicyError } from '../errors.js';
import type { RuleNode } from './rule-tree.js';

type Scalar = 'number' | 'string' | 'boolean' | 'null';

/** A known type: a scalar, or an object literal whose keys are all strings (its values kept for nested refs). */
type Known = { kind: 'scalar'; type: Scalar } | { kind: 'object'; entries: Map<string, Term> };

interface Decl {
  /** Per input argument, the scalar types it accepts (a composite-only argument accepts none). */
  args: readonly (readonly Scalar[])[];
  /** OPA's declaration as its error prints it. */
  want: string;
}

const N: readonly Scalar[] = ['number'];
const S: readonly Scalar[] = ['string'];
const NONE: readonly Scalar[] = [];

function decls(names: string[], args: readonly (readonly Scalar[])[], want: string): Array<[string, Decl]> {
  return names.map((n) => [n, { args, want }]);
}

/** OPA v1.20.2's declarations of the builtins covered (their `want` text read from OPA's own errors). */
const DECLS = new Map<string, Decl>([
  ...decls(['plus', 'mul', 'div', 'rem'], [N, N], '(x: number, y: number, z: number)'),
  ...decls(['minus'], [N, N], '(x: any<number, set[any]>, y: any<number, set[any]>, z: any<number, set[any]>)'),
  ...decls(['upper', 'lower', 'strings.reverse', 'base64.encode', 'base64.decode', 'urlquery.encode', 'crypto.sha256'], [S], '(x: string, y: string)'),
  ...decls(['trim_space'], [S], '(value: string, output: string)'),
  ...decls(['abs', 'round', 'ceil', 'floor'], [N], '(x: number, y: number)'),
  ...decls(['startswith', 'endswith'], [S, S], '(search: string, base: string, result: boolean)'),
  ...decls(['contains'], [S, S], '(haystack: string, needle: string, result: boolean)'),
  ...decls(['indexof'], [S, S], '(haystack: string, needle: string, output: number)'),
  ...decls(['split'], [S, S], '(x: string, delimiter: string, ys: array[string])'),
  ...decls(['replace'], [S, S, S], '(x: string, old: string, new: string, y: string)'),
  ...decls(['trim', 'trim_left', 'trim_right'], [S, S], '(value: string, cutset: string, output: string)'),
  ...decls(['trim_prefix'], [S, S], '(value: string, prefix: string, output: string)'),
  ...decls(['trim_suffix'], [S, S], '(value: string, suffix: string, output: string)'),
  ...decls(['count'], [S], '(collection: any<string, array[any], object[any: any], set[any]>, n: number)'),
  ...decls(['sum', 'product'], [NONE], '(collection: any<array[number], set[number]>, n: number)'),
  ...decls(['max', 'min'], [NONE], '(collection: any<array[any], set[any]>, n: any)'),
  ...decls(['sort'], [NONE], '(collection: any<array[any], set[any]>, n: array[any])'),
  ...decls(['concat'], [S, NONE], '(delimiter: string, collection: any<array[string], set[string]>, output: string)'),
  ...decls(['format_int'], [N, N], '(number: number, base: number, output: string)'),
  ...decls(['sprintf'], [S, NONE], '(format: string, values: array[any], output: string)'),
  ...decls(['substring'], [S, N, N], '(value: string, offset: number, length: number, output: string)'),
  ...decls(['json.unmarshal'], [S], '(x: string, y: any)'),
  ...decls(['numbers.range'], [N, N], '(a: number, b: number, range: array[number])'),
  ...decls(['regex.match'], [S, S], '(pattern: string, value: string, result: boolean)'),
  ...decls(['time.parse_rfc3339_ns'], [S], '(value: string, ns: number)'),
  ...decls(['units.parse_bytes'], [S], '(x: string, y: number)'),
  ...decls(['semver.compare'], [S, S], '(a: string, b: string, result: number)'),
]);

/**
 * Whether a builtin's result type is `any` in OPA's declaration (`json.unmarshal`, `max`), or not (`upper`:
 * string); undefined for a builtin not covered.
 */
export function builtinResultIsAny(name: string): boolean | undefined {
  const want = DECLS.get(name)?.want;
  return want === undefined ? undefined : want.endsWith(': any)');
}

function literal(t: Term): Known | undefined {
  switch (t.type) {
    case 'number':
      return { kind: 'scalar', type: 'number' };
    case 'string':
      return { kind: 'scalar', type: 'string' };
    case 'boolean':
      return { kind: 'scalar', type: 'boolean' };
    case 'null':
      return { kind: 'scalar', type: 'null' };
    case 'object': {
      const entries = new Map<string, Term>();
      for (const [k, v] of t.entries) {
        if (k.type !== 'string') return undefined;
        entries.set(k.value, v);
      }
      return { kind: 'object', entries };
    }
    default:
      return undefined;
  }
}

/** Every expression of a body, those in comprehensions included. */
function allExprs(body: Body, out: Expr[] = []): Expr[] {
  for (const e of body) {
    out.push(e);
    forEachTermOf(e, (t) => visitClosures(t, out));
    if (e.kind === 'every' || e.kind === 'notbody') allExprs(e.body, out);
  }
  return out;
}

function visitClosures(t: Term, out: Expr[]): void {
  switch (t.type) {
    case 'arraycomp':
    case 'setcomp':
      visitClosures(t.term, out);
      allExprs(t.body, out);
      return;
    case 'objectcomp':
      visitClosures(t.key, out);
      visitClosures(t.value, out);
      allExprs(t.body, out);
      return;
    default:
      forEachChild(t, (c) => visitClosures(c, out));
  }
}

function forEachChild(t: Term, f: (t: Term) => void): void {
  switch (t.type) {
    case 'ref':
      t.terms.forEach(f);
      return;
    case 'call':
      t.args.forEach(f);
      return;
    case 'array':
    case 'set':
      t.items.forEach(f);
      return;
    case 'object':
      t.entries.forEach(([k, v]) => {
        f(k);
        f(v);
      });
      return;
    default:
      return;
  }
}

function forEachTermOf(e: Expr, f: (t: Term) => void): void {
  switch (e.kind) {
    case 'term':
      f(e.term);
      break;
    case 'call':
      f(e.op);
      e.args.forEach(f);
      break;
    case 'some':
      e.vars.forEach(f);
      [e.inKey, e.inValue, e.inDomain].forEach((t) => t !== undefined && f(t));
      break;
    case 'every':
      [e.key, e.value, e.domain].forEach((t) => t !== undefined && f(t));
      break;
    case 'notbody':
      break;
  }
  for (const w of e.with) {
    f(w.target);
    f(w.value);
  }
}

/** Every var occurrence in a term, with whether it is a ref's head. */
function forEachVar(t: Term, f: (name: string, refHead: boolean) => void): void {
  if (t.type === 'var') return f(t.name, false);
  if (t.type === 'ref') {
    const [head, ...rest] = t.terms;
    if (head?.type === 'var') f(head.name, true);
    else if (head !== undefined) forEachVar(head, f);
    rest.forEach((x) => forEachVar(x, f));
    return;
  }
  if (t.type === 'arraycomp' || t.type === 'setcomp' || t.type === 'objectcomp') {
    // Vars inside a closure: counted through the closure's own expressions (allExprs), and its head terms here.
    if (t.type === 'objectcomp') {
      forEachVar(t.key, f);
      forEachVar(t.value, f);
    } else forEachVar(t.term, f);
    return;
  }
  forEachChild(t, (c) => forEachVar(c, f));
}

/** OPA's text of a ref (`data.p.labels.zz`, `l["z-z"]`), and where each operand's text starts; undefined when not certain. */
function refText(ref: RefTerm, headName: string): { text: string; starts: number[] } | undefined {
  let text = headName;
  const starts = [0];
  for (const t of ref.terms.slice(1)) {
    starts.push(text.length + 1);
    if (t.type === 'string' && isIdent(t.value)) text += '.' + t.value;
    else if (t.type === 'string' && /^[\x20-\x7e]*$/.test(t.value) && !/["\\]/.test(t.value)) text += `["${t.value}"]`;
    else if (t.type === 'var' && !t.name.includes('$')) text += `[${t.name}]`;
    else return undefined;
  }
  return { text, starts };
}

const KEYWORDS = new Set(['as', 'default', 'else', 'import', 'not', 'package', 'some', 'with', 'if', 'contains', 'in', 'every', 'true', 'false', 'null']);

function isIdent(s: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && !KEYWORDS.has(s);
}

/** A local's name as written (`l$3` → `l`). */
function written(name: string): string {
  const i = name.indexOf('$');
  return i > 0 ? name.slice(0, i) : name;
}

/** The known type of a rule reached by an exact `data` ref: one definition, no `else` or default, a literal value. */
function ruleType(root: RuleNode, ref: RefTerm, upTo: number): Known | undefined {
  let node: RuleNode | undefined = root;
  for (let i = 1; i < upTo; i++) {
    const t = ref.terms[i] as Term;
    if (t.type !== 'string' || node === undefined) return undefined;
    node = node.child(t.value);
  }
  if (node === undefined || node.rules.length !== 1 || node.defaults.length > 0 || node.children.size > 0) return undefined;
  const p = node.rules[0];
  if (p === undefined || p.kind !== 'complete' || p.suffix.length > 0 || p.rule.else !== undefined || p.rule.head.value === undefined) return undefined;
  return literal(p.rule.head.value);
}

function dataRuleAt(root: RuleNode, ref: RefTerm): { type: Known; at: number } | undefined {
  const head = ref.terms[0];
  if (head?.type !== 'var' || head.name !== 'data') return undefined;
  let node: RuleNode | undefined = root;
  for (let i = 1; i < ref.terms.length; i++) {
    const t = ref.terms[i] as Term;
    if (t.type !== 'string') return undefined;
    node = node.child(t.value);
    if (node === undefined) return undefined;
    if (node.hasRules) {
      const type = ruleType(root, ref, i + 1);
      return type === undefined ? undefined : { type, at: i + 1 };
    }
  }
  return undefined;
}

/** The type errors OPA's checker certainly reports for one rule (each `else` link on its own). */
function checkBody(rule: Rule, root: RuleNode, builtinArity: (name: string) => number | undefined, errors: PolicyError[]): void {
  const exprs = allExprs(rule.body);
  // A var is typed by `x = <literal>` only when that is its one binding and every other use only reads it.
  const binders = new Map<string, Known | null>();
  const other = new Set<string>();
  for (const a of rule.head.args ?? []) forEachVar(a, (v) => other.add(v));
  for (const e of exprs) {
    if (e.kind === 'call' && refName(e.op) === 'eq' && !e.negated && e.with.length === 0 && e.args.length === 2) {
      const [a, b] = e.args as [Term, Term];
      const bind = a.type === 'var' ? ([a, b] as const) : b.type === 'var' ? ([b, a] as const) : undefined;
      const type = bind === undefined ? undefined : literal(bind[1]);
      if (bind !== undefined && type !== undefined) {
        binders.set(bind[0].name, binders.has(bind[0].name) ? null : type);
        forEachVar(bind[1], (v) => other.add(v));
        continue;
      }
    }
    const arity = e.kind === 'call' ? builtinArity(refName(e.op) ?? '') : undefined;
    if (e.kind === 'call' && arity !== undefined) {
      e.args.forEach((t, i) => {
        if (i < arity && t.type === 'var') return;
        forEachVar(t, (v, refHead) => (refHead ? undefined : other.add(v)));
      });
    } else forEachTermOf(e, (t) => forEachVar(t, (v, refHead) => (refHead ? undefined : other.add(v))));
  }
  const typeOf = (t: Term): Known | undefined => {
    if (t.type === 'var') {
      const b = binders.get(t.name);
      return b === null || b === undefined || other.has(t.name) ? undefined : b;
    }
    if (t.type === 'ref') {
      const r = dataRuleAt(root, t);
      return r !== undefined && r.at === t.terms.length ? r.type : undefined;
    }
    return literal(t);
  };

  for (const e of exprs) {
    if (e.with.length > 0) continue;
    if (e.kind === 'call') checkCall(e, typeOf, binders, errors);
    forEachTermOf(e, (t) => checkRefs(t, root, typeOf, errors));
  }
}

function checkCall(
  e: Extract<Expr, { kind: 'call' }>,
  typeOf: (t: Term) => Known | undefined,
  binders: Map<string, Known | null>,
  errors: PolicyError[],
): void {
  const name = refName(e.op);
  const decl = name === undefined ? undefined : DECLS.get(name);
  if (decl === undefined || e.op.terms[0]?.type !== 'var' || e.op.terms[0].name === 'data') return;
  const n = decl.args.length;
  if (e.args.length !== n && e.args.length !== n + 1) return;
  const have: string[] = [];
  let wrong = false;
  for (let i = 0; i < n; i++) {
    const k = typeOf(e.args[i] as Term);
    if (k === undefined || k.kind !== 'scalar') return;
    have.push(k.type);
    if (!(decl.args[i] as readonly Scalar[]).includes(k.type)) wrong = true;
  }
  if (!wrong) return;
  if (e.args.length === n + 1) {
    // The output: a var no other expression types, printed `???` as OPA prints an unknown type.
    const out = e.args[n] as Term;
    if (out.type !== 'var' || binders.has(out.name)) return;
    have.push('???');
  }
  errors.push(
    new PolicyError({ code: 'rego_type_error', detail: `${name}: invalid argument(s)\n\thave: (${have.join(', ')})\n\twant: ${decl.want}`, location: e.loc }),
  );
}

/** A ref that goes into an object of known keys with a key it never has: OPA's `undefined ref`. */
function checkRefs(t: Term, root: RuleNode, typeOf: (t: Term) => Known | undefined, errors: PolicyError[]): void {
  forEachChild(t, (c) => checkRefs(c, root, typeOf, errors));
  if (t.type !== 'ref') return;
  const head = t.terms[0];
  let known: Known | undefined;
  let at: number;
  let headName: string;
  if (head?.type === 'var' && head.name === 'data') {
    const r = dataRuleAt(root, t);
    if (r === undefined) return;
    known = r.type;
    at = r.at;
    headName = 'data';
  } else if (head?.type === 'var') {
    known = typeOf(head);
    at = 1;
    headName = written(head.name);
  } else return;
  for (; at < t.terms.length && known?.kind === 'object'; at++) {
    const key = t.terms[at] as Term;
    if (key.type !== 'string') return;
    const value = known.entries.get(key.value);
    if (value === undefined) {
      const printed = refText(t, headName);
      if (printed === undefined) return;
      const pad = ' '.repeat(printed.starts[at] as number);
      const want = [...known.entries.keys()].sort().map((k) => JSON.stringify(k));
      const detail = `undefined ref: ${printed.text}\n\t${printed.text}\n\t${pad}^\n\t${pad}have: ${JSON.stringify(key.value)}\n\t${pad}want (one of): [${want.join(' ')}]`;
      errors.push(new PolicyError({ code: 'rego_type_error', detail, location: t.loc }));
      return;
    }
    known = literal(value);
  }
}

/** OPA's certain type errors in compiled rules (see the file's comment for what is covered). */
export function checkTypes(rules: readonly Rule[], root: RuleNode, builtinArity: (name: string) => number | undefined, errors: PolicyError[]): void {
  for (const r of rules) for (let b: Rule | undefined = r; b !== undefined; b = b.else) checkBody(b, root, builtinArity, errors);
}
