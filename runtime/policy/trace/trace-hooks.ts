/**
 * Wrappers the code generator puts around compiled bodies and expressions
 * when a policy is compiled for tracing, emitting OPA's events in OPA's
 * order: a query is `Enter`ed, `Exit`s once per solution (then its caller
 * goes on) and is `Redo`ne when the search comes back into it; an expression
 * is `Eval`uated, `Redo`ne after each solution, and `Fail`s when it had none.
 * Closures of untraced policies never contain these wrappers.
 */
import type { Env, ExprFn, Frame, K } from '../eval/env.js';
import type { Value } from '../value.js';
import type { TraceNode } from './trace-event.js';
import type { TraceRecorder } from './trace-recorder.js';

/** The variables bound in a frame, by their names in the policy. */
export type LocalsOf = (f: Frame) => Array<[string, Value]>;

function recorder(env: Env): TraceRecorder | undefined {
  return env.shared.trace;
}

/**
 * A query: the top-level query (id 0), a rule body, or a nested body
 * (negation, comprehension, `every`), which gets a fresh id whose parent
 * is the query it is evaluated from. `early` (read when the query exits) adds
 * OPA's `early` message to `Exit`: the rule is evaluated for its first value only.
 */
export function tracedQuery(options: { body: ExprFn; node: TraceNode; top: boolean; locals: LocalsOf; early?: { value: boolean } }): ExprFn {
  const { body, node, top, locals, early } = options;
  return (env, f, k) => {
    const t = recorder(env);
    if (t === undefined) return body(env, f, k);
    const outerQ = t.queryId;
    const outerP = t.parentId;
    const q = top ? 0 : t.open();
    const p = top ? 0 : outerQ;
    const enter = (): void => {
      t.queryId = q;
      t.parentId = p;
    };
    const leave = (): void => {
      t.queryId = outerQ;
      t.parentId = outerP;
    };
    enter();
    t.emit('Enter', node, { locals: locals(f) });
    try {
      return body(env, f, () => {
        enter();
        t.emit('Exit', node, { locals: locals(f), ...(early?.value ? { message: 'early' } : {}) });
        leave();
        const stop = k();
        enter();
        t.emit('Redo', node, { locals: locals(f) });
        return stop;
      });
    } finally {
      leave();
    }
  };
}

/** An expression: `Eval`, then `Redo` after each solution, or `Fail` when there was none. */
export function tracedExpr(options: { inner: ExprFn; node: TraceNode; locals: LocalsOf }): ExprFn {
  const { inner, node, locals } = options;
  return (env, f, k) => {
    const t = recorder(env);
    if (t === undefined) return inner(env, f, k);
    const q = t.queryId;
    const p = t.parentId;
    const here = (): void => {
      t.queryId = q;
      t.parentId = p;
    };
    t.emit('Eval', node, { locals: locals(f) });
    let defined = false;
    const stop = inner(env, f, () => {
      defined = true;
      here();
      const s = k();
      here();
      t.emit('Redo', node, { locals: locals(f) });
      return s;
    });
    here();
    if (!defined) t.emit('Fail', node, { locals: locals(f) });
    return stop;
  };
}

/**
 * `not expr` as OPA evaluates it: `Eval` of the negated expression, then its
 * complement as a nested query searched to the end (every solution is traced); when it had a
 * solution the negation `Fail`s, otherwise the body goes on (no `Redo`, as in OPA).
 */
export function tracedNot(options: { complement: ExprFn; node: TraceNode; locals: LocalsOf }): ExprFn {
  const { complement, node, locals } = options;
  return (env: Env, f: Frame, k: K) => {
    const t = recorder(env);
    let found = false;
    if (t === undefined) {
      complement(env, f, () => (found = true));
      return !found && k();
    }
    const q = t.queryId;
    const p = t.parentId;
    t.emit('Eval', node, { locals: locals(f) });
    complement(env, f, () => {
      found = true;
      return false;
    });
    t.queryId = q;
    t.parentId = p;
    if (found) {
      t.emit('Fail', node, { locals: locals(f) });
      return false;
    }
    return k();
  };
}

/**
 * The nested query OPA opens for an `every` expression (`Enter` with the
 * expression as node, `Exit` once every member satisfied the body, `Fail`
 * when one did not); the
 * bodies run per member are nested queries of it.
 */
export function tracedEveryScope(options: { inner: ExprFn; node: TraceNode; locals: LocalsOf }): ExprFn {
  const { inner, node, locals } = options;
  return (env, f, k) => {
    const t = recorder(env);
    if (t === undefined) return inner(env, f, k);
    const outerQ = t.queryId;
    const outerP = t.parentId;
    const q = t.open();
    t.queryId = q;
    t.parentId = outerQ;
    t.emit('Enter', node, { locals: locals(f) });
    let held = false;
    try {
      const stop = inner(env, f, () => {
        held = true;
        t.queryId = q;
        t.parentId = outerQ;
        t.emit('Exit', node, { locals: locals(f) });
        t.queryId = outerQ;
        t.parentId = outerP;
        return k();
      });
      if (!held) {
        t.queryId = q;
        t.parentId = outerQ;
        t.emit('Fail', node, { locals: locals(f) });
      }
      return stop;
    } finally {
      t.queryId = outerQ;
      t.parentId = outerP;
    }
  };
}
