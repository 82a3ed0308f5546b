/**
 * Compiled terms. Every term can be evaluated (`eval`: each value it takes,
 * binding the unbound vars of ref operands while enumerating) and unified
 * with a value (`unify`: binding unbound vars of a pattern). Terms without
 * refs, calls or comprehensions are not `dynamic`; their `get` returns the
 * value, or undefined while a var in them is unbound.
 */
import { PolicyError } from '../errors.js';
import { equal, RegoObject, RegoSet, type Value } from '../value.js';
import { Env, type ExprFn, type Frame, type K, step, type ValK } from './env.js';
import { enumerate, getPath, lookup } from './paths.js';

export interface CTerm {
  /** Needs evaluation (contains a ref, call or comprehension). */
  readonly dynamic: boolean;
  get(env: Env, f: Frame): Value | undefined;
  eval(env: Env, f: Frame, k: ValK): boolean;
  unify(env: Env, f: Frame, v: Value, k: K): boolean;
}

export class ConstT implements CTerm {
  readonly dynamic = false;
  constructor(readonly value: Value) {}
  get(): Value {
    return this.value;
  }
  eval(_env: Env, _f: Frame, k: ValK): boolean {
    return k(this.value);
  }
  unify(_env: Env, _f: Frame, v: Value, k: K): boolean {
    return (v === this.value || equal(v, this.value)) && k();
  }
}

export class VarT implements CTerm {
  readonly dynamic = false;
  constructor(
    readonly slot: number,
    readonly name: string,
  ) {}
  get(_env: Env, f: Frame): Value | undefined {
    return f[this.slot];
  }
  eval(_env: Env, f: Frame, k: ValK): boolean {
    const v = f[this.slot];
    if (v === undefined) throw new PolicyError({ code: 'eval_internal_error', detail: `var ${this.name} is unbound` });
    return k(v);
  }
  unify(_env: Env, f: Frame, v: Value, k: K): boolean {
    const cur = f[this.slot];
    if (cur === undefined) {
      f[this.slot] = v;
      const stop = k();
      f[this.slot] = undefined;
      return stop;
    }
    return (cur === v || equal(cur, v)) && k();
  }
}

/** Evaluates terms left to right (each may enumerate), then calls `k` with their values. */
export function evalAll(env: Env, f: Frame, terms: readonly CTerm[], k: (vals: Value[]) => boolean): boolean {
  const vals: Value[] = new Array(terms.length);
  const go = (i: number): boolean => {
    if (i === terms.length) return k(vals.slice());
    return (terms[i] as CTerm).eval(env, f, (v) => {
      vals[i] = v;
      return go(i + 1);
    });
  };
  return go(0);
}

export class ArrayT implements CTerm {
  readonly dynamic: boolean;
  constructor(readonly items: CTerm[]) {
    this.dynamic = items.some((t) => t.dynamic);
  }
  get(env: Env, f: Frame): Value | undefined {
    const n = this.items.length;
    const out: Value[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const v = (this.items[i] as CTerm).get(env, f);
      if (v === undefined) return undefined;
      out[i] = v;
    }
    return out;
  }
  eval(env: Env, f: Frame, k: ValK): boolean {
    if (!this.dynamic) {
      const v = this.get(env, f);
      return v !== undefined && k(v);
    }
    return evalAll(env, f, this.items, (vals) => k(vals));
  }
  unify(env: Env, f: Frame, v: Value, k: K): boolean {
    if (!Array.isArray(v) || v.length !== this.items.length) return false;
    const items = this.items;
    const go = (i: number): boolean => (i === items.length ? k() : (items[i] as CTerm).unify(env, f, v[i] as Value, () => go(i + 1)));
    return go(0);
  }
}

export class ObjectT implements CTerm {
  readonly dynamic: boolean;
  constructor(readonly entries: Array<[CTerm, CTerm]>) {
    this.dynamic = entries.some(([a, b]) => a.dynamic || b.dynamic);
  }
  get(env: Env, f: Frame): Value | undefined {
    const o = new RegoObject();
    for (const [kt, vt] of this.entries) {
      const k = kt.get(env, f);
      const v = vt.get(env, f);
      if (k === undefined || v === undefined) return undefined;
      o.set(k, v);
    }
    return o;
  }
  eval(env: Env, f: Frame, k: ValK): boolean {
    if (!this.dynamic) {
      const v = this.get(env, f);
      return v !== undefined && k(v);
    }
    const flat = this.entries.flat();
    return evalAll(env, f, flat, (vals) => {
      const o = new RegoObject();
      for (let i = 0; i < vals.length; i += 2) o.set(vals[i] as Value, vals[i + 1] as Value);
      return k(o);
    });
  }
  unify(env: Env, f: Frame, v: Value, k: K): boolean {
    if (!(v instanceof RegoObject) || v.size !== this.entries.length) return false;
    const entries = this.entries;
    const go = (i: number): boolean => {
      if (i === entries.length) return k();
      const [kt, vt] = entries[i] as [CTerm, CTerm];
      const key = kt.get(env, f);
      if (key === undefined) return false;
      const member = v.get(key);
      return member !== undefined && vt.unify(env, f, member, () => go(i + 1));
    };
    return go(0);
  }
}

export class SetT implements CTerm {
  readonly dynamic: boolean;
  constructor(readonly items: CTerm[]) {
    this.dynamic = items.some((t) => t.dynamic);
  }
  get(env: Env, f: Frame): Value | undefined {
    const s = new RegoSet();
    for (const t of this.items) {
      const v = t.get(env, f);
      if (v === undefined) return undefined;
      s.add(v);
    }
    return s;
  }
  eval(env: Env, f: Frame, k: ValK): boolean {
    if (!this.dynamic) {
      const v = this.get(env, f);
      return v !== undefined && k(v);
    }
    return evalAll(env, f, this.items, (vals) => k(RegoSet.of(vals)));
  }
  unify(env: Env, f: Frame, v: Value, k: K): boolean {
    return this.eval(env, f, (x) => equal(x, v) && k());
  }
}

/** Walks `v` along `ops` from index `i`, enumerating where an operand is not ground. */
export function walkValue(env: Env, f: Frame, v: Value, ops: readonly CTerm[], i: number, k: ValK): boolean {
  if (i === ops.length) return k(v);
  const op = ops[i] as CTerm;
  if (!op.dynamic) {
    const key = op.get(env, f);
    if (key !== undefined) {
      const c = lookup(v, key);
      return c !== undefined && walkValue(env, f, c, ops, i + 1, k);
    }
    return enumerate(v, (key, val) => op.unify(env, f, key, () => walkValue(env, f, val, ops, i + 1, k)));
  }
  return op.eval(env, f, (key) => {
    const c = lookup(v, key);
    return c !== undefined && walkValue(env, f, c, ops, i + 1, k);
  });
}

/** A ref whose head is `input`, a local var, or a composite term. */
export class RefT implements CTerm {
  readonly dynamic = true;
  /** Constant operand path, when every operand is a constant. */
  private readonly path: Value[] | undefined;

  constructor(
    /** undefined head = `input` */
    readonly head: CTerm | undefined,
    readonly ops: CTerm[],
  ) {
    const allConst = ops.every((o) => o instanceof ConstT);
    this.path = allConst ? ops.map((o) => (o as ConstT).value) : undefined;
  }

  private headValue(env: Env, f: Frame): Value | undefined {
    return this.head === undefined ? env.input : this.head.get(env, f);
  }

  get(env: Env, f: Frame): Value | undefined {
    if (this.path === undefined || (this.head !== undefined && this.head.dynamic)) return undefined;
    const h = this.headValue(env, f);
    if (h === undefined) return undefined;
    const p = this.path;
    let cur: Value | undefined = h;
    for (let i = 0; i < p.length; i++) {
      cur = lookup(cur, p[i] as Value);
      if (cur === undefined) return undefined;
    }
    return cur;
  }

  eval(env: Env, f: Frame, k: ValK): boolean {
    if (this.head !== undefined && this.head.dynamic) {
      return this.head.eval(env, f, (h) => walkValue(env, f, h, this.ops, 0, k));
    }
    const h = this.headValue(env, f);
    if (h === undefined) return false;
    if (this.path !== undefined) {
      const v = getPath(h, this.path);
      return v !== undefined && k(v);
    }
    return walkValue(env, f, h, this.ops, 0, k);
  }

  unify(env: Env, f: Frame, v: Value, k: K): boolean {
    return this.eval(env, f, (x) => (x === v || equal(x, v)) && k());
  }
}

export type CompKind = 'array' | 'set' | 'object';

export class CompT implements CTerm {
  readonly dynamic = true;
  constructor(
    readonly kind: CompKind,
    readonly body: ExprFn,
    readonly term: CTerm,
    readonly valueTerm: CTerm | undefined,
    readonly loc: import('../errors.js').SourceLocation,
  ) {}

  get(env: Env, f: Frame): Value {
    const term = this.term;
    switch (this.kind) {
      case 'array': {
        const out: Value[] = [];
        this.body(env, f, () => (step(env.shared), term.eval(env, f, (v) => (out.push(v), false))));
        return out;
      }
      case 'set': {
        const out = new RegoSet();
        this.body(env, f, () => (step(env.shared), term.eval(env, f, (v) => (out.add(v), false))));
        return out;
      }
      default: {
        const out = new RegoObject();
        const vt = this.valueTerm as CTerm;
        this.body(env, f, () => {
          step(env.shared);
          return term.eval(env, f, (key) =>
            vt.eval(env, f, (val) => {
              const cur = out.get(key);
              if (cur !== undefined && !equal(cur, val)) {
                throw new PolicyError({ code: 'eval_conflict_error', detail: 'object keys must be unique', location: this.loc });
              }
              out.set(key, val);
              return false;
            }),
          );
        });
        return out;
      }
    }
  }

  eval(env: Env, f: Frame, k: ValK): boolean {
    return k(this.get(env, f));
  }

  unify(env: Env, f: Frame, v: Value, k: K): boolean {
    return equal(this.get(env, f), v) && k();
  }
}
