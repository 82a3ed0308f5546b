/**
 * Built-in function registry.
 *
 * A builtin is a {@link BuiltinDefinition}: its name (`"count"`,
 * `"strings.replace_n"`), declared argument types (the arity is checked at
 * compile time: a wrong number of arguments is a `rego_type_error`), and an
 * implementation that receives the argument values and returns the result
 * value, or `undefined` when the call is undefined.
 *
 * Errors: throw {@link BuiltinError}. Use {@link operandTypeError} (or
 * `BuiltinError.type(...)`) for a wrong argument type (reported as
 * `eval_type_error`, e.g. `count: operand 1 must be one of {array, object,
 * set, string} but got number`) and `new BuiltinError('message')` for other
 * failures (`eval_builtin_error`, e.g. `div: divide by zero`). The evaluator
 * prefixes the builtin name. As in OPA, a builtin error makes the expression
 * undefined unless strict builtin errors are requested, in which case the
 * query fails with the first error.
 *
 * Adding a family: write `builtins/<family>.ts` exporting
 * `export const xyzBuiltins: BuiltinDefinition[] = [...]` and add it to the
 * list in `builtins/index.ts`.
 *
 * @example
 * export const upperBuiltins: BuiltinDefinition[] = [
 *   {
 *     name: 'upper',
 *     args: ['string'],
 *     result: 'string',
 *     impl: ([s]) => asString(s, 1).toUpperCase(),
 *   },
 * ];
 */
import { isNumber, type NumberValue, RegoNumText, RegoObject, RegoSet, typeName, type Value } from '../value.js';
import { type SourceLocation, unsupported } from '../errors.js';
import { OPA_BUILTIN_ARITY } from './known-names.js';

/** Argument/result type names, for arity checks and documentation. */
export type ArgType = 'any' | 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'set' | 'collection' | (string & {});

export interface BuiltinContext {
  /** Location of the call being evaluated. */
  readonly location: SourceLocation | undefined;
  /** Evaluation time in nanoseconds since the epoch; fixed for one query (time.now_ns). */
  readonly timeNs: bigint;
  /** Per-query cache for builtins (e.g. compiled patterns). Keys should be namespaced by builtin. */
  readonly cache: Map<string, unknown>;
  /** Writes a `print` line (no-op unless the caller installed a print hook). */
  print(message: string): void;
  /** Records a `trace` note (no-op unless the caller installed a note hook, as `?explain=notes` does). */
  note?(message: string): void;
  /**
   * Milliseconds left in the evaluation budget (Infinity without one). A
   * builtin that waits (for the network) waits no longer than this, and
   * throws `eval_cancel_error` (see {@link BuiltinContext.checkBudget}) when the budget ran out first.
   */
  budgetLeftMs?(): number;
  /** Throws `eval_cancel_error` when the evaluation budget is spent. */
  checkBudget?(): void;
  /**
   * Asks leave to reach the network, before anything is sent (http.send,
   * net.lookup_ip_addr). Throws a `PolicyError` when this evaluation may not:
   * refused outright (an ad-hoc query without the operator's leave), or to be
   * run again where waiting blocks nothing (see `EvalOptions.network`).
   */
  useNetwork?(builtin: string): void;
}

export interface BuiltinDefinition {
  name: string;
  /** Declared arguments (their count is the arity). */
  args: readonly ArgType[];
  /** Result type; omit for void builtins (they succeed without producing a value). */
  result?: ArgType;
  /** Relations (e.g. `walk`) return every result as an array; each is one solution. */
  relation?: boolean;
  /** Results differ between calls with the same arguments (time, random). */
  nondeterministic?: boolean;
  /**
   * The builtin sees a number argument's kept text (`1e3`, see RegoNumText);
   * every other builtin gets the plain number.
   */
  keepsNumberText?: boolean;
  impl(args: Value[], ctx: BuiltinContext): Value | undefined | Value[];
}

/** An error raised by a builtin implementation. */
export class BuiltinError extends Error {
  /** `type` errors become `eval_type_error`, others `eval_builtin_error`. */
  readonly kind: 'type' | 'builtin';

  constructor(message: string, kind: 'type' | 'builtin' = 'builtin') {
    super(message);
    this.name = 'BuiltinError';
    this.kind = kind;
  }

  static type(message: string): BuiltinError {
    return new BuiltinError(message, 'type');
  }
}

/** `operand N must be T but got U` / `operand N must be one of {T1, T2} but got U`. */
export function operandTypeError(pos: number, got: Value, ...expected: string[]): BuiltinError {
  const what = expected.length === 1 ? expected[0] : `one of {${expected.join(', ')}}`;
  return BuiltinError.type(`operand ${pos} must be ${what} but got ${typeName(got)}`);
}

/** `operand N must be array of strings but got array containing number`. */
export function operandElementError(pos: number, composite: Value, got: Value, ...expected: string[]): BuiltinError {
  const t = typeName(composite);
  if (expected.length === 1) return BuiltinError.type(`operand ${pos} must be ${t} of ${expected[0]}s but got ${t} containing ${typeName(got)}`);
  return BuiltinError.type(`operand ${pos} must be ${t} of (any of) {${expected.join(', ')}} but got ${t} containing ${typeName(got)}`);
}

export function asString(v: Value | undefined, pos: number): string {
  if (typeof v !== 'string') throw operandTypeError(pos, v ?? null, 'string');
  return v;
}

/**
 * A number operand as a JS number or bigint. An exact decimal that a double
 * cannot hold (e.g. 1e-400) is rounded to the nearest double; use
 * {@link asNumberValue} to keep it exact.
 */
export function asNumber(v: Value | undefined, pos: number): number | bigint {
  if (!isNumber(v)) throw operandTypeError(pos, v ?? null, 'number');
  return typeof v === 'object' ? v.toNumber() : v;
}

/** A number operand, exactly (number, bigint or RegoDecimal). */
export function asNumberValue(v: Value | undefined, pos: number): NumberValue {
  if (!isNumber(v)) throw operandTypeError(pos, v ?? null, 'number');
  return v instanceof RegoNumText ? v.value : v;
}

export function asArray(v: Value | undefined, pos: number): Value[] {
  if (!Array.isArray(v)) throw operandTypeError(pos, v ?? null, 'array');
  return v;
}

export function asObject(v: Value | undefined, pos: number): RegoObject {
  if (!(v instanceof RegoObject)) throw operandTypeError(pos, v ?? null, 'object');
  return v;
}

export function asSet(v: Value | undefined, pos: number): RegoSet {
  if (!(v instanceof RegoSet)) throw operandTypeError(pos, v ?? null, 'set');
  return v;
}

export function asBoolean(v: Value | undefined, pos: number): boolean {
  if (typeof v !== 'boolean') throw operandTypeError(pos, v ?? null, 'boolean');
  return v;
}

/** An integer operand as a JS number (`must be integer number but got floating-point number`). */
export function asInt(v: Value | undefined, pos: number): number {
  const n = asNumberValue(v, pos);
  if (typeof n === 'bigint') {
    if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw BuiltinError.type(`operand ${pos} must be integer number but got floating-point number`);
    }
    return Number(n);
  }
  if (typeof n !== 'number' || !Number.isInteger(n)) throw BuiltinError.type(`operand ${pos} must be integer number but got floating-point number`);
  return n;
}

/** Elements of an array or set operand. */
export function asIterable(v: Value | undefined, pos: number, ...expected: string[]): readonly Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RegoSet) return v.values();
  throw operandTypeError(pos, v ?? null, ...(expected.length > 0 ? expected : ['set', 'array']));
}

/** A name → definition table. The engine uses {@link defaultRegistry} unless given another. */
export class BuiltinRegistry {
  private readonly defs = new Map<string, BuiltinDefinition>();

  constructor(definitions: Iterable<BuiltinDefinition> = []) {
    for (const d of definitions) this.register(d);
  }

  /** Adds or replaces a builtin. */
  register(def: BuiltinDefinition): this {
    this.defs.set(def.name, def);
    return this;
  }

  registerAll(defs: Iterable<BuiltinDefinition>): this {
    for (const d of defs) this.register(d);
    return this;
  }

  get(name: string): BuiltinDefinition | undefined {
    return this.defs.get(name);
  }

  has(name: string): boolean {
    return this.defs.has(name);
  }

  /**
   * The definition of `name`, or, for an OPA builtin not registered here, a
   * stub that compiles (so `with` can replace it) but raises `unsupported`
   * when called.
   */
  resolve(name: string): BuiltinDefinition | undefined {
    const def = this.defs.get(name);
    if (def !== undefined) return def;
    const arity = OPA_BUILTIN_ARITY.get(name);
    if (arity === undefined) return undefined;
    let stub = this.stubs.get(name);
    if (stub === undefined) {
      stub = {
        name,
        args: new Array<ArgType>(arity).fill('any'),
        result: 'any',
        impl: (_args, ctx) => {
          throw unsupported(`builtin function ${name}`, ctx.location);
        },
      };
      this.stubs.set(name, stub);
    }
    return stub;
  }

  private readonly stubs = new Map<string, BuiltinDefinition>();

  names(): string[] {
    return [...this.defs.keys()].sort();
  }

  /** A copy that can be extended without changing this registry. */
  clone(): BuiltinRegistry {
    return new BuiltinRegistry(this.defs.values());
  }
}
