import type { CompiledPolicy, Bindings } from '../engine.js';
import { PolicyError } from '../errors.js';
import { refName, type Expr } from '../ast.js';
import { parseQuery } from '../parser.js';
import { toJS } from '../value-json.js';
import type { Value } from '../value.js';
import type { ExplainMode } from '../trace/lineage.js';
import { prettyTrace } from '../trace/pretty-trace.js';
import { explainEvents } from '../trace/lineage.js';
import { TraceRecorder } from '../trace/trace-recorder.js';
import { explanationJson } from '../server/explanation.js';

/** `opa eval`'s output shape: one entry per solution; `{}` when the query is undefined. */
export interface EvalOutput {
  result?: { expressions?: { value: unknown; text: string }[]; bindings?: Record<string, unknown> }[];
  /** With `explain`: the trace events it keeps, in the Data API's TraceEventV1 shape. */
  explanation?: unknown[];
}

/** `evalQuery`'s answer with `explain`: the output, and the explanation as OPA's PrettyTraceWithLocation lines. */
export interface ExplainedEval {
  output: EvalOutput;
  lines: string[];
}

const VALUE_VAR = '__framework_eval_value__';

export interface EvalQueryOptions {
  input?: Value;
  /**
   * Raise a builtin's error (`to_number("abc")`) instead of making its
   * expression undefined. Off by default, as in `opa eval`
   * (`--strict-builtin-errors`); errors that are not a builtin's (conflicts)
   * are raised either way.
   */
  strictBuiltinErrors?: boolean;
}

/**
 * Runs a query as `opa eval` does. A single-expression query reports the
 * expression's value (so `data.authz.allow` prints `false` rather than
 * nothing); a longer query reports its variable bindings.
 */
export function evalQuery(policy: CompiledPolicy, query: string, options: EvalQueryOptions = {}): EvalOutput {
  return run(policy, query, options, undefined);
}

/**
 * {@link evalQuery} traced, as `opa eval --explain=<mode>`: the output gets
 * the `explanation` events (JSON) and the lines print them as text. The
 * trace is of the last query run (the one whose solutions are shown).
 */
export function evalQueryExplained(policy: CompiledPolicy, query: string, options: EvalQueryOptions & { explain: ExplainMode }): ExplainedEval {
  let trace = new TraceRecorder();
  const output = run(policy.traced(), query, options, () => (trace = new TraceRecorder()));
  const events = explainEvents({ events: trace.events, mode: options.explain });
  return { output: { ...output, explanation: explanationJson({ events, mode: 'full', pretty: false }) }, lines: prettyTrace(events) };
}

function run(policy: CompiledPolicy, query: string, options: EvalQueryOptions, fresh: (() => TraceRecorder) | undefined): EvalOutput {
  const body = parseQuery(query, '');
  const run = (text: string): Bindings[] =>
    policy.query(text, {
      ...(options.input === undefined ? {} : { inputValue: options.input }),
      strictBuiltinErrors: options.strictBuiltinErrors === true,
      ...(fresh === undefined ? {} : { trace: fresh(), traceText: query }),
    });
  let solutions: Bindings[];
  let single = false;
  if (body.length === 1 && hasValue(body[0] as Expr)) {
    try {
      solutions = run(`${VALUE_VAR} = (${query})`);
      single = true;
    } catch (error) {
      if (!PolicyError.isInstance(error) || !/parse/.test(error.code)) throw error;
      solutions = run(query);
    }
  } else {
    solutions = run(query);
  }
  if (solutions.length === 0) return {};
  return {
    result: solutions.map((b) => {
      const bindings: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(b)) if (name !== VALUE_VAR && !name.startsWith('_')) bindings[name] = toJS(value);
      const entry: { expressions?: { value: unknown; text: string }[]; bindings?: Record<string, unknown> } = {};
      if (single) entry.expressions = [{ value: toJS(b[VALUE_VAR] as Value), text: query }];
      if (Object.keys(bindings).length > 0) entry.bindings = bindings;
      return entry;
    }),
  };
}

/** An expression whose value `opa eval` shows: a term, or a call other than `=` / `:=`, without `with`. */
function hasValue(expr: Expr): boolean {
  if (expr.negated || expr.with.length > 0) return false;
  if (expr.kind === 'term') return true;
  if (expr.kind !== 'call') return false;
  const op = refName(expr.op);
  return op !== 'eq' && op !== 'assign';
}
