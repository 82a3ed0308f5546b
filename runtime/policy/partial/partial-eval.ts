/**
 * Partial evaluation, as OPA's `rego.Partial` does it for the fragment data
 * filters need: everything under the declared unknowns (`input.fruits`) is
 * left symbolic, everything else is evaluated with the real engine, and the
 * answer is the residual queries (a disjunction of conjunctions) whose truth
 * still depends on the unknowns.
 *
 * How: a body's expressions are split into known ones (run by the engine,
 * enumerating every solution) and residual ones (mentioning an unknown, or a
 * var bound from one). A var unified with an unknown ref is copy-propagated
 * (`x := input.fruits.a; x > 3` leaves `input.fruits.a > 3`); a boolean rule
 * that depends on unknowns is inlined (each of its bodies an alternative,
 * negation by De Morgan); `==` is saved as `=` as OPA saves it. A rule's
 * bodies become alternatives in source order (OPA's order among them comes
 * from its rule index and is not defined). What OPA saves into support modules (default rules,
 * multi-value rules, functions over unknowns, paths in `disableInlining`, rules
 * with `else` chains, saved as chains) is
 * saved the same way when support is asked for (the Rego AST answer), and is
 * otherwise reported as the error OPA's filter checks give for it.
 */
import { type Body, type Expr, type Loc, mkRef, mkVar, opRef, refName, type RefTerm, type Rule, type Term, termToString } from '../ast.js';
import { defaultRegistry } from '../builtins/index.js';
import type { BuiltinRegistry } from '../builtins/registry.js';
import { Compiler, type CompiledModules, type ModuleSource } from '../compiler/compile.js';
import type { RuleNode } from '../compiler/rule-tree.js';
import { exprVars, isConstantTerm, mapTerm, termVars } from '../compiler/walk.js';
import { CodeGen } from '../eval/codegen.js';
import { Env, Shared } from '../eval/env.js';
import { parseQuery, parseTermText } from '../parser.js';
import { fromJS } from '../value-json.js';
import { RegoDecimal, RegoObject, RegoSet, type Value } from '../value.js';
import { namespacedRef, type SupportRule, SupportModules } from './support-modules.js';

/** An error in OPA's AST-error shape: `pe_fragment_error`, `invalid_unknown`, ... */
export class PartialError extends Error {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly location: Loc | undefined,
    readonly details?: string,
  ) {
    // Go's ast.Error text: `file:row: code: message`, details on tab-indented lines.
    const at = location === undefined || location.row === 0 ? '' : location.file ? `${location.file}:${location.row}: ` : `${location.row}:${location.col}: `;
    super(`${at}${code}: ${detail}${details === undefined ? '' : `\n\t${details}`}`);
    this.name = 'PartialError';
  }
}

/** Residual references to rules OPA would have kept in support modules, with the reason a filter cannot use them. */
export const SUPPORT_NEEDED = new WeakMap<Expr, string>();

/** The residual: `undefined`-free alternatives; `[]` never true, `[[]]` always true. */
export type Queries = Body[];

/** How rules the residual needs are kept when they are not inlined. */
export interface SupportOptions {
  /** Collects the saved rules; without it, such a residual carries `SUPPORT_NEEDED` markers (for data filters). */
  support?: SupportModules;
  /** Data paths (`["p", "allow"]`) whose rules are saved rather than inlined, as OPA's `disableInlining`. */
  disableInlining?: readonly string[][];
}

/** A residual with the support modules it refers to. */
export interface PartialResult {
  queries: Queries;
  support: SupportModules;
}

/** A cap on alternatives, so a negated product cannot grow without bound. */
export const MAX_ALTERNATIVES = 10_000;

export interface PartialOptions {
  modules: ModuleSource[];
  data?: unknown;
  builtins?: BuiltinRegistry;
  /** Milliseconds one partial evaluation may spend evaluating known parts (default 5000); past it, `eval_cancel_error`. */
  budgetMs?: number;
}

const UNKNOWN_ROOTS = new Set(['input', 'data']);

/** `input.fruits` → `["input", "fruits"]`; refuses what is not a ref under input or data, as OPA does. */
export function parseUnknown(text: string): string[] {
  let t: Term;
  try {
    t = parseTermText(text, 'unknowns');
  } catch {
    throw new PartialError('invalid_unknown', `unknowns must be valid refs: ${text}`, undefined);
  }
  const terms = t.type === 'ref' ? t.terms : t.type === 'var' ? [t] : [];
  const head = terms[0];
  if (head?.type !== 'var' || !UNKNOWN_ROOTS.has(head.name) || terms.slice(1).some((x) => x.type !== 'string')) {
    throw new PartialError('invalid_unknown', `unknowns must be prefixed with \`input\` or \`data\`: ${text}`, undefined);
  }
  return [head.name, ...terms.slice(1).map((x) => (x as { value: string }).value)];
}

/** A term for a known value (the residual carries values as literals). */
export function valueTerm(v: Value, loc: Loc): Term {
  if (v === null) return { type: 'null', loc };
  if (typeof v === 'boolean') return { type: 'boolean', value: v, loc };
  if (typeof v === 'string') return { type: 'string', value: v, loc };
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof RegoDecimal) return { type: 'number', value: v, loc };
  if (Array.isArray(v)) return { type: 'array', items: v.map((x) => valueTerm(x, loc)), loc };
  if (v instanceof RegoSet) return { type: 'set', items: v.values().map((x) => valueTerm(x, loc)), loc };
  if (v instanceof RegoObject) return { type: 'object', entries: v.entries().map(([k, x]): [Term, Term] => [valueTerm(k, loc), valueTerm(x, loc)]), loc };
  return { type: 'null', loc };
}

type Kind =
  | { kind: 'known' }
  | { kind: 'residual' }
  | { kind: 'copy'; name: string; ref: Term }
  | { kind: 'inline'; node: RuleNode; ref: RefTerm; negated: boolean; at: Loc };

export class PartialEvaluator {
  private readonly compiler: Compiler;
  private readonly compiled: CompiledModules;
  private readonly codegen: CodeGen;
  private readonly data: Value | undefined;
  private readonly budgetMs: number;
  /** When the running partial evaluation must stop (one budget for all its known parts). */
  private deadline = Infinity;

  constructor(options: PartialOptions) {
    this.budgetMs = options.budgetMs ?? 5000;
    const builtins = options.builtins ?? defaultRegistry;
    this.compiler = new Compiler(builtins);
    this.compiled = this.compiler.compileModules(options.modules);
    this.codegen = new CodeGen(this.compiled.root, builtins, this.compiled.gen);
    this.codegen.compileNodes();
    this.data = options.data === undefined ? undefined : fromJS(options.data);
  }

  /** @internal Whether base data (not rules) is stored at or under a data path. */
  hasBaseData(path: readonly Value[]): boolean {
    let v: Value | undefined = this.data;
    for (const k of path) {
      if (!(v instanceof RegoObject)) return false;
      v = v.get(k);
    }
    return v !== undefined;
  }

  /** The rule node at a data path (`["filters", "include"]`), if rules are defined there. */
  ruleNode(path: readonly string[]): RuleNode | undefined {
    let node: RuleNode | undefined = this.compiled.root;
    for (const seg of path) node = node?.child(seg);
    return node;
  }

  /** Partially evaluates a query (Rego text, e.g. `data.filters.include`). */
  partial(query: string | Body, input: Value | undefined, unknowns: readonly string[][], options: SupportOptions = {}): Queries {
    const body = this.compiler.compileQuery(typeof query === 'string' ? parseQuery(query, '') : query);
    this.deadline = performance.now() + this.budgetMs;
    return new Run(this, input, unknowns, options).body(body);
  }

  /** Partially evaluates a query, saving the rules it cannot inline as support modules (OPA's `/v1/compile` answer). */
  partialWithSupport(query: string | Body, input: Value | undefined, unknowns: readonly string[][], disableInlining: readonly string[][] = []): PartialResult {
    const support = new SupportModules();
    return { queries: this.partial(query, input, unknowns, { support, disableInlining }), support };
  }

  /** @internal Runs a compiled body with the engine; one map of the named vars per solution. */
  solve(body: Body, input: Value | undefined, wanted: readonly string[]): Array<Map<string, Value>> {
    const loc: Loc = { file: '', row: 0, col: 0 };
    const captures = wanted.map((name, i): Expr => ({
      kind: 'call',
      op: opRef('eq', loc),
      args: [mkVar(`__pe${i}__`, loc), mkVar(name, loc)],
      negated: false,
      with: [],
      loc,
    }));
    const full = [...body, ...captures];
    if (full.length === 0) return [new Map()];
    const q = this.codegen.compileQuery(full);
    const env = new Env(input, this.data, new Shared({ budgetMs: Math.max(1, this.deadline - performance.now()) }), null, null);
    const slots = new Map(q.outputs.map((o) => [o.name, o.slot]));
    const out: Array<Map<string, Value>> = [];
    const f = new Array<Value | undefined>(q.nslots);
    q.body(env, f, () => {
      const m = new Map<string, Value>();
      wanted.forEach((name, i) => {
        const v = f[slots.get(`__pe${i}__`) as number];
        if (v !== undefined) m.set(name, v);
      });
      out.push(m);
      if (out.length > MAX_ALTERNATIVES) throw new PartialError('pe_fragment_error', `more than ${MAX_ALTERNATIVES} solutions`, body[0]?.loc);
      return false;
    });
    return out;
  }

  /** @internal */
  get root(): RuleNode {
    return this.compiled.root;
  }
}

/** The rule node a data ref names exactly (all operands constant strings), or the nodes below a prefix. */
function refNodes(root: RuleNode, ref: RefTerm): { exact?: RuleNode; touched: RuleNode[] } {
  let node: RuleNode | undefined = root;
  for (let i = 1; i < ref.terms.length; i++) {
    const t = ref.terms[i] as Term;
    if (node.hasRules) return { touched: [node] };
    if (t.type !== 'string') return { touched: descendants(node) };
    node = node.child(t.value);
    if (node === undefined) return { touched: [] };
  }
  return node.hasRules ? { exact: node, touched: [node] } : { touched: descendants(node) };
}

function descendants(node: RuleNode): RuleNode[] {
  const out: RuleNode[] = [];
  const walk = (n: RuleNode): void => {
    if (n.hasRules) out.push(n);
    for (const c of n.children.values()) walk(c);
  };
  walk(node);
  return out;
}

function forEachRef(t: Term, visit: (r: RefTerm) => void): void {
  mapTerm(t, (x) => {
    if (x.type === 'ref') visit(x);
    if (x.type === 'arraycomp' || x.type === 'setcomp') {
      forEachRef(x.term, visit);
      x.body.forEach((e) => exprTerms(e).forEach((y) => forEachRef(y, visit)));
    }
    if (x.type === 'objectcomp') {
      forEachRef(x.key, visit);
      forEachRef(x.value, visit);
      x.body.forEach((e) => exprTerms(e).forEach((y) => forEachRef(y, visit)));
    }
    return undefined;
  });
}

function exprTerms(e: Expr): Term[] {
  switch (e.kind) {
    case 'term':
      return [e.term];
    case 'call':
      return [e.op, ...e.args];
    case 'some':
      return [e.inKey, e.inValue, e.inDomain].filter((t): t is Term => t !== undefined);
    case 'every':
      return [e.key, e.value, e.domain, ...e.body.flatMap(exprTerms)].filter((t): t is Term => t !== undefined);
    case 'notbody':
      return e.body.flatMap(exprTerms);
  }
}

/** One partial evaluation: the input, unknowns and memoised rule answers. */
class Run {
  private readonly dependent = new Map<RuleNode, boolean>();
  private readonly inlined = new Map<RuleNode, Queries>();
  private fresh = 0;

  private readonly support: SupportModules | undefined;
  private readonly disabled: readonly string[][];

  constructor(
    private readonly pe: PartialEvaluator,
    private readonly input: Value | undefined,
    private readonly unknowns: readonly string[][],
    options: SupportOptions,
  ) {
    this.support = options.support;
    this.disabled = options.disableInlining ?? [];
  }

  /** Is inlining disabled for this data path (a `disableInlining` path is a prefix of it)? */
  private inliningDisabled(path: readonly Value[]): boolean {
    return this.disabled.some((d) => d.length <= path.length && d.every((seg, i) => path[i] === seg));
  }

  /** The constant data path a `data` ref starts with (`data.p.r[x]` → `["p", "r"]`). */
  private static constantPath(ref: RefTerm): string[] {
    const out: string[] = [];
    for (const t of ref.terms.slice(1)) {
      if (t.type !== 'string') break;
      out.push(t.value);
    }
    return out;
  }

  /** Does this ref reach into (or above) an unknown? */
  private touchesUnknown(ref: RefTerm): boolean {
    const head = ref.terms[0];
    if (head?.type !== 'var') return false;
    return this.unknowns.some((u) => {
      if (u[0] !== head.name) return false;
      for (let i = 1; i < u.length && i < ref.terms.length; i++) {
        const t = ref.terms[i] as Term;
        if (t.type === 'string' && t.value !== u[i]) return false;
      }
      return true;
    });
  }

  /** Does a rule node's value depend on an unknown (directly or through other rules)? */
  private isDependent(node: RuleNode, seen = new Set<RuleNode>()): boolean {
    const known = this.dependent.get(node);
    if (known !== undefined) return known;
    if (seen.has(node)) return false;
    seen.add(node);
    const rules = [...node.rules, ...node.defaults].map((p) => p.rule);
    let dep = false;
    for (const r of rules) {
      for (let b: typeof r | undefined = r; b !== undefined && !dep; b = b.else) {
        const terms = [
          ...b.body.flatMap(exprTerms),
          ...[b.head.value, b.head.key, ...(b.head.args ?? []), ...b.head.ref].filter((t): t is Term => t !== undefined),
        ];
        for (const t of terms) forEachRef(t, (ref) => (dep ||= this.refDependent(ref, seen)));
      }
    }
    this.dependent.set(node, dep);
    return dep;
  }

  private refDependent(ref: RefTerm, seen = new Set<RuleNode>()): boolean {
    if (this.touchesUnknown(ref)) return true;
    const head = ref.terms[0];
    // OPA: a ref under a disabled path always needs saving, whatever it depends on.
    if (head?.type === 'var' && head.name === 'data' && this.disabled.length > 0 && this.inliningDisabled(Run.constantPath(ref))) return true;
    if (head?.type === 'var' && head.name === 'data') return refNodes(this.pe.root, ref).touched.some((n) => this.isDependent(n, seen));
    return false;
  }

  private termDependent(t: Term): boolean {
    let dep = false;
    forEachRef(t, (ref) => (dep ||= this.refDependent(ref)));
    return dep;
  }

  /**
   * The compiler leaves the ref operands of `=` and `==` in place (so `not input.a == 1` holds without `input.a`, as
   * in OPA), but a residual must carry a known ref's value: in a comparison that depends on an unknown, each operand
   * that is a known `input`/`data` ref is first bound to a fresh var by a known expression, as the compiler once did
   * for every call. In a negated comparison such a ref must be ground and is read now: its value replaces it, and
   * when it is undefined the comparison is undefined, so its negation holds and the expression drops out.
   */
  private hoistKnownOperands(body: Body): Body {
    const out: Body = [];
    for (const e of body) {
      const equality = e.kind === 'call' && (refName(e.op) === 'eq' || (refName(e.op) === 'equal' && e.args.length === 2));
      if (e.kind !== 'call' || !equality || e.with.length > 0 || !e.args.some((t) => this.termDependent(t))) {
        out.push(e);
        continue;
      }
      let holds = false;
      const args = e.args.map((a) => {
        const head = a.type === 'ref' ? a.terms[0] : undefined;
        if (a.type !== 'ref' || head?.type !== 'var' || (head.name !== 'input' && head.name !== 'data') || this.termDependent(a)) return a;
        const bound = mkVar(`__pe_known${this.fresh++}__`, a.loc);
        const binding: Expr = { kind: 'call', op: opRef('eq', a.loc), args: [bound, a], negated: false, with: [], loc: e.loc };
        if (!e.negated) {
          out.push(binding);
          return bound;
        }
        if (!a.terms.slice(1).every((t) => t.type === 'string' || t.type === 'number' || t.type === 'boolean' || t.type === 'null')) return a;
        const value = this.pe.solve([binding], this.input, [bound.name])[0]?.get(bound.name);
        if (value === undefined) holds = true;
        return value === undefined ? a : valueTerm(value, a.loc);
      });
      if (!holds) out.push({ ...e, args });
    }
    return out;
  }

  /** The residual alternatives of a compiled body. */
  body(compiled: Body): Queries {
    return this.bodyWithOutputs(compiled, [], new Set()).map((a) => a.query);
  }

  /**
   * The residual alternatives of a compiled body, each with `outputs` (a rule head's terms) plugged with the values and
   * copies of that alternative. Vars in `unknownVars` (a function's arguments) are neither known nor bound here.
   */
  private bodyWithOutputs(compiled: Body, outputs: readonly Term[], seedUnknown: ReadonlySet<string>): Array<{ query: Body; outputs: Term[] }> {
    // An output that reads known refs (`input.user`) is bound by a known expression, so its value is plugged.
    const outs = outputs.map((t, i): { term: Term; binding?: Expr } => {
      const vs = new Set<string>();
      termVars(t, vs);
      if (t.type === 'var' || isConstantTerm(t) || this.termDependent(t) || [...vs].some((v) => seedUnknown.has(v))) return { term: t };
      const bound = mkVar(`__pe_out${i}__`, t.loc);
      return { term: bound, binding: { kind: 'call', op: opRef('eq', t.loc), args: [bound, t], negated: false, with: [], loc: t.loc } };
    });
    const body = this.hoistKnownOperands([...compiled, ...outs.flatMap((o) => (o.binding === undefined ? [] : [o.binding]))]);
    const known = new Set<string>();
    const unknownVars = new Set<string>(seedUnknown);
    const copies = new Map<string, Term>();
    const kinds: Kind[] = [];
    const mentionsUnknownVar = (e: Expr): boolean => {
      const vs = new Set<string>();
      exprVars(e, vs);
      return [...vs].some((v) => unknownVars.has(v) || copies.has(v));
    };
    for (const e of body) {
      const inline = this.inlineTarget(e);
      if (inline !== undefined) {
        kinds.push(inline);
        continue;
      }
      const dependent = exprTerms(e).some((t) => this.termDependent(t)) || mentionsUnknownVar(e);
      if (!dependent) {
        exprVars(e, known);
        kinds.push({ kind: 'known' });
        continue;
      }
      const copy = this.copyOf(e, known, copies, unknownVars);
      if (copy !== undefined) {
        copies.set(copy.name, copy.ref);
        kinds.push(copy);
        continue;
      }
      const vs = new Set<string>();
      exprVars(e, vs);
      for (const v of vs) if (!known.has(v) && !copies.has(v) && !UNKNOWN_ROOTS.has(v)) unknownVars.add(v);
      kinds.push({ kind: 'residual' });
    }

    const knownBody = body.filter((_, i) => kinds[i]?.kind === 'known');
    const plugged = body.map((e, i) => (kinds[i]?.kind === 'residual' ? substituteExpr(e, copies) : e));
    const wanted = new Set<string>();
    plugged.forEach((e, i) => {
      if (kinds[i]?.kind === 'residual') exprVars(e, wanted);
    });
    const outTerms = outs.map((o) => substitute(o.term, copies));
    for (const t of outTerms) termVars(t, wanted);
    const captured = [...wanted].filter((v) => known.has(v) && !UNKNOWN_ROOTS.has(v));
    const solutions = this.pe.solve(knownBody, this.input, captured);

    const out: Array<{ query: Body; outputs: Term[] }> = [];
    for (const values of solutions) {
      let alternatives: Queries = [[]];
      plugged.forEach((e, i) => {
        const k = kinds[i] as Kind;
        if (k.kind === 'residual') {
          const r = this.toSupport(plugValues(normalise(e), values));
          alternatives = alternatives.map((a) => [...a, r]);
        } else if (k.kind === 'inline') {
          let inner = this.inline(k.node, k.ref, k.at);
          // As OPA: a negation whose complement would read differently once parsed back (`not lt(input.c, 0)` moves
          // the ref out of the `not`) or grow too large is not inlined; the rule is saved and negated whole.
          if (k.negated && this.support !== undefined && !canInlineNegation(inner)) inner = [[this.savedRule(k.ref, k.at)]];
          alternatives = product(alternatives, k.negated ? negate(inner, k.ref.loc) : inner, e.loc);
        }
      });
      const plugOut = outTerms.map((t) => this.toSupportTerm(plugTerm(t, values)));
      out.push(...alternatives.map((query) => ({ query, outputs: plugOut })));
      if (out.length > MAX_ALTERNATIVES)
        throw new PartialError('pe_fragment_error', `the residual has more than ${MAX_ALTERNATIVES} alternatives`, body[0]?.loc);
    }
    return out;
  }

  /** In a residual that keeps support: refs to rules (and calls of functions) point into `data.partial`, and those rules are saved. */
  private toSupport(e: Expr): Expr {
    if (this.support === undefined) return e;
    switch (e.kind) {
      case 'term':
        return { ...e, term: this.toSupportTerm(e.term) };
      case 'call': {
        return { ...e, op: this.supportRef(e.op) as RefTerm, args: e.args.map((t) => this.toSupportTerm(t)) };
      }
      default:
        return e;
    }
  }

  private toSupportTerm(t: Term): Term {
    if (this.support === undefined) return t;
    return mapTerm(t, (x) => (x.type === 'ref' ? this.supportRef(x) : undefined));
  }

  /** A `data` ref reaching rules: its namespaced form, the rules saved. Other refs as they are. */
  private supportRef(ref: RefTerm): RefTerm {
    const head = ref.terms[0];
    if (this.support === undefined || head?.type !== 'var' || head.name !== 'data') return ref;
    let node: RuleNode | undefined = this.pe.root;
    for (let i = 1; i < ref.terms.length && !node.hasRules; i++) {
      const t = ref.terms[i] as Term;
      if (t.type !== 'string') break;
      node = node.child(t.value);
      if (node === undefined) return ref;
    }
    if (!node.hasRules) {
      const rules = descendants(node);
      if (rules.length === 0) return ref;
      // A document holding rules is read from the support modules with every rule under it saved there. (OPA saves
      // the ref as it is, which only the original policy answers.) Base data beside those rules would be missing.
      if (this.pe.hasBaseData(node.path))
        throw new PartialError('not_implemented', `the residual refers to ${refText(ref)}, a document holding both rules and base data`, ref.loc);
      for (const d of rules) this.saveSupport(d);
      return namespacedRef(ref);
    }
    this.saveSupport(node);
    return namespacedRef(ref);
  }

  /**
   * Saves the rules at `node`: each body partially evaluated, one support rule per alternative, as OPA does.
   * A rule with an `else` chain is saved as a chain: each link keeps its place, a link whose known part fails is
   * dropped, a link that always holds ends the chain (the rest is unreachable).
   */
  private saveSupport(node: RuleNode): void {
    const support = this.support as SupportModules;
    if (support.has(node)) return;
    support.claim(node);
    for (const p of [...node.rules, ...node.defaults]) {
      const r = p.rule;
      const args = r.head.args ?? [];
      const seed = new Set<string>();
      args.forEach((a) => termVars(a, seed));
      const link = (l: Rule): SupportRule[] => {
        const value = l.head.value ?? (l.head.key === undefined ? { type: 'boolean' as const, value: true, loc: l.loc } : undefined);
        const heads = [...p.suffix, ...args, ...(l.head.key !== undefined ? [l.head.key] : []), ...(value !== undefined ? [value] : [])];
        return this.bodyWithOutputs(l.body, heads, seed).map((alt) => {
          const o = alt.outputs;
          let i = 0;
          const take = (n: number) => o.slice(i, (i += n));
          const suffix = take(p.suffix.length);
          const plugArgs = take(args.length);
          const key = l.head.key !== undefined ? take(1)[0] : undefined;
          const val = value !== undefined ? take(1)[0] : undefined;
          return {
            default: l.default,
            suffix,
            ...(r.head.args !== undefined ? { args: plugArgs } : {}),
            ...(key !== undefined ? { key } : {}),
            ...(val !== undefined ? { value: val } : {}),
            body: alt.query,
            loc: l.loc,
          };
        });
      };
      if (r.else === undefined) {
        for (const saved of link(r)) support.add(node, saved);
        continue;
      }
      const chain: SupportRule[] = [];
      let linkNo = 0;
      for (let l: Rule | undefined = r; l !== undefined; l = l.else, linkNo++) {
        const alts = link(l);
        if (alts.length === 0) continue;
        // `v if A1 or A2 else …` is `v if A1 else v if A2 else …`. Alternatives giving different values are saved as
        // a helper rule of their own (`__r_1__ = v1 if A1`, `__r_1__ = v2 if A2`), which raises the conflict error the
        // rule would when two hold, and the chain's link reads it (`r = x if { x = data.partial.p.__r_1__ } else …`).
        const outputs = (a: SupportRule) => [...(a.args ?? []), ...(a.value !== undefined ? [a.value] : [])].map(termToString).join('\u0000');
        if (alts.some((a) => outputs(a) !== outputs(alts[0] as SupportRule))) {
          chain.push(this.helperLink(node, { rule: l, args: r.head.args, suffix: p.suffix, alts, linkNo }));
          continue;
        }
        const always = alts.findIndex((a) => a.body.length === 0);
        chain.push(...(always < 0 ? alts : alts.slice(0, always + 1)));
        if (always >= 0) break;
      }
      const first = chain.reduceRight<SupportRule | undefined>((next, l) => (next === undefined ? l : { ...l, else: next }), undefined);
      if (first !== undefined) support.add(node, first);
    }
  }

  /**
   * An `else` link whose alternatives give different values, saved as the helper rule `__<name>_<link>__` beside the
   * rule (one support rule per alternative, no `else`), and the chain's link that takes its value from the helper.
   */
  private helperLink(node: RuleNode, o: { rule: Rule; args: Term[] | undefined; suffix: Term[]; alts: SupportRule[]; linkNo: number }): SupportRule {
    const support = this.support as SupportModules;
    const name = `__${String(node.path[node.path.length - 1])}_${o.linkNo}__`;
    for (const a of o.alts) support.addBeside(node, name, { ...a, default: false });
    const loc = o.rule.loc;
    const helper = namespacedRef(
      mkRef(
        [mkVar('data', loc), ...node.path.slice(0, -1).map((k): Term => ({ type: 'string', value: String(k), loc })), { type: 'string', value: name, loc }],
        loc,
      ),
    );
    const value = mkVar(`link$${o.linkNo}`, loc);
    const read: Term = o.args === undefined ? helper : { type: 'call', op: helper, args: o.args, loc };
    return {
      default: false,
      suffix: o.suffix,
      ...(o.args !== undefined ? { args: o.args } : {}),
      value,
      body: [{ kind: 'call', op: opRef('eq', loc), args: [value, read], negated: false, with: [], loc }],
      loc,
    };
  }

  /** `data.p.r` (or `not data.p.r`) naming a rule that depends on unknowns: inlined. */
  private inlineTarget(e: Expr): Kind | undefined {
    if (e.kind !== 'term' || e.with.length > 0 || e.term.type !== 'ref') return undefined;
    const ref = e.term;
    const head = ref.terms[0];
    if (head?.type !== 'var' || head.name !== 'data') return undefined;
    const { exact } = refNodes(this.pe.root, ref);
    if (exact === undefined || !this.isDependent(exact)) return undefined;
    // OPA points at the rule's name; a ref our resolver expanded (`h` → `data.p.h`) keeps the package's place there.
    const last = (ref.terms[ref.terms.length - 1] as Term).loc;
    return { kind: 'inline', node: exact, ref, negated: e.negated, at: last.row === e.loc.row && last.file === e.loc.file ? last : e.loc };
  }

  /** `x = <unknown ref>` with `x` not yet bound: propagate the ref instead of saving the unification. */
  private copyOf(e: Expr, known: Set<string>, copies: Map<string, Term>, unknownVars: Set<string>): { kind: 'copy'; name: string; ref: Term } | undefined {
    if (e.kind !== 'call' || e.negated || e.with.length > 0 || refName(e.op) !== 'eq' || e.args.length !== 2) return undefined;
    const [a, b] = e.args as [Term, Term];
    for (const [v, t] of [
      [a, b],
      [b, a],
    ] as const) {
      // A function's argument (or a var a residual binds) is not free to take the ref's place.
      if (v.type !== 'var' || known.has(v.name) || copies.has(v.name) || unknownVars.has(v.name)) continue;
      const s = substitute(t, copies);
      if (s.type === 'ref' && this.touchesUnknown(s)) return { kind: 'copy', name: v.name, ref: s };
    }
    return undefined;
  }

  /** `data.partial.p.r`: the rule at `ref` saved as support, referred to there. */
  private savedRule(ref: RefTerm, at: Loc): Expr {
    return { kind: 'term', term: { ...this.supportRef(ref), loc: at }, negated: false, with: [], loc: at };
  }

  /** A dependent rule's residual: its bodies as alternatives. */
  private inline(node: RuleNode, ref: RefTerm, at: Loc): Queries {
    const memo = this.inlined.get(node);
    if (memo !== undefined) return memo;
    const first = node.rules[0];
    const notInlinable = node.rules.some(
      (p) => p.rule.else !== undefined || (p.rule.head.value !== undefined && !(p.rule.head.value.type === 'boolean' && p.rule.head.value.value)),
    );
    if (this.support !== undefined && (node.defaults.length > 0 || first?.kind !== 'complete' || notInlinable || this.inliningDisabled(node.path))) {
      const saved: Queries = [[this.savedRule(ref, at)]];
      this.inlined.set(node, saved);
      return saved;
    }
    // OPA saves such rules into support modules and its filter checks then refuse the reference: so do we, at that place.
    const unsupported =
      node.defaults.length > 0
        ? `use of default rule in ${node.name}`
        : first !== undefined && first.kind !== 'complete'
          ? `use of multi-value rule in ${node.name}`
          : undefined;
    if (unsupported !== undefined) {
      const marker: Expr = { kind: 'term', term: { ...ref, loc: at }, negated: false, with: [], loc: at };
      SUPPORT_NEEDED.set(marker, unsupported);
      this.inlined.set(node, [[marker]]);
      return [[marker]];
    }
    const rules = node.rules.map((p) => p.rule);
    const out: Queries = [];
    for (const r of rules) {
      if (r.else !== undefined || (r.head.value !== undefined && !(r.head.value.type === 'boolean' && r.head.value.value))) {
        throw new PartialError('pe_fragment_error', `invalid data reference "${refText(ref)}"`, ref.loc, `has rule "${refText(ref)}" an \`else\`?`);
      }
      out.push(...this.body(r.body));
    }
    this.inlined.set(node, out);
    return out;
  }
}

function refText(ref: RefTerm): string {
  return ref.terms
    .map((t, i) =>
      i === 0 && t.type === 'var'
        ? t.name
        : t.type === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value)
          ? `.${t.value}`
          : `[${t.type === 'string' ? JSON.stringify(t.value) : '_'}]`,
    )
    .join('');
}

function substitute(t: Term, copies: Map<string, Term>): Term {
  return mapTerm(t, (x) => (x.type === 'var' && copies.has(x.name) ? substitute(copies.get(x.name) as Term, copies) : undefined));
}

function substituteExpr(e: Expr, copies: Map<string, Term>): Expr {
  return copies.size === 0 ? e : mapExprTerms(e, (t) => substitute(t, copies));
}

function plugValues(e: Expr, values: Map<string, Value>): Expr {
  if (values.size === 0) return e;
  return mapExprTerms(e, (t) => plugTerm(t, values));
}

function plugTerm(t: Term, values: Map<string, Value>): Term {
  return mapTerm(t, (x) => (x.type === 'var' && values.has(x.name) ? valueTerm(values.get(x.name) as Value, x.loc) : undefined));
}

/** A term or call expression with `sub` applied to its term or arguments; other kinds as they are. */
function mapExprTerms(e: Expr, sub: (t: Term) => Term): Expr {
  switch (e.kind) {
    case 'term':
      return { ...e, term: sub(e.term) };
    case 'call':
      return { ...e, args: e.args.map(sub) };
    default:
      return e;
  }
}

/** OPA saves `a == b` as the unification `a = b`. */
function normalise(e: Expr): Expr {
  if (e.kind === 'call' && refName(e.op) === 'equal' && e.args.length === 2) return { ...e, op: { ...opRef('eq', e.op.loc), loc: e.op.loc } };
  return e;
}

/** OPA's limit on the conjunctions a negation may be inlined into. */
const MAX_INLINED_NEGATION = 16;

/**
 * Whether `not (A1 or A2 ...)` may be written as its De Morgan complement, as OPA decides it: not when an expression
 * calls a builtin on a ref or call (its complement, parsed again, would move the ref out of the `not`), nor when the
 * complement has more than 16 conjunctions.
 */
function canInlineNegation(alternatives: Queries): boolean {
  let size = 1;
  for (const conj of alternatives) {
    size *= conj.length;
    for (const e of conj) {
      if (e.kind !== 'call' && e.kind !== 'term') return false;
      if (e.kind === 'call' && refName(e.op) !== 'eq' && refName(e.op) !== 'equal' && e.args.some((t) => t.type === 'ref' || t.type === 'call')) return false;
    }
  }
  return size <= MAX_INLINED_NEGATION;
}

/** Every way of taking one alternative from each side, conjoined. */
function product(left: Queries, right: Queries, loc: Loc): Queries {
  if (left.length * right.length > MAX_ALTERNATIVES)
    throw new PartialError('pe_fragment_error', `the residual has more than ${MAX_ALTERNATIVES} alternatives`, loc);
  const out: Queries = [];
  for (const l of left) for (const r of right) out.push([...l, ...r]);
  return out;
}

/** `not (A1 or A2 ...)` as alternatives: each Ai (a conjunction) negated by De Morgan, then conjoined. */
function negate(alternatives: Queries, loc: Loc): Queries {
  let out: Queries = [[]];
  for (const conj of alternatives) {
    if (conj.length === 0) return [];
    out = product(
      out,
      conj.map((e) => [{ ...e, negated: !e.negated }]),
      loc,
    );
  }
  return out;
}

/** @internal For tests and error messages: a ref term for a data path. */
export function dataRef(path: readonly string[], loc: Loc): RefTerm {
  return mkRef([mkVar('data', loc), ...path.map((p): Term => ({ type: 'string', value: p, loc }))], loc);
}
