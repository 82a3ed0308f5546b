/**
 * Type inference over compiled rule bodies as OPA's checker does it
 * (`v1/ast/check.go`, `v1/ast/env.go`): each expression in order, a var typed
 * by its first binding (`unify1` without union), `=` unifying both sides
 * (`unify2`), a builtin's arguments unified with its declaration, refs
 * checked key by key (`checkRef`/`checkRefLeaf`), comprehension bodies in a
 * nested scope. Whatever is not modelled here types the vars it binds
 * `UNKNOWN` (see rego-type.ts), so a finding is only made where OPA's is
 * certain to be the same.
 */
import { type Body, type Expr, refName, type RefTerm, refToString, type Rule, type Term } from '../ast.js';
import { builtinDecl } from './builtin-decls.js';
import {
  ANY,
  arrayOf,
  printType,
  BOOLEAN,
  fits,
  hasNil,
  keysOf,
  type MaybeType,
  NULL,
  NUMBER,
  objectOf,
  or,
  type RegoType,
  selectKey,
  STRING,
  type TypeKey,
  uncertain,
  UNKNOWN,
  valuesOf,
} from './rego-type.js';
import type { RuleNode } from './rule-tree.js';
import type { RuleSchemaEnv } from './schema-annotations.js';
import { exprVars, forEachSubTerm, termVars } from './walk.js';
import { type DataTarget, type WithFinding, type WithTypes, withTypes } from './with-types.js';

/** A ref that reads what its container never has. `at` is the index of the operand at fault. */
export type RefProblem =
  | { kind: 'unsupported'; ref: RefTerm; at: number; have: RegoType }
  /** A ref to a function (or into one) that does not call it: `at` is the index of the function's name. */
  | { kind: 'function'; ref: RefTerm; at: number; have: RegoType }
  | { kind: 'invalid'; ref: RefTerm; at: number; haveType?: RegoType; want: MaybeType; oneOf: string[] };

export type Finding =
  | WithFinding
  | { kind: 'ref'; problem: RefProblem }
  | { kind: 'args'; name: string; want: string; have: MaybeType[]; expr: Expr; arity: number }
  /** A call of a function OPA's type env holds no type for (see {@link RuleTypes.functionLost}). */
  | { kind: 'undefined-function'; name: string; expr: Expr }
  | { kind: 'match'; left: MaybeType; right: MaybeType; expr: Expr };

class Scope {
  private readonly vars = new Map<string, RegoType>();
  constructor(private readonly parent?: Scope) {}

  get(name: string): RegoType | undefined {
    return this.vars.get(name) ?? this.parent?.get(name);
  }

  set(name: string, t: RegoType): void {
    this.vars.set(name, t);
  }
}

function constantKey(t: Term): TypeKey | undefined {
  if (t.type === 'string') return { kind: 'string', value: t.value };
  if (t.type === 'number') return typeof t.value === 'number' ? { kind: 'number', value: t.value } : undefined;
  if (t.type === 'boolean') return { kind: 'other', type: BOOLEAN };
  if (t.type === 'null') return { kind: 'other', type: NULL };
  return undefined;
}

function isComposite(t: Term): boolean {
  return t.type === 'array' || t.type === 'object' || t.type === 'set';
}

/** The string keys of an object type (or of an `any` of objects), sorted: OPA's `want (one of)`. */
function oneOf(t: RegoType): string[] {
  const keys = new Set<string>();
  if (t.kind === 'object') t.props.forEach(([k]) => keys.add(k));
  if (t.kind === 'any') for (const m of t.of) if (m.kind === 'object') m.props.forEach(([k]) => keys.add(k));
  return [...keys].sort();
}

/** Types the bodies of one rule definition, or of a comprehension inside one. */
export class BodyTyper {
  readonly findings: Finding[] = [];
  private readonly closureTypes = new Map<Term, RegoType>();
  /** The rules the expression being typed reads replaced by its `with`s, with their types there (see with-types.ts). */
  private withData: WithTypes['data'] = [];
  /** The function's argument vars that had no type when the expression being typed began. */
  private untypedArgs = new Set<string>();
  /** `data`'s types from schema annotations (see schema-annotations.ts); undefined when none apply. */
  private schemaData: ReadonlyMap<string, RegoType> | undefined;

  constructor(
    private readonly rules: RuleTypes,
    private readonly scope: Scope = new Scope(),
    /** A function's argument vars: one not bound yet that heads a ref is typed `any`, as OPA's checkRef types it. */
    private readonly args: ReadonlySet<string> = new Set(),
    schemaEnv?: RuleSchemaEnv,
  ) {
    if (schemaEnv?.input !== undefined) scope.set('input', schemaEnv.input);
    this.schemaData = schemaEnv?.data;
  }

  /** `input`'s type where nothing in the scope sets it: the global input schema's, else `any`. */
  private get inputType(): RegoType {
    return this.scope.get('input') ?? this.rules.inputType ?? ANY;
  }

  body(b: Body): void {
    for (const e of b) this.expr(e);
  }

  /** The type of a term after the expressions typed so far (undefined: OPA's nil). */
  typeOf(t: Term): MaybeType {
    switch (t.type) {
      case 'null':
        return NULL;
      case 'boolean':
        return BOOLEAN;
      case 'number':
        return NUMBER;
      case 'string':
        return STRING;
      case 'var':
        if (t.name === 'input') return this.inputType;
        // The whole of data: the rules' types, unless a `with` replaces some or a schema annotation types a part.
        if (t.name === 'data') return this.withData.length === 0 && this.schemaData === undefined ? this.rules.extent() : UNKNOWN;
        return this.scope.get(t.name);
      // Empty literals are typed as OPA types them: `array[any]`, `set[any]`, `object[any: any]`.
      case 'array':
        return t.items.length === 0 ? arrayOf([], ANY) : arrayOf(t.items.map((x) => this.typeOf(x)));
      case 'set':
        // As OPA's GetByValue: the union of the elements' types, `any` when none has one (`{x}`, `x` not bound).
        return { kind: 'set', of: t.items.reduce<MaybeType>((acc, x) => or(acc, this.typeOf(x)), undefined) ?? ANY };
      case 'object': {
        if (t.entries.length === 0) return objectOf([], { key: ANY, value: ANY });
        const props: Array<[string, MaybeType]> = [];
        for (const [k, v] of t.entries) {
          if (k.type !== 'string' || props.some(([p]) => p === k.value)) return UNKNOWN;
          props.push([k.value, this.typeOf(v)]);
        }
        return objectOf(props);
      }
      case 'ref':
        return this.refType(t);
      case 'arraycomp':
      case 'setcomp':
      case 'objectcomp':
        return this.closureTypes.get(t) ?? UNKNOWN;
      default:
        return UNKNOWN;
    }
  }

  private refType(ref: RefTerm): MaybeType {
    const head = ref.terms[0];
    if (head?.type !== 'var') return UNKNOWN;
    let t: MaybeType;
    let at = 1;
    if (head.name === 'data') {
      const r = this.dataRef(ref);
      if (r === undefined) return UNKNOWN;
      [t, at] = [r.type, r.at];
    } else t = this.typeOf(head);
    for (; at < ref.terms.length && t !== undefined; at++) {
      if (uncertain(t)) return UNKNOWN;
      const op = ref.terms[at] as Term;
      const key = constantKey(op);
      t = key === undefined ? valuesOf(t) : selectKey(t, key);
    }
    return t;
  }

  /** Types the vars of `e` UNKNOWN: what it binds is not modelled. */
  private forget(e: Expr | Term, all: boolean): void {
    const vars = new Set<string>();
    if ('kind' in e) exprVars(e, vars, { skipClosures: true });
    else termVars(e, vars, { skipClosures: true });
    // `input` is never bound by an expression: its type (a schema's) stays.
    for (const v of vars) if (v !== 'input' && (all || this.scope.get(v) === undefined)) this.scope.set(v, UNKNOWN);
  }

  /** A `data` ref's rule type, or the type a `with` of the expression gives the rule it replaces. */
  private dataRef(ref: RefTerm): DataRefType | undefined {
    for (const w of this.withData) {
      if (w.path.length >= ref.terms.length) continue;
      const named = w.path.every((k, i) => {
        const t = ref.terms[i + 1];
        return t?.type === 'string' && t.value === k;
      });
      if (named) return { type: w.type, at: w.path.length + 1 };
    }
    if (this.schemaData !== undefined) {
      // As OPA: `data` is then one type, the annotations' over the rules typed so far (not modelled: untyped).
      const key = ref.terms[1];
      const type = key?.type === 'string' ? this.schemaData.get(key.value) : undefined;
      return type === undefined ? undefined : { type, at: 2 };
    }
    return this.rules.dataRef(ref);
  }

  private expr(e: Expr): void {
    if (e.kind === 'every') this.functionRefs(e.domain);
    if (e.kind === 'some' || e.kind === 'every' || e.kind === 'notbody') {
      this.forget(e, true);
      return;
    }
    if (e.with.length === 0) return this.typeExpr(e, undefined);
    const withs = withTypes(e.with, { typeOf: (t) => this.typeOf(t), dataTarget: (ref) => this.rules.dataTarget(ref) });
    if (withs === undefined) return this.forget(e, true);
    this.withData = withs.data;
    try {
      this.typeExpr(e, withs.finding);
    } finally {
      this.withData = [];
    }
  }

  /** Types one expression; a refused `with` (OPA's checkExprWith) is reported after its refs, in place of its call. */
  private typeExpr(e: Extract<Expr, { kind: 'call' | 'term' }>, refusedWith: WithFinding | undefined): void {
    const before = this.findings.length;
    this.untypedArgs = new Set([...this.args].filter((a) => this.scope.get(a) === undefined));
    const terms = e.kind === 'call' ? e.args : [e.term];
    for (const t of terms) this.closures(t);
    for (const t of terms) this.refs(t);
    if (refusedWith !== undefined) {
      this.findings.push(refusedWith);
      return this.forget(e, true);
    }
    const f = e.kind === 'call' ? this.call(e) : undefined;
    if (f === undefined) return;
    const nil = f.kind === 'match' ? hasNil(f.left) || hasNil(f.right) : f.kind === 'args' && f.have.some((t) => hasNil(t));
    if (this.findings.length > before && nil) return;
    this.findings.push(f);
  }

  /** Checks the comprehensions of a term in a nested scope (OPA's checkClosures) and keeps their types. */
  private closures(t: Term): void {
    if (t.type === 'arraycomp' || t.type === 'setcomp' || t.type === 'objectcomp') {
      const { type, findings } = this.closureType(t);
      this.findings.push(...findings);
      this.closureTypes.set(t, findings.length === 0 ? (type as RegoType) : UNKNOWN);
      return;
    }
    forEachChild(t, (c) => this.closures(c));
  }

  /** A comprehension's type, its body typed in a nested scope; with type errors, OPA's TypeEnv has none for it (nil). */
  closureType(t: Extract<Term, { type: 'arraycomp' | 'setcomp' | 'objectcomp' }>): { type: MaybeType; findings: Finding[] } {
    const inner = new BodyTyper(this.rules, new Scope(this.scope), this.args);
    inner.withData = this.withData;
    inner.schemaData = this.schemaData;
    inner.body(t.body);
    if (inner.findings.length > 0) return { type: undefined, findings: inner.findings };
    if (t.type === 'arraycomp') return { type: arrayOf([], inner.typeOf(t.term)), findings: [] };
    if (t.type === 'setcomp') return { type: { kind: 'set', of: inner.typeOf(t.term) }, findings: [] };
    return { type: objectOf([], { key: inner.typeOf(t.key), value: inner.typeOf(t.value) }), findings: [] };
  }

  /** OPA's ref checker over the refs of a term (outer refs first). */
  private refs(t: Term): void {
    if (t.type === 'arraycomp' || t.type === 'setcomp' || t.type === 'objectcomp') return;
    if (t.type === 'ref') this.checkRef(t);
    forEachChild(t, (c) => this.refs(c));
  }

  /**
   * Only the refs to functions that do not call them (OPA's checkApply, and checkRefLeaf on a function), in a term
   * OPA checks where we type nothing else (an `every` domain).
   */
  private functionRefs(t: Term): void {
    if (t.type === 'arraycomp' || t.type === 'setcomp' || t.type === 'objectcomp') return;
    if (t.type === 'ref' && t.terms[0]?.type === 'var' && t.terms[0].name === 'data') {
      const r = this.dataRef(t);
      if (r?.fn === true) this.findings.push({ kind: 'ref', problem: { kind: 'function', ref: t, at: r.at - 1, have: r.type } });
    }
    forEachChild(t, (c) => this.functionRefs(c));
  }

  private checkRef(ref: RefTerm): void {
    const head = ref.terms[0];
    if (head?.type !== 'var') return this.forget(ref, false);
    if (head.name === 'input' && this.scope.get('input') === undefined) return this.checkLeaf(ref, this.inputType, 1);
    if (head.name === 'data') {
      const r = this.dataRef(ref);
      if (r === undefined) return this.forget(ref, false);
      if (r.fn === true) {
        // No value is a function: OPA refuses a function named without a call, or a ref into one (`with` aside).
        this.findings.push({ kind: 'ref', problem: { kind: 'function', ref, at: r.at - 1, have: r.type } });
        return ref.terms.slice(r.at).forEach((x) => this.forget(x, false));
      }
      if (ref.zeroArgCall === true && r.at === ref.terms.length && r.type.kind !== 'any' && !uncertain(r.type)) {
        // `f()` reads the rule `f` only when OPA types it `any`; with any other type OPA finds no function there.
        this.findings.push({ kind: 'undefined-function', name: refToString(ref), expr: { kind: 'term', term: ref, negated: false, with: [], loc: ref.loc } });
        return;
      }
      return this.checkLeaf(ref, r.type, r.at);
    }
    const t = this.scope.get(head.name);
    if (t === undefined && this.args.has(head.name)) {
      this.scope.set(head.name, ANY);
      return this.checkLeaf(ref, ANY, 1);
    }
    if (t === undefined) return this.forget(ref, false);
    this.checkLeaf(ref, t, 1);
  }

  /** OPA's checkRefLeaf: each operand from `at` against the type it reads into. */
  private checkLeaf(ref: RefTerm, t: RegoType, at: number): void {
    const rest = (i: number): void => ref.terms.slice(i).forEach((x) => this.forget(x, false));
    for (let i = at; i < ref.terms.length; i++) {
      if (uncertain(t)) return rest(i);
      const op = ref.terms[i] as Term;
      const keys = keysOf(t);
      if (keys === undefined) {
        this.findings.push({ kind: 'ref', problem: { kind: 'unsupported', ref, at: i, have: t } });
        return rest(i);
      }
      const key = constantKey(op);
      if (key !== undefined) {
        const child = selectKey(t, key);
        if (child === undefined) {
          this.findings.push({ kind: 'ref', problem: { kind: 'invalid', ref, at: i, want: keys, oneOf: oneOf(t) } });
          return rest(i);
        }
        t = child;
        continue;
      }
      if (op.type === 'var') {
        const exist = this.scope.get(op.name);
        if (exist === undefined) this.scope.set(op.name, keys);
        else if (!fits(exist, keys)) {
          if (!uncertain(exist)) this.findings.push({ kind: 'ref', problem: { kind: 'invalid', ref, at: i, haveType: exist, want: keys, oneOf: oneOf(t) } });
          return rest(i + 1);
        }
      } else if (isComposite(op)) {
        if (!this.unify1(op, keys, false)) return rest(i + 1);
      } else return rest(i);
      const values = valuesOf(t);
      if (values === undefined) return rest(i + 1);
      t = values;
    }
  }

  private call(e: Extract<Expr, { kind: 'call' }>): Finding | undefined {
    const name = refName(e.op);
    const head = e.op.terms[0];
    if (head?.type === 'var' && head.name === 'data') return this.userCall(e);
    if (name === undefined || head?.type !== 'var') return this.forgetArgs(e);
    if (name === 'eq' && e.args.length === 2) return this.unify2(e, e.args[0] as Term, e.args[1] as Term);
    const decl = builtinDecl(name);
    if (decl === undefined) return this.forgetArgs(e);
    return this.unifyArgs(e, name, decl);
  }

  /** OPA's checkExprBuiltin: each argument (the output last) unified with the declaration's type, in order. */
  private unifyArgs(e: Extract<Expr, { kind: 'call' }>, name: string, decl: { types: RegoType[]; want: string }): Finding | undefined {
    const n = decl.types.length - 1;
    if (e.args.length !== n && e.args.length !== n + 1) return this.forgetArgs(e);
    for (let i = 0; i < e.args.length; i++) {
      if (this.unify1(e.args[i] as Term, decl.types[i] as RegoType, false)) continue;
      // As OPA v1.20.2 prints them: a function's argument no earlier expression typed is `???` here, even where this
      // call's unification just typed it.
      const have = e.args.map((a) => (a.type === 'var' && this.untypedArgs.has(a.name) ? undefined : this.typeOf(a)));
      if (have.some(uncertain)) return this.forgetArgs(e);
      return { kind: 'args', name, want: decl.want, have, expr: e, arity: n };
    }
    return undefined;
  }

  /**
   * A call of a user function, checked as OPA checks it: its type is the union of its definitions' (each argument's
   * type as the body left it, `any` where the body does not type it; the value's type), so an argument no definition
   * takes is `data.p.f: invalid argument(s)`, and the output takes the result type.
   */
  private userCall(e: Extract<Expr, { kind: 'call' }>): Finding | undefined {
    const fn = this.rules.functionType(e.op);
    if (fn === undefined) {
      this.forgetArgs(e);
      return this.rules.functionLost(e.op) ? { kind: 'undefined-function', name: refToString(e.op), expr: e } : undefined;
    }
    return this.unifyArgs(e, refToString(e.op), fn);
  }

  /** Types the vars of function arguments `any` where the body did not bind them (OPA's checkRule). */
  argsAsAny(args: Term[]): void {
    const vars = new Set<string>();
    for (const a of args) termVars(a, vars, { skipClosures: true });
    for (const v of vars) if (this.scope.get(v) === undefined) this.scope.set(v, ANY);
  }

  private forgetArgs(e: Extract<Expr, { kind: 'call' }>): undefined {
    for (const a of e.args) this.forget(a, isComposite(a));
    return undefined;
  }

  /** OPA's unify2: `a = b`, a match error when no value fits both. */
  private unify2(e: Expr, a: Term, b: Term): Finding | undefined {
    const left = this.typeOf(a);
    const right = this.typeOf(b);
    if (uncertain(left) || uncertain(right)) {
      this.forget(a, false);
      this.forget(b, false);
      return undefined;
    }
    return this.unify2Terms(a, left, b, right) ? undefined : { kind: 'match', left, right, expr: e };
  }

  private unify2Terms(a: Term, left: MaybeType, b: Term, right: MaybeType): boolean {
    const nilA = hasNil(left);
    const nilB = hasNil(right);
    if (nilA && !nilB) return this.unify1(a, right as RegoType, false);
    if (nilB && !nilA) return this.unify1(b, left as RegoType, false);
    if (!nilA && !nilB) return fits(left, right);
    if (a.type === 'array' && b.type === 'array') {
      if (a.items.length !== b.items.length) return false;
      return a.items.every((x, i) => {
        const y = b.items[i] as Term;
        return this.unify2Terms(x, this.typeOf(x), y, this.typeOf(y));
      });
    }
    if (a.type === 'object' && b.type === 'object') {
      if (a.entries.length !== b.entries.length) return false;
      for (const [k, v] of a.entries) {
        const w = b.entries.find(([k2]) => sameConstant(k, k2));
        if (w === undefined) return false;
        if (!this.unify2Terms(v, this.typeOf(v), w[1], this.typeOf(w[1]))) return false;
      }
      return true;
    }
    const [x, y] = a.type === 'var' ? [a, b] : [b, a];
    if (x.type === 'var' && (y.type === 'var' || y.type === 'array' || y.type === 'object')) {
      return this.unify1(y, ANY, false) && this.unify1(x, this.typeOf(y) ?? ANY, false);
    }
    return false;
  }

  /** OPA's unify1: a term against a type, binding its vars (with `union`, widening bound ones). */
  private unify1(t: Term, type: RegoType, union: boolean): boolean {
    if (type.kind === 'unknown') {
      this.forget(t, union);
      return true;
    }
    switch (t.type) {
      case 'array':
        if (type.kind === 'array') {
          if (t.items.length !== type.items.length && type.of === undefined) return false;
          return t.items.every((x, i) => {
            const s = selectKey(type, { kind: 'number', value: i });
            return s !== undefined && this.unify1(x, s, union);
          });
        }
        return this.unify1Any(t, type, t.items);
      case 'object':
        if (type.kind === 'object') {
          if (t.entries.length !== type.props.length && type.dyn === undefined) return false;
          for (const [k, v] of t.entries) {
            const key = constantKey(k);
            if (key === undefined) {
              if (k.type !== 'var') this.forget(k, true);
              this.unify1(v, ANY, union);
              continue;
            }
            const s = selectKey(type, key);
            if (s === undefined || !this.unify1(v, s, union)) return false;
          }
          return true;
        }
        return this.unify1Any(
          t,
          type,
          t.entries.map(([, v]) => v),
        );
      case 'set':
        if (type.kind === 'set') {
          const of = valuesOf(type);
          return t.items.every((x) => of !== undefined && this.unify1(x, of, union));
        }
        return this.unify1Any(t, type, t.items);
      case 'var': {
        const exist = this.scope.get(t.name) ?? (t.name === 'input' ? this.inputType : undefined);
        if (!union) {
          if (exist !== undefined) return fits(exist, type);
          this.scope.set(t.name, type);
        } else this.scope.set(t.name, or(exist, type) as RegoType);
        return true;
      }
      default:
        return fits(this.typeOf(t), type);
    }
  }

  /** A composite literal against `any` (of some types): each member tried, with union. */
  private unify1Any(t: Term, type: RegoType, members: Term[]): boolean {
    if (type.kind !== 'any') return false;
    if (type.of.length === 0) {
      if (t.type === 'object') t.entries.forEach(([k]) => this.forget(k, true));
      members.forEach((m) => this.unify1(m, ANY, true));
      return true;
    }
    let ok = false;
    for (const m of type.of) ok = this.unify1(t, m, true) || ok;
    return ok;
  }
}

function sameConstant(a: Term, b: Term): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'string' && b.type === 'string') return a.value === b.value;
  if (a.type === 'number' && b.type === 'number') return typeof a.value === 'number' && a.value === b.value;
  if (a.type === 'boolean' && b.type === 'boolean') return a.value === b.value;
  return a.type === 'null';
}

/** The direct sub-terms of a term, a ref's operands (and head) included. */
function forEachChild(t: Term, f: (t: Term) => void): void {
  if (t.type === 'ref') t.terms.forEach(f);
  else forEachSubTerm(t, f);
}

/**
 * The term a function's head value stands for: the compiler moves a value that needs evaluation into the body
 * (`$t1 = {{"a": x, "b": $t2}}`), where OPA keeps it in the head and types it after the arguments are `any`.
 */
function movedHeadValue(rule: Rule, value: Term): Term {
  if (value.type !== 'var' || !value.name.startsWith('$t')) return value;
  for (const e of rule.body) {
    if (e.kind !== 'call' || refName(e.op) !== 'eq' || e.args.length !== 2) continue;
    const [a, b] = e.args as [Term, Term];
    if (a.type === 'var' && a.name === value.name) return b;
  }
  return value;
}

interface Typed {
  findings: Finding[];
  value: MaybeType;
  /** For a function: its arguments' types as its body left them (`any` where it does not type them). */
  args?: MaybeType[];
}

/** Where a `data` ref reaches a rule (or a function, `fn`), its type there and the index of the operand after it. */
export interface DataRefType {
  type: RegoType;
  at: number;
  fn?: boolean;
}

/** A user function's type as OPA's checker has it: the arguments', then the result's, and OPA's text of it. */
export interface FunctionType {
  types: RegoType[];
  want: string;
}

/** The rules' types, each rule definition typed once (in dependency order, as OPA's checker sorts them). */
export class RuleTypes {
  private readonly byRule = new Map<Rule, Typed | 'pending'>();
  private readonly byNode = new Map<RuleNode, RegoType>();
  private readonly byFunction = new Map<RuleNode, FunctionType | 'uncertain'>();

  constructor(
    private readonly root: RuleNode,
    options: {
      /** The global input schema's type (`--schema file`); `input` is `any` without one. */
      inputType?: RegoType;
      /** The rules' environments from schema annotations (only when the compiler applies them). */
      schemaEnvs?: ReadonlyMap<Rule, RuleSchemaEnv>;
    } = {},
  ) {
    this.inputType = options.inputType;
    this.schemaEnvs = options.schemaEnvs;
  }

  readonly inputType: RegoType | undefined;
  private readonly schemaEnvs: ReadonlyMap<Rule, RuleSchemaEnv> | undefined;

  /** The findings of one rule definition (one `else` link). */
  check(rule: Rule): Finding[] {
    return this.typed(rule).findings;
  }

  private typed(rule: Rule): Typed {
    const done = this.byRule.get(rule);
    if (done === 'pending') return { findings: [], value: UNKNOWN };
    if (done !== undefined) return done;
    this.byRule.set(rule, 'pending');
    const h = rule.head;
    const argVars = new Set<string>();
    for (const a of h.args ?? []) termVars(a, argVars, { skipClosures: true });
    const typer = new BodyTyper(this, new Scope(), argVars, this.schemaEnvs?.get(rule));
    typer.body(rule.body);
    let value: MaybeType = UNKNOWN;
    if (h.args === undefined && h.key !== undefined && h.value === undefined) value = { kind: 'set', of: typer.typeOf(h.key) };
    else if (h.args === undefined && h.key === undefined) value = h.value === undefined ? BOOLEAN : typer.typeOf(h.value);
    let args: MaybeType[] | undefined;
    if (h.args !== undefined) {
      typer.argsAsAny(h.args);
      value = h.value === undefined ? BOOLEAN : typer.typeOf(movedHeadValue(rule, h.value));
      args = h.args.map((a) => typer.typeOf(a));
    }
    const result = { findings: typer.findings, value, ...(args === undefined ? {} : { args }) };
    this.byRule.set(rule, result);
    return result;
  }

  /**
   * The type of a rule node: the union of its definitions' value types (`else` links and the default
   * included; `any` when one has a type error, as OPA types it), UNKNOWN where it is not modelled
   * (functions, ref heads, a node with rules below it).
   */
  private nodeType(node: RuleNode): RegoType {
    const done = this.byNode.get(node);
    if (done !== undefined) return done;
    this.byNode.set(node, UNKNOWN);
    const defs = [...node.rules, ...node.defaults];
    let type: MaybeType = undefined;
    let certain = node.children.size === 0 && defs.length > 0;
    for (const d of certain ? defs : []) {
      if (d.kind === 'function' || d.suffix.length > 0) certain = false;
      for (let r: Rule | undefined = d.rule; r !== undefined && certain; r = r.else) {
        const t = this.typed(r);
        if (t.findings.length > 0) type = or(type, ANY);
        else if (t.value === undefined) certain = false;
        else type = or(type, t.value);
      }
    }
    const result = certain && type !== undefined ? type : UNKNOWN;
    this.byNode.set(node, result);
    return result;
  }

  /**
   * A user function's type: each argument's and the result's the union of its definitions' (`else` links and a
   * default included), as OPA's `types.Or` unions two functions; undefined when not certain: a definition with a
   * type error (OPA types the function `any`, and does not check or bind a call at all), or a type not inferred.
   */
  functionType(op: RefTerm): FunctionType | undefined {
    let node: RuleNode | undefined = this.root;
    for (const t of op.terms.slice(1)) {
      if (t.type !== 'string' || node === undefined) return undefined;
      node = node.child(t.value);
    }
    if (node === undefined || !node.isFunction || node.children.size > 0) return undefined;
    const done = this.byFunction.get(node);
    if (done !== undefined) return done === 'uncertain' ? undefined : done;
    this.byFunction.set(node, 'uncertain');
    const defs = [...node.rules, ...node.defaults];
    const arity = defs[0]?.rule.head.args?.length;
    if (arity === undefined) return undefined;
    let result: MaybeType = undefined;
    const args: MaybeType[] = Array.from({ length: arity }, () => undefined);
    for (const d of defs) {
      for (let r: Rule | undefined = d.rule; r !== undefined; r = r.else) {
        const t = this.typed(r);
        if (d.kind !== 'function' || t.args?.length !== arity || t.findings.length > 0 || t.value === undefined) return undefined;
        result = or(result, t.value);
        t.args.forEach((a, i) => (args[i] = or(args[i], a)));
      }
    }
    // A type with nil inside (a head value `{{"a": x}}` moved into the body, typed before `x` is `any`) is not OPA's.
    const types = [...args, result];
    if (!types.every((x): x is RegoType => !hasNil(x, true) && !uncertain(x))) return undefined;
    const type = { types, want: `(${types.map(printType).join(', ')})` };
    this.byFunction.set(node, type);
    return type;
  }

  /**
   * Whether OPA's type env ends with no type for a function, so that its calls are `undefined function`: OPA types
   * each definition in order, one with a type error puts `any` at the function's path, a good one after it unions
   * its function type with that `any`, which gives nil (a good one after that sets the function type again). Only
   * decided for definitions in one file (their order is then the source's).
   */
  functionLost(op: RefTerm): boolean {
    let node: RuleNode | undefined = this.root;
    for (const t of op.terms.slice(1)) {
      if (t.type !== 'string' || node === undefined) return false;
      node = node.child(t.value);
    }
    if (node === undefined || !node.isFunction || node.children.size > 0 || node.defaults.length > 0) return false;
    const files = new Set(node.rules.map((d) => d.rule.loc.file));
    if (files.size !== 1) return false;
    let state: 'none' | 'any' | 'function' | 'lost' = 'none';
    const defs = [...node.rules].sort((a, b) => a.rule.loc.row - b.rule.loc.row || a.rule.loc.col - b.rule.loc.col);
    for (const d of defs) {
      for (let r: Rule | undefined = d.rule; r !== undefined; r = r.else) {
        if (this.typed(r).findings.length > 0) state = 'any';
        else state = state === 'any' ? 'lost' : 'function';
      }
    }
    return state === 'lost';
  }

  /** What a `data` ref names (a function, one rule, data no rule defines); undefined when not certain. */
  dataTarget(ref: RefTerm): DataTarget | undefined {
    let node: RuleNode = this.root;
    for (const t of ref.terms.slice(1)) {
      if (t.type !== 'string') return undefined;
      const child = node.child(t.value);
      if (child === undefined) return node.hasRules ? undefined : { kind: 'base' };
      node = child;
    }
    if (node.children.size > 0) return undefined;
    if (node.isFunction) return { kind: 'function', args: this.functionType(ref)?.types.slice(0, -1) };
    return node.hasRules ? { kind: 'rule' } : undefined;
  }

  /**
   * Where a `data` ref reaches a rule: its type and the index of the operand after it; `any` where it leaves the
   * rules (base data, typed `any` as OPA types what no rule defines); undefined when not certain.
   */
  dataRef(ref: RefTerm): DataRefType | undefined {
    let node: RuleNode | undefined = this.root;
    for (let i = 1; i < ref.terms.length; i++) {
      const t = ref.terms[i] as Term;
      if (t.type !== 'string') return undefined;
      node = node.child(t.value);
      if (node === undefined) return { type: ANY, at: i + 1 };
      if (node.hasRules && node.isFunction) {
        const fn = this.functionValue(node);
        return fn === undefined ? undefined : { type: fn, at: i + 1, fn: true };
      }
      if (node.hasRules) return { type: this.nodeType(node), at: i + 1 };
    }
    return { type: this.extent(node), at: ref.terms.length };
  }

  /**
   * The type of the document at a node no rule sits at (`data.p`, `data` itself), as OPA's type env has it
   * (getRefRecExtent): an object of what the rules below define, each key the type of its subtree, open to any other
   * string key (base data has no type). A key that is not a string, or a subtree not modelled, makes it uncertain.
   */
  extent(node: RuleNode = this.root): RegoType {
    if (node.hasRules) {
      if (node.children.size > 0) return UNKNOWN;
      return node.isFunction ? (this.functionValue(node) ?? UNKNOWN) : this.nodeType(node);
    }
    const props: Array<[string, RegoType]> = [];
    for (const c of node.sortedChildren()) {
      if (c.ruleNodes().next().done === true) continue;
      if (typeof c.key !== 'string') return UNKNOWN;
      props.push([c.key, this.extent(c)]);
    }
    return objectOf(props, { key: STRING, value: ANY });
  }

  /**
   * A user function as a type (`(any) => number`), the union of its definitions'; what is not inferred is UNKNOWN in
   * it. Undefined when a definition has a type error: OPA's env then holds `any` or nothing for it, never a function.
   */
  private functionValue(node: RuleNode): RegoType | undefined {
    const defs = [...node.rules, ...node.defaults];
    let type: MaybeType = undefined;
    for (const d of defs) {
      for (let r: Rule | undefined = d.rule; r !== undefined; r = r.else) {
        const t = this.typed(r);
        if (t.findings.length > 0) return undefined;
        const args = (t.args ?? []).map((a) => (a === undefined || hasNil(a, true) ? UNKNOWN : a));
        const result = t.value === undefined || hasNil(t.value, true) ? UNKNOWN : t.value;
        type = or(type, { kind: 'function', args, result });
      }
    }
    return type;
  }
}
