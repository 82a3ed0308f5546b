/**
 * OPA's type checker under `with` (`v1/ast/check.go`, checkExprWith): an
 * expression with `with` is typed as any other, and
 *
 * - a function replaced by a function (`with upper as f`) must take
 *   arguments that unify with its own, one by one, or the expression is
 *   refused with OPA's `upper: arity mismatch` (have: the replacement's
 *   arguments, want: the replaced one's), at the `with`; the call is then
 *   not checked. A function replaced by a value is not checked, and the call
 *   keeps the function's own types (`x := upper("a") with upper as 1` types
 *   `x` a string);
 * - a rule replaced by a value (`with data.p.r as "a"`) is read, in the
 *   expression (its comprehensions included), as of its own type or the
 *   value's (`r := 1`: `upper(r) with data.p.r as "a"` compiles,
 *   `upper(r) with data.p.r as [1]` is refused with have:
 *   `any<number, array<number>>`);
 * - `input`, and data no rule defines, stay `any`.
 */
import type { Loc, RefTerm, Term } from '../ast.js';
import { refName, refToString } from '../ast.js';
import { builtinDecl } from './builtin-decls.js';
import { fits, type MaybeType, or, printType, type RegoType, UNKNOWN } from './rego-type.js';

/** A function replaced by one whose arguments do not unify with its own. */
export interface WithFinding {
  kind: 'with';
  name: string;
  want: string;
  have: RegoType[];
  loc: Loc;
}

/** What a `data` ref names, as the typer knows the rules; undefined when not certain. */
export type DataTarget = { kind: 'function'; args: RegoType[] | undefined } | { kind: 'rule' } | { kind: 'base' };

export interface WithContext {
  typeOf(t: Term): MaybeType;
  dataTarget(ref: RefTerm): DataTarget | undefined;
}

export interface WithTypes {
  /** The first replacement OPA refuses, if any. */
  finding?: WithFinding;
  /** The rules the expression reads replaced, each typed as the union of its own type and its value's. */
  data: Array<{ path: string[]; type: RegoType }>;
}

/** A function's name and argument types (`undefined` args: a user function whose type is not certain). */
type Fn = { name: string; args: RegoType[] | undefined; want: (args: RegoType[]) => string };

const builtin = (name: string | undefined): Fn | undefined => {
  const decl = name === undefined ? undefined : builtinDecl(name);
  return decl === undefined || name === undefined ? undefined : { name, args: decl.types.slice(0, -1), want: () => decl.wantArgs };
};

/** The function a term names (a builtin, or a user function by its `data` ref), or undefined when it names none. */
function functionOf(t: Term, ctx: WithContext): Fn | 'uncertain' | undefined {
  if (t.type === 'var') return builtin(t.name);
  if (t.type !== 'ref') return undefined;
  const head = t.terms[0];
  if (head?.type !== 'var' || head.name !== 'data') return builtin(refName(t));
  const target = ctx.dataTarget(t);
  if (target === undefined) return 'uncertain';
  if (target.kind !== 'function') return undefined;
  return { name: refToString(t), args: target.args, want: (args) => `(${args.map(printType).join(', ')})` };
}

/** The rule path a `data` ref names (its operands all strings). */
function dataPath(ref: RefTerm): string[] | undefined {
  const path: string[] = [];
  for (const t of ref.terms.slice(1)) {
    if (t.type !== 'string') return undefined;
    path.push(t.value);
  }
  return path;
}

/** The `with`s of an expression as OPA's checker takes them; undefined when our inference is not certain of OPA's answer. */
export function withTypes(withs: ReadonlyArray<{ target: Term; value: Term; loc: Loc }>, ctx: WithContext): WithTypes | undefined {
  const out: WithTypes = { data: [] };
  for (const w of withs) {
    const target = w.target;
    if (target.type === 'ref' && target.terms[0]?.type === 'var' && target.terms[0].name === 'input') continue;
    const fn = functionOf(target, ctx);
    if (fn === 'uncertain') return undefined;
    if (fn !== undefined) {
      const value = functionOf(w.value, ctx);
      if (value === 'uncertain') return undefined;
      if (value === undefined || out.finding !== undefined) continue;
      if (fn.args === undefined || value.args === undefined) return undefined;
      const [want, have] = [fn.args, value.args];
      if (have.length !== want.length || want.some((t, i) => !fits(t, have[i]))) {
        out.finding = { kind: 'with', name: fn.name, want: fn.want(want), have, loc: w.loc };
      }
      continue;
    }
    if (target.type !== 'ref') return undefined;
    const kind = ctx.dataTarget(target)?.kind;
    const path = dataPath(target);
    if (kind === 'base') continue;
    if (kind !== 'rule' || path === undefined) return undefined;
    const value = ctx.typeOf(w.value);
    out.data.push({ path, type: value === undefined ? UNKNOWN : (or(ctx.typeOf(target), value) ?? UNKNOWN) });
  }
  return out;
}
