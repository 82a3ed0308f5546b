/**
 * Compiled expressions (closures over compiled terms): unification, calls,
 * negation, `every`, `with`, and body sequencing. Each is an {@link ExprFn}
 * that calls its continuation once per solution and undoes its bindings
 * before returning (backtracking).
 */
import { PolicyError, type SourceLocation } from '../errors.js';
import { equal as equalKey, RegoObject, RegoSet, type Value } from '../value.js';
import { invoke, type CallTarget } from './calls.js';
import { Env, type DataOverrides, type ExprFn, type Frame, type FuncReplacement, type K, step } from './env.js';
import { enumerate, setPath } from './paths.js';
import { ArrayT, type CTerm, evalAll, ObjectT } from './terms.js';

export function seq(fns: ExprFn[]): ExprFn {
  if (fns.length === 0) return (_env, _f, k) => k();
  if (fns.length === 1) return fns[0] as ExprFn;
  const head = fns[0] as ExprFn;
  const tail = seq(fns.slice(1));
  // Each step from one expression to the next spends fuel: the evaluation budget's clock is read when it runs out.
  return (env, f, k) =>
    head(env, f, () => {
      const sh = env.shared;
      if (--sh.fuel < 0) sh.outOfFuel();
      return tail(env, f, k);
    });
}

export function termExpr(t: CTerm): ExprFn {
  return (env, f, k) => t.eval(env, f, (v) => v !== false && k());
}

function unbound(): never {
  throw new PolicyError({ code: 'eval_internal_error', detail: 'cannot unify two unbound terms' });
}

/** Unifies two compiled terms (either may be a pattern with unbound vars). */
export function unifyTerms(env: Env, f: Frame, a: CTerm, b: CTerm, k: K): boolean {
  if (a.dynamic) return a.eval(env, f, (v) => b.unify(env, f, v, k));
  if (b.dynamic) return b.eval(env, f, (v) => a.unify(env, f, v, k));
  const va = a.get(env, f);
  if (va !== undefined) return b.unify(env, f, va, k);
  const vb = b.get(env, f);
  if (vb !== undefined) return a.unify(env, f, vb, k);
  if (a instanceof ArrayT && b instanceof ArrayT) {
    if (a.items.length !== b.items.length) return false;
    const go = (i: number): boolean => (i === a.items.length ? k() : unifyTerms(env, f, a.items[i] as CTerm, b.items[i] as CTerm, () => go(i + 1)));
    return go(0);
  }
  if (a instanceof ObjectT && b instanceof ObjectT) {
    if (a.entries.length !== b.entries.length) return false;
    const pairs: Array<[CTerm, CTerm]> = [];
    for (const [ka, va2] of a.entries) {
      const kv = ka.get(env, f);
      if (kv === undefined) return unbound();
      const match = b.entries.find(([kb]) => {
        const x = kb.get(env, f);
        return x !== undefined && equalKey(x, kv);
      });
      if (match === undefined) return false;
      pairs.push([va2, match[1]]);
    }
    const go = (i: number): boolean =>
      i === pairs.length ? k() : unifyTerms(env, f, (pairs[i] as [CTerm, CTerm])[0], (pairs[i] as [CTerm, CTerm])[1], () => go(i + 1));
    return go(0);
  }
  return unbound();
}

export function unifyExpr(a: CTerm, b: CTerm): ExprFn {
  return (env, f, k) => unifyTerms(env, f, a, b, k);
}

function argValue(t: CTerm, env: Env, f: Frame): Value {
  const v = t.get(env, f);
  if (v === undefined) throw new PolicyError({ code: 'eval_internal_error', detail: 'call argument is unbound' });
  return v;
}

/** `op(args)` or `op(args, out)`: a result of `false` without an output argument fails. */
export function callExpr(target: CallTarget, args: CTerm[], arity: number, loc: SourceLocation): ExprFn {
  const inputs = args.slice(0, arity);
  const out = args.length > arity ? args[arity] : undefined;
  const allStatic = inputs.every((t) => !t.dynamic);
  if (allStatic) {
    if (out === undefined) {
      if (arity === 2) {
        const [a0, a1] = inputs as [CTerm, CTerm];
        return (env, f, k) => invoke(env, target, [argValue(a0, env, f), argValue(a1, env, f)], loc, (r) => r !== false && k());
      }
      return (env, f, k) => {
        const vals: Value[] = new Array(arity);
        for (let i = 0; i < arity; i++) vals[i] = argValue(inputs[i] as CTerm, env, f);
        return invoke(env, target, vals, loc, (r) => r !== false && k());
      };
    }
    return (env, f, k) => {
      const vals: Value[] = new Array(arity);
      for (let i = 0; i < arity; i++) vals[i] = argValue(inputs[i] as CTerm, env, f);
      return invoke(env, target, vals, loc, (r) => out.unify(env, f, r, k));
    };
  }
  return (env, f, k) =>
    evalAll(env, f, inputs, (vals) => invoke(env, target, vals, loc, (r) => (out === undefined ? r !== false && k() : out.unify(env, f, r, k))));
}

export function notExpr(inner: ExprFn): ExprFn {
  return (env, f, k) => {
    let found = false;
    inner(env, f, () => {
      found = true;
      return true;
    });
    return !found && k();
  };
}

/**
 * `every k, v in domain { body }`: true when the body holds for each member.
 * As in OPA, a domain that is not a collection (a number, string, boolean or
 * null) makes the expression undefined, not vacuously true: `every r in
 * input.roles { r != "banned" }` must not pass when `roles` is the string
 * "banned".
 */
export function everyExpr(domain: CTerm, key: CTerm | undefined, value: CTerm, body: ExprFn): ExprFn {
  return (env, f, k) =>
    domain.eval(env, f, (dv) => {
      if (!isCollection(dv)) return false;
      let all = true;
      enumerate(dv, (kv, vv) => {
        step(env.shared);
        let ok = false;
        const run = (): boolean => {
          body(env, f, () => {
            ok = true;
            return true;
          });
          return true;
        };
        const bindValue = (): boolean => value.unify(env, f, vv, run);
        if (key === undefined) bindValue();
        else key.unify(env, f, kv, bindValue);
        if (!ok) {
          all = false;
          return true;
        }
        return false;
      });
      return all && k();
    });
}

export type CompiledWith =
  | { kind: 'input'; path: Value[]; value: CTerm }
  | { kind: 'data'; path: Value[]; value: CTerm }
  /** A data target replaced by a function (`with data.q as f`): as in OPA, the expression runs with the target undefined. */
  | { kind: 'data-absent'; path: Value[] }
  | { kind: 'func'; key: string; replacement: FuncReplacement | undefined; value: CTerm };

export function withExpr(inner: ExprFn, withs: CompiledWith[]): ExprFn {
  return (env, f, k) => {
    let input = env.input;
    let overrides: DataOverrides | null = env.overrides;
    let funcs = env.funcs;
    for (const w of withs) {
      if (w.kind === 'func' && w.replacement !== undefined) {
        funcs = new Map(funcs ?? []);
        funcs.set(w.key, w.replacement);
        continue;
      }
      if (w.kind === 'data-absent') {
        overrides = { targets: [...(overrides?.targets ?? []), w.path], value: overrides?.value ?? new RegoObject() };
        continue;
      }
      const v = w.value.get(env, f);
      if (v === undefined) return false;
      switch (w.kind) {
        case 'input':
          input = w.path.length === 0 ? v : setPath(input, w.path, v);
          break;
        case 'data':
          overrides = {
            targets: [...(overrides?.targets ?? []), w.path],
            value: setPath(overrides?.value, w.path, v) as RegoObject,
          };
          break;
        case 'func':
          funcs = new Map(funcs ?? []);
          funcs.set(w.key, { kind: 'value', value: v });
          break;
      }
    }
    return inner(new Env(input, env.data, env.shared, overrides, funcs), f, k);
  };
}

function isCollection(value: Value | undefined): boolean {
  return Array.isArray(value) || value instanceof RegoObject || value instanceof RegoSet;
}
