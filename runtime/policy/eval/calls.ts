/**
 * Invocation of builtins and user functions, honouring `with` replacements
 * (`with f as g`, `with count as 1`). Builtin errors are recorded and make the
 * call undefined; strict mode raises one at once, as OPA halts on it (so a
 * conflict met later in the evaluation does not take its place).
 */
import { BuiltinError, type BuiltinDefinition } from '../builtins/registry.js';
import type { RuleNode } from '../compiler/rule-tree.js';
import { PolicyError, type SourceLocation } from '../errors.js';
import { RegoNumText, type Value } from '../value.js';
import { Env, type ValK } from './env.js';
import { callFunction } from './rules.js';

export type CallTarget = { kind: 'builtin'; def: BuiltinDefinition; key: string } | { kind: 'function'; node: RuleNode; key: string };

const FAILED: unique symbol = Symbol('failed');

/** The arguments with numbers' kept text dropped (the same array when there is none). */
function plainArgs(args: Value[]): Value[] {
  let out = args;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a instanceof RegoNumText) {
      if (out === args) out = args.slice();
      out[i] = a.value;
    }
  }
  return out;
}

function callBuiltin(env: Env, def: BuiltinDefinition, args: Value[], loc: SourceLocation | undefined): Value | undefined | Value[] | typeof FAILED {
  const sh = env.shared;
  sh.location = loc;
  try {
    return def.impl(def.keepsNumberText === true ? args : plainArgs(args), sh);
  } catch (e) {
    if (PolicyError.isInstance(e)) throw e;
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw e;
    const msg = e instanceof Error ? e.message : String(e);
    const code = e instanceof BuiltinError && e.kind === 'type' ? 'eval_type_error' : 'eval_builtin_error';
    const error = new PolicyError({ code, detail: `${def.name}: ${msg}`, location: loc });
    sh.errors.push(error);
    if (sh.strict) throw error;
    return FAILED;
  }
}

function runBuiltin(env: Env, def: BuiltinDefinition, args: Value[], loc: SourceLocation | undefined, cb: ValK): boolean {
  const res = callBuiltin(env, def, args, loc);
  if (res === FAILED) return false;
  if (res === undefined) return def.result === undefined ? cb(true) : false;
  if (def.relation) {
    for (const r of res as Value[]) if (cb(r)) return true;
    return false;
  }
  return cb(res as Value);
}

/** Calls `target` with argument values; `cb` receives each result. */
export function invoke(env: Env, target: CallTarget, args: Value[], loc: SourceLocation | undefined, cb: ValK): boolean {
  if (env.funcs !== null) {
    const r = env.funcs.get(target.key);
    if (r !== undefined) {
      switch (r.kind) {
        case 'value':
          return cb(r.value);
        case 'builtin':
          return runBuiltin(env, r.def, args, loc, cb);
        case 'function': {
          // Replacements are not in effect inside a replacement function (it may call the original).
          const inner = new Env(env.input, env.data, env.shared, env.overrides, null);
          const v = callFunction(inner, r.node, args, loc);
          return v === undefined ? false : cb(v);
        }
      }
    }
  }
  if (target.kind === 'builtin') return runBuiltin(env, target.def, args, loc, cb);
  const v = callFunction(env, target.node, args, loc);
  return v === undefined ? false : cb(v);
}
