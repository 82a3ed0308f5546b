/**
 * Public entry points of the Rego engine: compile modules (plus base data)
 * once, then run queries or look up documents many times.
 *
 * @example
 * const policy = compilePolicy({
 *   modules: { 'authz.rego': 'package authz\n\ndefault allow := false\n\nallow if input.user == "admin"' },
 * });
 * policy.evaluate('authz.allow', { user: 'admin' }); // true
 * policy.query('data.authz.allow = x', { input: { user: 'bob' } }); // [{ x: false }]
 */
import { defaultRegistry } from './builtins/index.js';
import type { BuiltinRegistry } from './builtins/registry.js';
import { Compiler, type CompiledModules, type CompilerOptions, type ModuleSource } from './compiler/compile.js';
import type { RuleNode } from './compiler/rule-tree.js';
import { PolicyError } from './errors.js';
import { CodeGen, type CompiledQuery } from './eval/codegen.js';
import { DataRefT } from './eval/data-ref.js';
import { Env, type EvalOptions, Shared } from './eval/env.js';
import { ConstT } from './eval/terms.js';
import { parseQuery } from './parser.js';
import { NodeText } from './trace/node-text.js';
import { fromJS } from './value-json.js';
import type { Value } from './value.js';

export interface CompilePolicyOptions {
  /** Rego modules: file name to source, or a list of `{ file, source }`. */
  modules: Record<string, string> | ModuleSource[];
  /** Base `data` document: a JSON-like JS value (or Rego values). */
  data?: unknown;
  /** Builtins available to the policy (default: {@link defaultRegistry}). */
  builtins?: BuiltinRegistry;
  /** Records `file:row` of each expression evaluated and each rule head whose body succeeded (test coverage; slows evaluation). */
  coverage?: Set<string>;
  /**
   * Compiles the policy for tracing: evaluations given an `EvalOptions.trace`
   * recorder record OPA's evaluation trace in it (slower; see {@link CompiledPolicy.traced}).
   */
  trace?: boolean;
  /** JSON schemas and whether annotations are type-checked (`policy check --schema`); see {@link CompilerOptions}. */
  schemas?: CompilerOptions['schemas'];
  typeCheckAnnotations?: boolean;
}

export interface QueryOptions extends EvalOptions {
  /** `input` as a JSON-like JS value. */
  input?: unknown;
  /** `input` already converted to a Rego value (takes precedence over `input`). */
  inputValue?: Value;
  /** The query's text in trace events (when traced), in place of the query run. */
  traceText?: string;
}

/** One solution of a query: variable name to value. */
export type Bindings = Record<string, Value>;

function inputOf(options: QueryOptions | undefined): Value | undefined {
  if (options === undefined) return undefined;
  if (options.inputValue !== undefined) return options.inputValue;
  return options.input === undefined ? undefined : fromJS(options.input);
}

function finish(shared: Shared): void {
  if (shared.strict && shared.errors.length > 0) throw shared.errors[0];
}

/** Runs an evaluation; unexpected exceptions become `eval_internal_error` (callers fail closed on any PolicyError). */
function guardStack<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (PolicyError.isInstance(e)) throw e;
    if (e instanceof RangeError && /call stack/i.test(e.message)) {
      throw new PolicyError({ code: 'eval_internal_error', detail: 'evaluation too deep (stack exhausted)', cause: e });
    }
    throw new PolicyError({ code: 'eval_internal_error', detail: e instanceof Error ? e.message : String(e), cause: e });
  }
}

/** A query compiled once against a policy; run it many times. */
export class PreparedQuery {
  constructor(
    private readonly policy: CompiledPolicy,
    private readonly compiled: CompiledQuery,
  ) {}

  /** All solutions (an empty list when the query is undefined). */
  run(options?: QueryOptions): Bindings[] {
    const shared = this.policy.shared(options);
    const env = new Env(inputOf(options), this.policy.data, shared, null, null);
    const q = this.compiled;
    const f = new Array<Value | undefined>(q.nslots);
    const out: Bindings[] = [];
    guardStack(() =>
      q.body(env, f, () => {
        const b: Bindings = {};
        for (const { name, slot } of q.outputs) {
          const v = f[slot];
          if (v !== undefined) b[name] = v;
        }
        out.push(b);
        return false;
      }),
    );
    finish(shared);
    return out;
  }
}

/** Document paths whose references {@link CompiledPolicy.evaluate} keeps; past them each is built per call. */
export const MAX_CACHED_PATHS = 1024;

export class CompiledPolicy {
  readonly data: Value | undefined;
  /** The builtins the policy was compiled with (a recompiled copy, e.g. for test coverage, needs the same). */
  readonly builtins: BuiltinRegistry;
  private readonly compiler: Compiler;
  private readonly compiled: CompiledModules;
  private readonly codegen: CodeGen;
  /** Document references by path, built once (up to {@link MAX_CACHED_PATHS}). */
  private readonly paths = new Map<string, DataRefT>();
  private readonly options: CompilePolicyOptions;
  private readonly tracing: boolean;
  private twin: CompiledPolicy | undefined;

  constructor(options: CompilePolicyOptions) {
    this.options = options;
    this.tracing = options.trace === true;
    const builtins = options.builtins ?? defaultRegistry;
    this.builtins = builtins;
    const sources: ModuleSource[] = Array.isArray(options.modules)
      ? options.modules
      : Object.entries(options.modules).map(([file, source]) => ({ file, source }));
    this.compiler = new Compiler(builtins, {
      ...(options.schemas === undefined ? {} : { schemas: options.schemas }),
      ...(options.typeCheckAnnotations === undefined ? {} : { typeCheckAnnotations: options.typeCheckAnnotations }),
    });
    try {
      this.compiled = this.compiler.compileModules(sources);
    } catch (e) {
      if (PolicyError.isInstance(e)) throw e;
      throw new PolicyError({ code: 'rego_compile_error', detail: `internal compiler error: ${e instanceof Error ? e.message : String(e)}`, cause: e });
    }
    this.codegen = new CodeGen(this.compiled.root, builtins, this.compiled.gen, options.coverage, this.tracing ? new NodeText(this.compiled.gen) : undefined);
    this.codegen.compileNodes();
    this.data = options.data === undefined ? undefined : fromJS(options.data, { maxDepth: Infinity });
  }

  /**
   * This policy compiled for tracing (built on first use, then kept): its
   * evaluations record OPA's trace into `EvalOptions.trace`. This policy's
   * own closures stay free of tracing work.
   */
  traced(): CompiledPolicy {
    if (this.tracing) return this;
    this.twin ??= new CompiledPolicy({ ...this.options, trace: true, data: this.data });
    return this.twin;
  }

  /** The evaluation's shared state; a trace recorder is dropped unless this policy was compiled for tracing (it would only get the notes). */
  shared(options: EvalOptions | undefined): Shared {
    if (options?.trace !== undefined && !this.tracing) return new Shared({ ...options, trace: undefined });
    return new Shared(options ?? {});
  }

  /** Compiles a query (a Rego body such as `data.a.allow = x; x == true`). */
  prepare(query: string, options?: { traceText?: string }): PreparedQuery {
    const body = this.compiler.compileQuery(parseQuery(query, ''));
    return new PreparedQuery(this, this.codegen.compileQuery(body, options?.traceText));
  }

  /** Runs a query; returns its solutions (empty when undefined). */
  query(query: string, options?: QueryOptions): Bindings[] {
    return this.prepare(query, options?.traceText === undefined ? undefined : { traceText: options.traceText }).run(options);
  }

  /**
   * The value of the document at `path` (`"a.b.allow"`, `"data.a.b.allow"`,
   * `"a/b/allow"` or `["a", "b", "allow"]`), or undefined.
   */
  evaluate(path: string | readonly string[], input?: unknown, options?: EvalOptions & { inputValue?: Value }): Value | undefined {
    const key = typeof path === 'string' ? path : path.join('\u0000');
    let ref = this.paths.get(key);
    if (ref === undefined) {
      const segs = pathSegments(path);
      this.refuseFunctionPath(segs);
      ref = new DataRefT(
        this.compiled.root,
        segs.map((s) => new ConstT(s)),
      );
      // Paths come from requests (/v1/data/{path}): random ones must not grow memory without bound.
      if (this.paths.size < MAX_CACHED_PATHS) this.paths.set(key, ref);
    }
    if (this.tracing && options?.trace !== undefined) return this.evaluateTraced(path, input, options);
    const shared = this.shared(options);
    const inputValue = options?.inputValue ?? (input === undefined ? undefined : fromJS(input));
    const env = new Env(inputValue, this.data, shared, null, null);
    const r = ref;
    const v = guardStack(() => r.get(env, []));
    finish(shared);
    return v;
  }

  /**
   * A path that names a function, or a document inside one (`p/f`, `p/f/x`), is refused as OPA's Data API refuses it:
   * OPA compiles the path as the query `data.p.f`, which its type checker refuses (`function data.p.f used as
   * reference, not called`); the same query compiled here throws that error.
   */
  private refuseFunctionPath(segs: readonly string[]): void {
    let node: RuleNode | undefined = this.compiled.root;
    for (let i = 0; i < segs.length && node !== undefined; i++) {
      node = node.child(segs[i] as string);
      if (node === undefined || !node.isFunction) continue;
      const text = 'data' + segs.map((s) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`)).join('');
      this.prepare(text);
      return;
    }
  }

  /**
   * A document lookup traced as OPA traces it: the query `data.a.b = _`
   * (that is its text in the trace), whose one solution is the value.
   */
  private evaluateTraced(path: string | readonly string[], input: unknown, options: EvalOptions & { inputValue?: Value }): Value | undefined {
    const segs = pathSegments(path);
    const ref = `data${segs.map((s) => `[${JSON.stringify(s)}]`).join('')}`;
    const text = `${['data', ...segs].map((s, i) => (i === 0 || /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? (i === 0 ? s : `.${s}`) : `[${JSON.stringify(s)}]`)).join('')} = _`;
    const body = this.compiler.compileQuery(parseQuery(`${ref} = __result__`, ''));
    const q = new PreparedQuery(this, this.codegen.compileQuery(body, text));
    const inputValue = options.inputValue ?? (input === undefined ? undefined : fromJS(input));
    const rows = q.run({ ...options, ...(inputValue === undefined ? {} : { inputValue }) });
    return rows[0]?.['__result__'];
  }
}

/** `["a", "b"]` from a document path as {@link CompiledPolicy.evaluate} takes it. */
function pathSegments(path: string | readonly string[]): string[] {
  if (typeof path !== 'string') return [...path];
  const segs = path.split(path.includes('/') ? '/' : '.').filter((s) => s !== '');
  return segs[0] === 'data' ? segs.slice(1) : segs;
}

/** Compiles Rego modules and base data. Throws a {@link PolicyError} on parse or compile errors. */
export function compilePolicy(options: CompilePolicyOptions): CompiledPolicy {
  return new CompiledPolicy(options);
}
