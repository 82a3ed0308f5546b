/**
 * Turns compiled (rewritten, reordered) rule and query bodies into closures.
 * Variables of a rule branch or query live in slots of one frame array,
 * shared with the comprehensions and `every` bodies nested in it (their
 * variables have unique names after local-var rewriting).
 */
import type { Body, Expr, RefTerm, Rule, Term, With } from '../ast.js';
import { byOpaName, compareTerms } from '../ast-order.js';
import { refName, refToString } from '../ast.js';
import type { BuiltinRegistry } from '../builtins/registry.js';
import { constantValue } from '../compiler/constant.js';
import { dataRefPrefix, functionNode } from '../compiler/checks.js';
import type { VarGen } from '../compiler/locals.js';
import type { PreparedRule, RuleNode } from '../compiler/rule-tree.js';
import { PolicyError, type SourceLocation, unsupported } from '../errors.js';
import { equal, type Value } from '../value.js';
import { type CallTarget, invoke } from './calls.js';
import { DataRefT } from './data-ref.js';
import { Env, type ExprFn, type Frame, type FuncReplacement, type K, type ValK } from './env.js';
import { callExpr, type CompiledWith, everyExpr, notExpr, seq, termExpr, unifyExpr, withExpr } from './exprs.js';
import { readsInput } from './reads-input.js';
import type { CompiledBranch, NodeRuntime } from './rules.js';
import { ArrayT, CompT, ConstT, type CTerm, evalAll, ObjectT, RefT, SetT, VarT } from './terms.js';
import type { NodeText } from '../trace/node-text.js';
import type { TraceNode } from '../trace/trace-event.js';
import { type LocalsOf, tracedEveryScope, tracedExpr, tracedNot, tracedQuery } from '../trace/trace-hooks.js';

class Scope {
  readonly slots = new Map<string, number>();
  slot(name: string): number {
    let s = this.slots.get(name);
    if (s === undefined) {
      s = this.slots.size;
      this.slots.set(name, s);
    }
    return s;
  }
}

/** A call in term position (rare after expansion). */
class CallT implements CTerm {
  readonly dynamic = true;
  constructor(
    readonly target: CallTarget,
    readonly args: CTerm[],
    readonly loc: SourceLocation,
  ) {}
  get(env: Env, f: Frame): Value | undefined {
    let out: Value | undefined;
    this.eval(env, f, (v) => {
      out = v;
      return true;
    });
    return out;
  }
  eval(env: Env, f: Frame, k: ValK): boolean {
    return evalAll(env, f, this.args, (vals) => invoke(env, this.target, vals, this.loc, k));
  }
  unify(env: Env, f: Frame, v: Value, k: K): boolean {
    return this.eval(env, f, (x) => equal(x, v) && k());
  }
}

export interface CompiledQuery {
  nslots: number;
  body: ExprFn;
  /** Result variables: user-visible name and slot. */
  outputs: Array<{ name: string; slot: number }>;
}

export class CodeGen {
  constructor(
    private readonly root: RuleNode,
    private readonly builtins: BuiltinRegistry,
    private readonly gen: VarGen,
    /** When set, records `file:row` of every expression evaluated and of every rule head whose body succeeded (`policy test --coverage`). */
    private readonly coverage?: Set<string>,
    /** When set, the closures record OPA's evaluation trace into `EvalOptions.trace` (see trace/trace-hooks.ts); node texts come from it. */
    private readonly trace?: NodeText,
  ) {}

  /** Early-exit flags of the branches of the node being compiled (set once the node's runtime is known). */
  private early: Array<{ value: boolean }> = [];
  /** The text of the top query's one expression when the query was built from a document path. */
  private textOf: { expr: Expr; text: string } | undefined;

  private locals(scope: Scope): LocalsOf {
    const text = this.trace as NodeText;
    return (f) => {
      const out: Array<[string, Value]> = [];
      for (const [name, slot] of scope.slots) {
        const v = f[slot];
        if (v !== undefined && !name.startsWith('$wildcard')) out.push([text.varName(name), v]);
      }
      return out;
    };
  }

  /** Attaches a runtime to every rule node of the tree. */
  compileNodes(): void {
    for (const node of this.root.ruleNodes()) node.runtime = this.nodeRuntime(node);
  }

  /** Compiles a query; `text` replaces the query's text in trace events (`data.a.allow = _` for a document lookup). */
  compileQuery(body: Body, text?: string): CompiledQuery {
    const scope = new Scope();
    this.textOf = text !== undefined && body.length === 1 ? { expr: body[0] as Expr, text } : undefined;
    let fn = this.body(body, scope);
    this.textOf = undefined;
    if (this.trace !== undefined) {
      fn = tracedQuery({ body: fn, node: { type: 'body', body, text: text ?? this.trace.body(body) }, top: true, locals: this.locals(scope) });
    }
    const outputs: Array<{ name: string; slot: number }> = [];
    for (const [name, slot] of scope.slots) {
      if (!name.includes('$')) outputs.push({ name, slot });
      else {
        const orig = this.gen.original.get(name);
        if (orig !== undefined) outputs.push({ name: orig, slot });
      }
    }
    return { nslots: scope.slots.size, body: fn, outputs };
  }

  private nodeRuntime(node: RuleNode): NodeRuntime {
    const rules = node.rules;
    let kind: NodeRuntime['kind'];
    if (node.isFunction) kind = 'function';
    else if (rules.every((r) => r.kind === 'complete' && r.suffix.length === 0)) kind = 'complete';
    else if (rules.every((r) => r.kind === 'multi' && r.suffix.length === 0)) kind = 'multi';
    else kind = 'object';
    this.early = [];
    const compiled = rules.map((r) => this.rule(r));
    const flags = this.early;
    const def = node.defaults[0] === undefined ? undefined : this.rule(node.defaults[0]);
    let earlyExit = kind === 'complete' || kind === 'function';
    let constValue: Value | undefined;
    for (const r of compiled) {
      for (let b: CompiledBranch | undefined = r; b !== undefined && earlyExit; b = b.else) {
        if (!b.constHead || !(b.value instanceof ConstT)) earlyExit = false;
        else if (constValue === undefined) constValue = b.value.value;
        else if (!equal(constValue, b.value.value)) earlyExit = false;
      }
    }
    // OPA evaluates a rule for its first value (its Exit says `early`) when all its values are one constant; a default always.
    for (const f of flags) f.value = earlyExit;
    for (const f of this.early.slice(flags.length)) f.value = true;
    // Functions are called in the order written; other rules that never read `input` come first under strict errors.
    const independent = kind === 'function' ? compiled : compiled.filter((_, i) => !readsInput((rules[i] as PreparedRule).rule));
    const strictRules = kind === 'function' ? compiled : [...independent, ...compiled.filter((b) => !independent.includes(b))];
    return { kind, rules: compiled, strictRules, def, earlyExit, name: node.name };
  }

  private rule(p: PreparedRule): CompiledBranch {
    let first: CompiledBranch | undefined;
    let prev: CompiledBranch | undefined;
    for (let r: Rule | undefined = p.rule; r !== undefined; r = r.else) {
      const b = this.branch(p, r, r === p.rule ? p.suffix : []);
      if (prev === undefined) first = b;
      else prev.else = b;
      prev = b;
    }
    p.compiled = first;
    return first as CompiledBranch;
  }

  private branch(p: PreparedRule, r: Rule, suffixTerms: Term[]): CompiledBranch {
    const scope = new Scope();
    const params = r.head.args?.map((a) => this.term(a, scope));
    let body = this.body(r.body, scope);
    const cov = this.coverage;
    if (cov !== undefined) {
      const inner = body;
      const head = `${r.head.loc.file}:${r.head.loc.row}`;
      body = (env, f, k) =>
        inner(env, f, () => {
          cov.add(head);
          return k();
        });
    }
    if (this.trace !== undefined) {
      const early = { value: false };
      this.early.push(early);
      const node: TraceNode = { type: 'rule', rule: r, text: this.trace.rule(r), path: this.trace.rulePath(r) };
      body = tracedQuery({ body, node, top: false, locals: this.locals(scope), early });
    }
    const value = r.head.value === undefined ? undefined : this.term(r.head.value, scope);
    const key = r.head.key === undefined ? undefined : this.term(r.head.key, scope);
    const suffix = suffixTerms.map((t) => this.term(t, scope));
    const multi = p.kind === 'multi';
    const headTerm = multi ? key : value;
    return {
      nslots: scope.slots.size,
      body,
      value,
      key,
      suffix,
      params,
      constHead: headTerm instanceof ConstT && suffix.length === 0,
      multi,
      loc: r.loc,
      else: undefined,
    };
  }

  private body(b: Body, scope: Scope): ExprFn {
    // OPA drops the `true` a body-less rule gets once the compiler adds expressions to it: no trace events for it then.
    if (this.trace !== undefined && b.length > 1) return seq(b.map((e) => (isGeneratedTrue(e) ? (_env, _f, k) => k() : this.expr(e, scope))));
    return seq(b.map((e) => this.expr(e, scope)));
  }

  /** A nested body (comprehension, `every`, negation): a query of its own in the trace. */
  private nestedBody(b: Body, scope: Scope, early?: boolean): ExprFn {
    const fn = this.body(b, scope);
    if (this.trace === undefined) return fn;
    return tracedQuery({
      body: fn,
      node: { type: 'body', body: b, text: this.trace.body(b) },
      top: false,
      locals: this.locals(scope),
      ...(early ? { early: { value: true } } : {}),
    });
  }

  private expr(e: Expr, scope: Scope): ExprFn {
    let fn: ExprFn;
    switch (e.kind) {
      case 'term':
        fn = termExpr(this.term(e.term, scope));
        break;
      case 'call': {
        const name = refName(e.op);
        if (name === 'eq' && e.args.length === 2) {
          fn = unifyExpr(this.term(e.args[0] as Term, scope), this.term(e.args[1] as Term, scope));
          break;
        }
        const { target, arity } = this.callTarget(e.op, e.loc);
        fn = callExpr(
          target,
          e.args.map((a) => this.term(a, scope)),
          arity,
          e.loc,
        );
        break;
      }
      case 'every':
        fn = everyExpr(
          this.term(e.domain, scope),
          e.key === undefined ? undefined : this.term(e.key, scope),
          this.term(e.value, scope),
          this.nestedBody(e.body, scope, true),
        );
        if (this.trace !== undefined) fn = tracedEveryScope({ inner: fn, node: this.exprNode(e), locals: this.locals(scope) });
        break;
      case 'notbody':
        fn =
          this.trace === undefined
            ? notExpr(this.body(e.body, scope))
            : tracedNot({ complement: this.nestedBody(e.body, scope), node: this.exprNode(e), locals: this.locals(scope) });
        break;
      case 'some':
        fn = (_env, _f, k) => k();
        break;
    }
    const trace = this.trace;
    if (trace !== undefined && e.kind !== 'notbody') {
      if (e.negated) {
        // OPA evaluates the complement (without `with`) as a nested query of one expression.
        const complement: Expr = { ...e, negated: false, with: [] };
        const child = tracedQuery({
          body: this.expr(complement, scope),
          node: { type: 'body', body: [complement], text: trace.expr(complement) },
          top: false,
          locals: this.locals(scope),
        });
        fn = tracedNot({ complement: child, node: this.exprNode(e), locals: this.locals(scope) });
      } else fn = tracedExpr({ inner: fn, node: this.exprNode(e), locals: this.locals(scope) });
    } else if (e.negated) fn = notExpr(fn);
    if (e.with.length > 0) fn = e.with.some(hasBadDocumentPath) ? badDocumentPath(e.loc) : withExpr(fn, this.withs(e.with, scope));
    const cov = this.coverage;
    if (cov !== undefined) {
      const inner = fn;
      const at = `${e.loc.file}:${e.loc.row}`;
      fn = (env, f, k) => {
        cov.add(at);
        return inner(env, f, k);
      };
    }
    return fn;
  }

  private exprNode(e: Expr): TraceNode {
    return { type: 'expr', expr: e, text: this.textOf?.expr === e ? this.textOf.text : (this.trace as NodeText).expr(e) };
  }

  private callTarget(op: RefTerm, loc: SourceLocation): { target: CallTarget; arity: number } {
    const node = functionNode(this.root, op);
    if (node !== undefined) {
      const arity = (node.rules[0] ?? node.defaults[0])?.rule.head.args?.length ?? 0;
      return { target: { kind: 'function', node, key: node.name }, arity };
    }
    const name = refName(op);
    const def = name === undefined ? undefined : this.builtins.resolve(name);
    if (def === undefined || name === undefined) throw unsupported(`function ${refToString(op)}`, loc);
    return { target: { kind: 'builtin', def, key: name }, arity: def.args.length };
  }

  private withs(ws: With[], scope: Scope): CompiledWith[] {
    return ws.map((w) => {
      const t = w.target;
      const value = this.term(w.value, scope);
      if (t.type === 'var') return { kind: 'func', key: t.name, replacement: this.replacement(w.value), value };
      if (t.type !== 'ref') throw unsupported('with target', w.loc);
      const head = t.terms[0] as Term;
      if (head.type === 'var' && head.name === 'input') {
        return { kind: 'input', path: this.constPath(t.terms.slice(1), w), value };
      }
      if (head.type === 'var' && head.name === 'data') {
        const p = dataRefPrefix(t);
        if (p === undefined || p.rest) throw unsupported('with target', w.loc);
        const node = this.root.find(p.path);
        if (node !== undefined && node.isFunction) return { kind: 'func', key: node.name, replacement: this.replacement(w.value), value };
        if (w.value.type === 'ref' && functionNode(this.root, w.value) !== undefined) return { kind: 'data-absent', path: p.path };
        return { kind: 'data', path: p.path, value };
      }
      const name = refName(t);
      if (name === undefined) throw unsupported('with target', w.loc);
      return { kind: 'func', key: name, replacement: this.replacement(w.value), value };
    });
  }

  private constPath(terms: Term[], w: With): Value[] {
    return terms.map((x) => {
      const v = constantValue(x);
      if (v === undefined) throw unsupported('with target', w.loc);
      return v;
    });
  }

  /** A function or builtin named by a `with` value, if it names one. */
  private replacement(t: Term): FuncReplacement | undefined {
    if (t.type === 'var') {
      const def = this.builtins.resolve(t.name);
      return def === undefined ? undefined : { kind: 'builtin', def };
    }
    if (t.type !== 'ref') return undefined;
    const node = functionNode(this.root, t);
    if (node !== undefined) return { kind: 'function', node };
    const name = refName(t);
    const def = name === undefined ? undefined : this.builtins.resolve(name);
    return def === undefined ? undefined : { kind: 'builtin', def };
  }

  term(t: Term, scope: Scope): CTerm {
    switch (t.type) {
      case 'null':
        return new ConstT(null);
      case 'boolean':
      case 'number':
      case 'string':
        return new ConstT(t.value);
      case 'var':
        return new VarT(scope.slot(t.name), t.name);
      case 'array': {
        const c = constantValue(t);
        return c !== undefined ? new ConstT(c) : new ArrayT(t.items.map((x) => this.term(x, scope)));
      }
      case 'set': {
        const c = constantValue(t);
        return c !== undefined ? new ConstT(c) : new SetT(t.items.map((x) => this.term(x, scope)));
      }
      case 'object': {
        const c = constantValue(t);
        if (c !== undefined) return new ConstT(c);
        // In OPA's order of the keys (constants before vars and refs, locals as declared), a later equal key overwriting:
        // `{input: 1, "a": 2}` is {"a": 1} when input is "a", as in OPA.
        const entries = [...t.entries].sort(([a], [b]) => compareTerms(a, b, byOpaName));
        return new ObjectT(entries.map(([k, v]) => [this.term(k, scope), this.term(v, scope)] as [CTerm, CTerm]));
      }
      case 'ref': {
        const head = t.terms[0] as Term;
        const ops = t.terms.slice(1).map((x) => this.term(x, scope));
        if (head.type === 'var') {
          if (head.name === 'input') return new RefT(undefined, ops);
          if (head.name === 'data') return new DataRefT(this.root, ops);
          const hv = new VarT(scope.slot(head.name), head.name);
          return ops.length === 0 ? hv : new RefT(hv, ops);
        }
        return new RefT(this.term(head, scope), ops);
      }
      case 'arraycomp':
        return new CompT('array', this.nestedBody(t.body, scope), this.term(t.term, scope), undefined, t.loc);
      case 'setcomp':
        return new CompT('set', this.nestedBody(t.body, scope), this.term(t.term, scope), undefined, t.loc);
      case 'objectcomp':
        return new CompT('object', this.nestedBody(t.body, scope), this.term(t.key, scope), this.term(t.value, scope), t.loc);
      case 'call': {
        const { target } = this.callTarget(t.op, t.loc);
        return new CallT(
          target,
          t.args.map((a) => this.term(a, scope)),
          t.loc,
        );
      }
    }
  }
}

/**
 * OPA merges each `input`/`data` target into the document as a path of strings; a target with any other key (a var,
 * as in `input[x]`, or a number) fails with a conflict error when the expression is reached.
 */
function hasBadDocumentPath(w: With): boolean {
  const t = w.target;
  if (t.type !== 'ref') return false;
  const head = t.terms[0] as Term;
  if (head.type !== 'var' || (head.name !== 'input' && head.name !== 'data')) return false;
  return t.terms.slice(1).some((x) => x.type !== 'string');
}

function badDocumentPath(loc: SourceLocation): ExprFn {
  return () => {
    throw new PolicyError({ code: 'eval_conflict_error', detail: 'bad document path', location: loc });
  };
}

function isGeneratedTrue(e: Expr): boolean {
  return e.generated === true && e.kind === 'term' && e.term.type === 'boolean' && e.term.value && !e.negated && e.with.length === 0;
}

export { PolicyError };
