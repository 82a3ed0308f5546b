/** Helpers for calling builtin definitions directly in unit tests. */
import { BuiltinError, type BuiltinContext, type BuiltinDefinition } from '../../../runtime/policy/builtins/registry.js';
import type { Value } from '../../../runtime/policy/value.js';

/** A context with a fixed evaluation time and a fresh per-query cache. */
export function fakeContext(timeNs = 1_700_000_000_123_456_789n): BuiltinContext {
  return { location: undefined, timeNs, cache: new Map(), print: () => {} };
}

/** Calls the builtin `name` from `family` and returns its result (undefined when undefined). */
export function call(family: readonly BuiltinDefinition[], name: string, args: Value[], ctx = fakeContext()): Value | undefined {
  const def = family.find((d) => d.name === name);
  if (def === undefined) throw new Error(`no builtin ${name}`);
  if (def.args.length !== args.length) throw new Error(`${name} takes ${def.args.length} arguments, got ${args.length}`);
  return def.impl(args, ctx) as Value | undefined;
}

/** Calls the builtin and returns the BuiltinError it throws (fails when it does not throw one). */
export function callError(family: readonly BuiltinDefinition[], name: string, args: Value[], ctx = fakeContext()): BuiltinError {
  try {
    call(family, name, args, ctx);
  } catch (e) {
    if (e instanceof BuiltinError) return e;
    throw e;
  }
  throw new Error(`${name} did not fail`);
}
