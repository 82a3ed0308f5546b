import { parseModuleWithSource } from '../parser.js';
import { PolicyError } from '../errors.js';
import type { Module, Rule, Term } from '../ast.js';
import { exprVars, termVars } from '../compiler/walk.js';
import { formatValue, goQuote } from '../value-format.js';
import { goJSON } from '../value-gojson.js';
import { RegoObject, RegoSet, type Value } from '../value.js';
import type { PolicySet } from '../server/policy-set.js';
import { compilePolicy, type CompiledPolicy } from '../engine.js';
import type { ModuleSource } from '../compiler/compile.js';
import { coverageReport, type CoverageReport } from './test-coverage.js';
import { lineStarts } from '../source-lines.js';
import type { TraceEvent } from '../trace/trace-event.js';
import { MAX_TRACE_EVENTS, TraceRecorder } from '../trace/trace-recorder.js';
import { prettyTrace } from '../trace/pretty-trace.js';

/** One case of a parameterised test (`test_x[name] if ...`), as OPA's tester lists it. */
export interface PolicyTestCase {
  name: string;
  fail: boolean;
  cases: PolicyTestCase[];
}

export interface PolicyTestResult {
  /** `data.<package>.<rule>`; a duplicate test name gets OPA's suffix (`test_x#01`). */
  name: string;
  /** `data.<package>` */
  package: string;
  /** The test's name within its package (`test_x`, `test_x#01`). */
  rule: string;
  file: string;
  row: number;
  col: number;
  /** `skip`: a `todo_test_*` rule, not run. */
  outcome: 'pass' | 'fail' | 'error' | 'skip';
  /** What the test evaluated to when it failed, or the error message. */
  detail?: string;
  /** The error's code (`eval_conflict_error`, ...), with outcome `error`. */
  errorCode?: string;
  durationNs: number;
  /** The cases of a parameterised test, each passed or failed. */
  cases?: PolicyTestCase[];
  /** What the test printed with `print()`, a line per message (OPA's tester captures it for every test it runs). */
  output?: string;
  /** With `explain`, for a failed test: its evaluation explained, as OPA's PrettyTraceWithLocation lines. */
  trace?: string[];
  /** The events those lines show (for OPA's JSON report), kept for passing tests too with `traceAll`. */
  traceEvents?: TraceEvent[];
}

/** The events of a failed test's trace to show (OPA's explain modes: `explainEvents`, or `failsAndNotes` for `opa test -v`). */
export type TestTraceFilter = (events: readonly TraceEvent[]) => TraceEvent[];

/** Print output kept per test, in UTF-16 code units: past it the rest is dropped, a line saying so in its place. */
export const MAX_TEST_OUTPUT = 1 << 20;

export interface PolicyTestReport {
  results: PolicyTestResult[];
  /** Counted as OPA counts: each case of a parameterised test is one test. */
  passed: number;
  failed: number;
  errors: number;
  skipped: number;
  /** With `coverage`: OPA's coverage report over every module, tests included. */
  coverage?: CoverageReport;
}

const TEST_PREFIX = 'test_';
const SKIP_PREFIX = 'todo_test_';

/** A test rule found in a module, before it runs. */
interface FoundTest {
  rule: Rule;
  module: Module;
  pkg: string[];
  /** The rule's ref up to the test's name (OPA's `ruleName`), as path segments. */
  path: string[];
  /** The name as reported, with OPA's duplicate suffix. */
  display: string[];
  skip: boolean;
  /** The path the (possibly renamed) rule is evaluated at. */
  evalPath: string[];
  /** Path of the generated rule that lists the cases a parameterised test started, when it has one. */
  casesPath?: string[];
}

/** The test rules of the modules and the modules as the tests run them (duplicates renamed, case-listing rules appended). */
interface PreparedTests {
  parsed: Array<{ id: string; module: Module }>;
  found: FoundTest[];
  sources: ModuleSource[];
  /** Whether any source differs from the module as loaded. */
  rewritten: boolean;
}

function prepareTests(modules: readonly PolicySet['modules'][number][]): PreparedTests {
  const parsed: Array<{ id: string; module: Module }> = [];
  const found: FoundTest[] = [];
  const counts = new Map<string, number>();
  const sources: ModuleSource[] = [];
  let rewritten = false;
  for (const source of modules) {
    const { module, spans } = parseModuleWithSource({ source: source.source, file: source.id, regoVersion: source.regoVersion });
    parsed.push({ id: source.id, module });
    const pkg = packagePath(module.package.path.terms);
    const edits: Array<{ offset: number; length: number; text: string }> = [];
    const appended: string[] = [];
    const lines = lineStarts(source.source);
    for (const rule of module.rules) {
      const named = testName(rule);
      if (named === undefined || rule.head.args) continue;
      const key = [...pkg, ...named.path].join('.');
      const seen = counts.get(key) ?? 0;
      counts.set(key, seen + 1);
      const skip = named.name.startsWith(SKIP_PREFIX);
      const display = [...named.path];
      let evalPath = [...pkg, ...named.path];
      if (seen > 0 && !skip) {
        // A second definition: OPA renames it `test_x#01`; here the source is renamed to an identifier no policy writes.
        display[display.length - 1] = `${named.name}#${String(seen).padStart(2, '0')}`;
        const ident = `${named.name}__duplicate_${seen}`;
        const head = rule.head.ref[named.path.length - 1] as Term;
        const offset = (lines[head.loc.row - 1] ?? 0) + head.loc.col - 1;
        if (named.path.length !== 1 || !source.source.startsWith(named.name, offset)) {
          throw new PolicyError({
            code: 'rego_compile_error',
            detail: `test ${key} is defined twice in a form the test runner cannot tell apart (a ref head); rename one of them`,
            location: rule.loc,
          });
        }
        edits.push({ offset, length: named.name.length, text: ident });
        evalPath = [...pkg, ident];
      }
      const test: FoundTest = { rule, module, pkg, path: named.path, display, skip, evalPath };
      if (!skip && rule.head.ref.length > named.path.length) {
        const casesRule = casesRuleText(rule, named.path.length, source.source, spans);
        const ident = `${evalPath[evalPath.length - 1]}__started_cases`;
        appended.push(`\n${ident} contains ${casesRule}\n`);
        test.casesPath = [...pkg, ident];
      }
      found.push(test);
    }
    let text = source.source;
    for (const e of edits.sort((a, b) => b.offset - a.offset)) text = text.slice(0, e.offset) + e.text + text.slice(e.offset + e.length);
    if (appended.length > 0) text += `\n${appended.join('')}`;
    rewritten ||= text !== source.source;
    sources.push({ file: source.id, source: text, regoVersion: source.regoVersion });
  }
  return { parsed, found, sources, rewritten };
}

/** One test as the runner evaluates it: its reported name, the path of its rule, and of its case-listing rule if any. */
export interface TestPlan {
  name: string;
  evalPath: string[];
  casesPath?: string[];
  skip: boolean;
}

/**
 * The modules as `runPolicyTests` runs them and the path each test is read
 * at: for another engine to run the same tests (bench/rego-corpora.ts asks
 * OPA for these paths and judges them with {@link caseResults}).
 */
export function planPolicyTests(modules: readonly PolicySet['modules'][number][]): { sources: ModuleSource[]; tests: TestPlan[] } {
  const { found, sources } = prepareTests(modules);
  return {
    sources,
    tests: found.map((t) => ({
      name: `data.${[...t.pkg, ...t.display].join('.')}`,
      evalPath: t.evalPath,
      skip: t.skip,
      ...(t.casesPath === undefined ? {} : { casesPath: t.casesPath }),
    })),
  };
}

/**
 * Runs the test rules of the loaded modules as `opa test` does: every rule
 * whose name (or a ground segment of its ref) starts with `test_` passes
 * when it is defined and true; `todo_test_*` rules are listed as skipped; a
 * rule name defined twice runs as two tests, the second named `test_x#01`
 * (OPA's RewriteDuplicateTestNames); a parameterised test
 * (`test_x[case] if ...`) lists each case, a case whose body failed after
 * naming its case included (OPA injects `internal.test_case` for that: here
 * a generated rule collects the case names the body reached). Tests run in
 * file order. As in `opa test`, a builtin error is not an error of the test:
 * the expression is undefined (other evaluation errors, e.g. conflicts, are).
 * What a test prints is kept in its result. With `explain`, a test that
 * failed is evaluated once more, traced (as `opa test -v` shows it; passing
 * tests only with `traceAll`, for OPA's JSON report), at the same evaluation time as its run.
 */
export function runPolicyTests(
  set: PolicySet,
  options: { filter?: RegExp; coverage?: boolean; explain?: TestTraceFilter; traceAll?: boolean } = {},
): PolicyTestReport {
  const results: PolicyTestResult[] = [];
  const hits = new Set<string>();
  const { parsed, found, sources, rewritten } = prepareTests(set.modules);
  // Coverage needs a copy compiled with recording hooks, and so does a set whose test rules were renamed or gained
  // case-listing rules (appended after the last line and renamed in place, so rows stay as written); otherwise the
  // fast compiled set runs the tests.
  const policy: CompiledPolicy =
    options.coverage || rewritten
      ? compilePolicy({ modules: sources, data: set.data, builtins: set.policy.builtins, ...(options.coverage ? { coverage: hits } : {}) })
      : set.policy;

  for (const t of found) {
    const name = `data.${[...t.pkg, ...t.display].join('.')}`;
    if (options.filter && !options.filter.test(`data.${[...t.pkg, ...t.path].join('.')}`)) continue;
    const base = { name, package: `data.${t.pkg.join('.')}`, rule: t.display.join('.'), file: t.module.file, row: t.rule.loc.row, col: t.rule.loc.col };
    if (t.skip) {
      results.push({ ...base, outcome: 'skip', durationNs: 0 });
      continue;
    }
    const started = process.hrtime.bigint();
    const timeNs = BigInt(Date.now()) * 1_000_000n;
    const output = new PrintCapture();
    let outcome: PolicyTestResult['outcome'] = 'pass';
    let detail: string | undefined;
    let errorCode: string | undefined;
    let cases: PolicyTestCase[] | undefined;
    try {
      // Not strict: `opa test` never raises builtin errors (its runner's RaiseBuiltinErrors is off), so a builtin
      // error makes its expression undefined and the test goes on, failing or passing as its other literals decide.
      const value = policy.evaluate(t.evalPath, undefined, { strictBuiltinErrors: false, timeNs, print: (m) => output.add(m) });
      if (value === undefined) {
        outcome = 'fail';
        detail = 'undefined';
      } else if (t.casesPath !== undefined) {
        const reached = policy.evaluate(t.casesPath, undefined, { strictBuiltinErrors: false, timeNs });
        cases = caseResults(value, reached);
        if (cases.some((c) => c.fail)) outcome = 'fail';
      } else if (value !== true) {
        outcome = 'fail';
        detail = formatValue(value);
      }
    } catch (error) {
      if (!PolicyError.isInstance(error)) throw error;
      outcome = 'error';
      detail = error.message;
      errorCode = error.code;
    }
    const durationNs = Number(process.hrtime.bigint() - started);
    // OPA traces every test when asked, and its JSON report carries each one's events; its text report shows failed ones only.
    const traced = options.explain !== undefined && (outcome === 'fail' || options.traceAll === true);
    const explained = traced ? explainTest({ policy, test: t, timeNs, filter: options.explain as TestTraceFilter }) : undefined;
    const trace = outcome === 'fail' ? explained?.lines : undefined;
    results.push({
      ...base,
      outcome,
      ...(detail === undefined ? {} : { detail }),
      ...(errorCode === undefined ? {} : { errorCode }),
      durationNs,
      ...(cases === undefined ? {} : { cases }),
      ...(output.text === '' ? {} : { output: output.text }),
      ...(trace === undefined ? {} : { trace }),
      ...(explained === undefined || explained.events.length === 0 ? {} : { traceEvents: explained.events }),
    });
  }
  return { results, ...tally(results), ...(options.coverage ? { coverage: coverageReport(parsed, hits) } : {}) };
}

/** A test's print output as OPA's print hook writes it (each message and a newline), up to {@link MAX_TEST_OUTPUT}. */
class PrintCapture {
  text = '';

  add(message: string): void {
    if (this.text.length >= MAX_TEST_OUTPUT) return;
    const line = `${message}\n`;
    this.text += this.text.length + line.length <= MAX_TEST_OUTPUT ? line : `(print output cut at ${MAX_TEST_OUTPUT} characters)\n`;
  }
}

/**
 * The trace of a failed test, as `opa test` records it: the query
 * `data.pkg.test_x = _` evaluated by the policy compiled for tracing. A
 * renamed duplicate is shown by OPA's name for it (`data.pkg["test_x#01"]`).
 * An evaluation that passes {@link MAX_TRACE_EVENTS} events stops there; what
 * was recorded is shown, a line saying it was cut last.
 */
function explainTest(options: { policy: CompiledPolicy; test: FoundTest; timeNs: bigint; filter: TestTraceFilter }): { lines: string[]; events: TraceEvent[] } {
  const { policy, test, timeNs, filter } = options;
  const trace = new TraceRecorder();
  let cut = false;
  try {
    policy.traced().evaluate(test.evalPath, undefined, { strictBuiltinErrors: false, timeNs, trace });
  } catch (error) {
    if (!PolicyError.isInstance(error)) throw error;
    cut = trace.events.length >= MAX_TRACE_EVENTS;
  }
  const events = filter(trace.events);
  let lines = prettyTrace(events);
  const renamed = test.evalPath[test.evalPath.length - 1] as string;
  const shown = test.display[test.display.length - 1] as string;
  if (renamed !== shown) lines = lines.map((line) => line.split(`.${renamed}`).join(`[${goQuote(shown)}]`));
  return { lines: cut ? [...lines, `(trace cut at ${MAX_TRACE_EVENTS} events)`] : lines, events };
}

/** OPA's counts: skipped and errors per test; passes and failures per leaf case of a parameterised test. */
function tally(results: readonly PolicyTestResult[]): Pick<PolicyTestReport, 'passed' | 'failed' | 'errors' | 'skipped'> {
  const out = { passed: 0, failed: 0, errors: 0, skipped: 0 };
  const leaves = (cs: readonly PolicyTestCase[]): void => {
    for (const c of cs) {
      if (c.cases.length > 0) leaves(c.cases);
      else if (c.fail) out.failed++;
      else out.passed++;
    }
  };
  for (const r of results) {
    if (r.outcome === 'skip') out.skipped++;
    else if (r.outcome === 'error') out.errors++;
    else if (r.cases !== undefined && r.cases.length > 0) leaves(r.cases);
    else if (r.outcome === 'pass') out.passed++;
    else out.failed++;
  }
  return out;
}

/**
 * OPA's `ruleName`: the rule's ref up to the first ground segment named
 * `test_*` or `todo_test_*`; undefined for a rule that is not a test.
 */
function testName(rule: Rule): { name: string; path: string[] } | undefined {
  const path: string[] = [];
  for (const [i, t] of rule.head.ref.entries()) {
    const n = i === 0 && t.type === 'var' ? t.name : t.type === 'string' ? t.value : undefined;
    if (n === undefined) return undefined;
    path.push(n);
    if (n.startsWith(TEST_PREFIX) || n.startsWith(SKIP_PREFIX)) return { name: n, path };
  }
  return undefined;
}

/**
 * The head and body of the rule that lists the cases a parameterised test
 * reached: the case terms, under the body up to the expression where the
 * last of their vars first occurs (where OPA injects `internal.test_case`).
 * Written from the test's own source text.
 */
function casesRuleText(rule: Rule, nameLength: number, source: string, spans: WeakMap<object, { start: number; end: number }>): string {
  const text = (node: object): string => {
    const span = spans.get(node);
    if (span === undefined) {
      throw new PolicyError({
        code: 'rego_compile_error',
        detail: 'cannot list the cases of this parameterised test (no source text for a part of it)',
        location: rule.loc,
      });
    }
    return source.slice(span.start, span.end);
  };
  const caseTerms = rule.head.ref.slice(nameLength);
  const vars = new Set<string>();
  for (const t of caseTerms) termVars(t, vars);
  let last = -1;
  for (const v of vars) {
    const first = rule.body.findIndex((e) => {
      const seen = new Set<string>();
      exprVars(e, seen);
      return seen.has(v);
    });
    last = Math.max(last, first);
  }
  const body = rule.body.slice(0, last + 1).map(text);
  return `[${caseTerms.map(text).join(', ')}] if {\n${body.length > 0 ? body.join('\n') : 'true'}\n}`;
}

/** OPA's `termToString` for a case name: a string as it is, anything else its JSON text. */
function caseName(v: Value): string {
  return typeof v === 'string' ? v : goJSON(v);
}

/**
 * The cases of a parameterised test: from its value (a case holding `true`
 * passed, anything else failed; nested objects are nested cases), and every
 * case the body reached without producing a value, failed.
 */
export function caseResults(value: Value, reached: Value | undefined): PolicyTestCase[] {
  const root: PolicyTestCase = { name: '', fail: false, cases: [] };
  const fromValue = (node: PolicyTestCase, v: Value): void => {
    if (!(v instanceof RegoObject)) return;
    for (const [k, x] of v.entries()) {
      const child: PolicyTestCase = { name: caseName(k), fail: false, cases: [] };
      node.cases.push(child);
      if (x instanceof RegoObject) {
        fromValue(child, x);
        child.fail = child.cases.some((c) => c.fail);
      } else child.fail = x !== true;
    }
  };
  fromValue(root, value);
  if (reached instanceof RegoSet) {
    for (const names of reached.values()) {
      if (!Array.isArray(names)) continue;
      let node = root;
      for (const n of names) {
        const name = caseName(n);
        let child = node.cases.find((c) => c.name === name);
        if (child === undefined) {
          child = { name, fail: true, cases: [] };
          node.cases.push(child);
        }
        node = child;
      }
    }
    const propagate = (node: PolicyTestCase): boolean => {
      for (const c of node.cases) if (propagate(c)) node.fail = true;
      return node.fail;
    };
    root.cases.forEach(propagate);
  }
  const sort = (cs: PolicyTestCase[]): PolicyTestCase[] =>
    cs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map((c) => ({ ...c, cases: sort(c.cases) }));
  return sort(root.cases);
}

/** `data.a.b` → `['a', 'b']`. */
function packagePath(terms: readonly Term[]): string[] {
  return terms.slice(1).map((t) => (t.type === 'string' ? t.value : String((t as { name?: string }).name)));
}
