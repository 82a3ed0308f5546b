/**
 * Evaluation environment. One {@link Shared} per query (options, recorded
 * builtin errors, builtin context); one {@link Env} per `with` scope (input,
 * data and function replacements, and the cache of virtual document values,
 * which must not leak across scopes).
 */
import type { BuiltinContext, BuiltinDefinition } from '../builtins/registry.js';
import type { RuleNode } from '../compiler/rule-tree.js';
import { PolicyError, type SourceLocation } from '../errors.js';
import type { TraceRecorder } from '../trace/trace-recorder.js';
import { equal, type RegoObject, type Value } from '../value.js';
import { getPath } from './paths.js';

/** Marker for "evaluated to undefined" in caches. */
export const NONE: unique symbol = Symbol('undefined');
export type Cached = Value | typeof NONE;

export type Frame = Array<Value | undefined>;
/** A continuation: return true to stop the enumeration. */
export type K = () => boolean;
export type ValK = (v: Value) => boolean;

export interface EvalOptions {
  /** Raise builtin errors instead of treating the call as undefined (OPA's strict-builtin-errors). */
  strictBuiltinErrors?: boolean;
  /** Receives `print` output; without it `print` does nothing. */
  print?: (message: string) => void;
  /** Evaluation time for time.now_ns, in ns since the epoch (default: now). */
  timeNs?: bigint;
  /**
   * Stops the evaluation with `eval_cancel_error` once it has run this many
   * milliseconds (the clock is read every {@link STEPS_PER_CLOCK_CHECK} steps). No limit by default.
   */
  budgetMs?: number;
  /**
   * Whether network builtins (http.send, net.lookup_ip_addr) may run:
   * `allow` (the default); `handover`: not here, the caller evaluates again
   * elsewhere (they throw `eval_cancel_error` marked {@link NETWORK_HANDOVER}
   * before sending anything); or `{ refuse }`: never, with that reason
   * (`eval_builtin_error`, raised whatever `strictBuiltinErrors` says).
   */
  network?: 'allow' | 'handover' | { refuse: string };
  /** Receives `trace(msg)` notes with the call's location (OPA's explain=notes). */
  note?: (message: string, location: SourceLocation | undefined) => void;
  /**
   * Receives the evaluation trace (OPA's explain). Only a policy compiled for
   * tracing records events (see `CompiledPolicy.traced`); others ignore it.
   */
  trace?: TraceRecorder;
}

/** The detail of the `eval_cancel_error` a network builtin throws under `network: 'handover'`. */
export const NETWORK_HANDOVER = 'the evaluation needs the network: it is handed to a worker before anything is sent';

/** Evaluation steps (expressions entered, comprehension solutions) between two reads of the clock. */
export const STEPS_PER_CLOCK_CHECK = 256;

export class Shared implements BuiltinContext {
  /** Builtin errors recorded while evaluating (the first one is raised in strict mode). */
  readonly errors: PolicyError[] = [];
  readonly strict: boolean;
  readonly timeNs: bigint;
  readonly cache = new Map<string, unknown>();
  location: SourceLocation | undefined = undefined;
  depth = 0;
  /** The trace being recorded, if any (read by the closures of a policy compiled for tracing). */
  readonly trace: TraceRecorder | undefined;
  /** Steps left before the next clock check; Infinity without a budget, so counting down never triggers one. */
  fuel: number;
  private readonly deadline: number;
  private readonly budgetMs: number | undefined;
  private readonly network: EvalOptions['network'];
  private readonly printHook: ((message: string) => void) | undefined;
  private readonly noteHook: ((message: string, location: SourceLocation | undefined) => void) | undefined;

  constructor(options: EvalOptions) {
    this.strict = options.strictBuiltinErrors === true;
    this.timeNs = options.timeNs ?? BigInt(Date.now()) * 1_000_000n;
    this.printHook = options.print;
    this.noteHook = options.note;
    this.trace = options.trace;
    this.budgetMs = options.budgetMs;
    this.network = options.network;
    this.fuel = options.budgetMs === undefined ? Infinity : STEPS_PER_CLOCK_CHECK;
    this.deadline = options.budgetMs === undefined ? Infinity : performance.now() + options.budgetMs;
  }

  /** Called when `fuel` runs out: throws `eval_cancel_error` past the deadline, otherwise refuels. */
  outOfFuel(): void {
    this.checkBudget();
    this.fuel = STEPS_PER_CLOCK_CHECK;
  }

  budgetLeftMs(): number {
    return this.deadline - performance.now();
  }

  checkBudget(): void {
    if (performance.now() > this.deadline) {
      throw new PolicyError({ code: 'eval_cancel_error', detail: `caller cancelled query execution: the evaluation budget of ${this.budgetMs} ms was spent` });
    }
  }

  useNetwork(builtin: string): void {
    const network = this.network;
    if (network === undefined || network === 'allow') return;
    if (network === 'handover') throw new PolicyError({ code: 'eval_cancel_error', detail: NETWORK_HANDOVER });
    throw new PolicyError({ code: 'eval_builtin_error', detail: `${builtin}: ${network.refuse}`, location: this.location });
  }

  print(message: string): void {
    this.printHook?.(message);
  }

  note(message: string): void {
    this.noteHook?.(message, this.location);
    this.trace?.emit('Note', undefined, { message, ...(this.location ? { location: this.location } : {}) });
  }
}

/** Spends one step of the evaluation budget (see {@link Shared.outOfFuel}). */
export function step(sh: Shared): void {
  if (--sh.fuel < 0) sh.outOfFuel();
}

export type FuncReplacement = { kind: 'value'; value: Value } | { kind: 'builtin'; def: BuiltinDefinition } | { kind: 'function'; node: RuleNode };

export interface DataOverrides {
  /** Replaced paths (below `data`), in the order they were applied. */
  targets: Value[][];
  /** The replacement values merged into one document. */
  value: RegoObject;
}

export class Env {
  /** Values of virtual documents (rule nodes and interior nodes) in this scope. */
  readonly cache = new Map<RuleNode, Cached>();
  /** Function results by node and argument key. */
  fnCache: Map<RuleNode, Map<string, Cached>> | null = null;
  /** Values of single keys of multi-value and object rules, by node and key. */
  keyCache: Map<RuleNode, Map<string, Cached>> | null = null;

  constructor(
    readonly input: Value | undefined,
    readonly data: Value | undefined,
    readonly shared: Shared,
    readonly overrides: DataOverrides | null,
    readonly funcs: Map<string, FuncReplacement> | null,
  ) {}

  /** True when `path` is at or below a `with data...` target. */
  overridden(path: readonly Value[]): boolean {
    const o = this.overrides;
    if (o === null) return false;
    outer: for (const t of o.targets) {
      if (t.length > path.length) continue;
      for (let i = 0; i < t.length; i++) if (!eqKey(t[i] as Value, path[i] as Value)) continue outer;
      return true;
    }
    return false;
  }

  /** The replacement value at `path` (when overridden). */
  overrideValue(path: readonly Value[]): Value | undefined {
    return this.overrides === null ? undefined : getPath(this.overrides.value, path);
  }

  /** True when some `with data...` target lies strictly below `path`. */
  overridesBelow(path: readonly Value[]): boolean {
    const o = this.overrides;
    if (o === null) return false;
    outer: for (const t of o.targets) {
      if (t.length <= path.length) continue;
      for (let i = 0; i < path.length; i++) if (!eqKey(t[i] as Value, path[i] as Value)) continue outer;
      return true;
    }
    return false;
  }
}

function eqKey(a: Value, b: Value): boolean {
  return a === b || equal(a, b);
}

/** A compiled expression (or body): calls `k` once per solution; returns true when stopped. */
export type ExprFn = (env: Env, f: Frame, k: K) => boolean;
