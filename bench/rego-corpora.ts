/**
 * Real-world Rego corpora, here and in a real OPA v1.20.2 (the pylib named by
 * FRAMEWORK_OPA_PYLIB): each corpus's own unit tests under our `policy test`
 * runner and under OPA, then the corpus's rules evaluated on its tests'
 * inputs in both engines, JSON compared. Prints per-corpus figures.
 *
 *   npm run build && node dist/bench/rego-corpora.js <checkout>...
 *
 * A checkout is recognised by its layout: the Gatekeeper library (`src/<kind>/<policy>/`,
 * Rego v0, one unit per policy), Regal (`bundle/`), trivy-checks (`checks/` + `lib/`)
 * and conftest (`examples/<name>/`, one unit each). Nothing is copied into this
 * repository and none of this runs in `npm test` (CI cannot fetch the corpora).
 *
 * How OPA is asked (the pylib embeds OPA's Go library, without `opa test`):
 * - a test passes in OPA when `data.<pkg>.<test>` is `true`, exactly the rule
 *   `opa test` applies (undefined or another value fails, an error errs);
 * - the pylib has no `--v0-compatible` switch, so for a v0 corpus OPA reads
 *   our `policy fmt --v0-v1` rewrite of each file: OPA parsing and compiling
 *   that rewrite is itself a check of it, and a rewrite that changed meaning
 *   shows up as a disagreement;
 * - a test's inputs are the values of `X` in its `... with input as X`
 *   literals, computed by OPA from a helper rule holding the test's literals
 *   up to that one; the document the literal reads (the first rule or import
 *   it names) is then evaluated on each input in both engines.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { roastModule } from './support/roast.js';
import { fileURLToPath } from 'node:url';
import { type Body, type Expr, type Module, refToString, type Term } from '../runtime/policy/ast.js';
import { createDefaultRegistry } from '../runtime/policy/builtins/index.js';
import { BuiltinError, type BuiltinDefinition } from '../runtime/policy/builtins/registry.js';
import { compilePolicy, type CompiledPolicy } from '../runtime/policy/engine.js';
import { PolicyError } from '../runtime/policy/errors.js';
import { formatRego } from '../runtime/policy/format/index.js';
import { parseModuleWithSource, type SourceModule } from '../runtime/policy/parser.js';
import { type PolicyFiles, type PolicySource } from '../runtime/policy/server/policy-files.js';
import { readPolicyDirectories } from '../runtime/policy/tools/load-policies.js';
import { caseResults, planPolicyTests, runPolicyTests, type PolicyTestResult } from '../runtime/policy/tools/run-policy-tests.js';
import { fromJS, stringifyJSON, toJS } from '../runtime/policy/value-json.js';
import { RegoObject, RegoSet, type Value } from '../runtime/policy/value.js';

const ORACLE = fileURLToPath(new URL('../../bench/support/opa_corpus_oracle.py', import.meta.url));

/** The corpora's own Go builtins, defined alike here and in the oracle (STANDINS there): trivial ones computed, the rest an error in both. */
const STANDINS: BuiltinDefinition[] = [
  {
    name: 'regal.last',
    args: ['any'],
    result: 'any',
    // Regal's RegalLast: an array operand, its last element, undefined (no error) when empty.
    impl: ([xs]) => {
      if (!Array.isArray(xs)) throw new BuiltinError('regal.last: operand 1 must be array');
      return xs.length === 0 ? undefined : (xs[xs.length - 1] as Value);
    },
  },
  { name: 'result.new', args: ['any', 'any'], result: 'any', impl: ([msg]) => RegoObject.fromEntries([['msg', msg as Value]]) },
  {
    // Trivy's: a resource is managed unless its metadata says otherwise.
    name: 'isManaged',
    args: ['any'],
    result: 'boolean',
    impl: ([x]) => {
      // Trivy's values carry their metadata inline (`{"value": …, "managed": false}`), resources under `__defsec_metadata`.
      const meta = x instanceof RegoObject ? x.get('__defsec_metadata') : undefined;
      const inline = x instanceof RegoObject ? x.get('managed') : undefined;
      const managed = typeof inline === 'boolean' ? inline : meta instanceof RegoObject ? meta.get('managed') : undefined;
      return typeof managed === 'boolean' ? managed : true;
    },
  },
  // Regal's `regal.parse_module` returns its "roast" AST (locations as `row:col:endRow:endCol` text, which OPA's own
  // parse_module cannot give), computed once per (file, text) by bench/support/roast.ts from our parser; and
  // `regal.is_formatted` compares a text with its formatting. The harness computes both and hands the same value to OPA
  // (the oracle asks for it mid-evaluation, see Oracle), so both engines' Regal rules read identical input.
  ...(['regal.parse_module', 'regal.is_formatted'] as const).map((name): BuiltinDefinition => ({
    name,
    args: ['any', 'any'],
    result: 'any',
    impl: (args) => {
      const r = computedStandin(
        name,
        args.map((a) => toJS(a as Value)),
      );
      if ('error' in r) throw new BuiltinError(r.error);
      return r.value;
    },
  })),
  ...[
    'squealer.scan_string:1',
    'sh.parse_commands:1',
    'cidr.is_public:1',
    'cidr.count_addresses:1',
    'parse_config:2',
    'parse_config_file:1',
    'parse_combined_config_files:1',
  ].map((spec): BuiltinDefinition => {
    const [name, arity] = spec.split(':') as [string, string];
    return {
      name,
      args: Array.from({ length: Number(arity) }, () => 'any' as const),
      result: 'any',
      impl: () => {
        throw new BuiltinError(`${name} is a Go builtin of its corpus, not available to either engine`);
      },
    };
  }),
];

/** The harness's answers to the computed stand-ins, once per builtin and operands; the same answer for both engines. */
const computed = new Map<string, { value: Value; json: string } | { error: string }>();

/** A computed stand-in's answer: Regal's `regal.parse_module` (roast) and `regal.is_formatted` (our formatter). */
function computedStandin(name: string, args: unknown[]): { value: Value; json: string } | { error: string } {
  const key = JSON.stringify([name, args]);
  let r = computed.get(key);
  if (r === undefined) {
    try {
      let value: Value;
      if (name === 'regal.parse_module') {
        if (typeof args[0] !== 'string' || typeof args[1] !== 'string') throw new Error('operands must be strings');
        value = fromJS(roastModule(args[0], args[1]));
      } else if (name === 'regal.is_formatted') {
        const opts = args[1] as Record<string, unknown> | null;
        if (typeof args[0] !== 'string' || typeof opts !== 'object' || opts === null || Array.isArray(opts))
          throw new Error('operands must be a string and an object');
        // Regal's: the text equals its formatting (v1; `rego_version: "v0"` is not reproduced: formatted as v1).
        value = formatRego({ source: args[0], file: '' }) === args[0];
      } else throw new Error(`${name} is not computed`);
      r = { value, json: stringifyJSON(value) };
    } catch (error) {
      r = { error: `${name}: ${(error as Error).message.split('\n')[0]}` };
    }
    computed.set(key, r);
  }
  return r;
}

interface Unit {
  name: string;
  dirs: string[];
  v0: boolean;
}

interface Corpus {
  name: string;
  units: Unit[];
}

function subdirs(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => !n.startsWith('.') && statSync(join(dir, n)).isDirectory())
    .sort()
    .map((n) => join(dir, n));
}

function detect(root: string): Corpus {
  if (existsSync(join(root, 'src')) && existsSync(join(root, 'library'))) {
    return {
      name: 'gatekeeper-library',
      units: subdirs(join(root, 'src'))
        .flatMap(subdirs)
        .map((d) => ({ name: d.slice(root.length + 1), dirs: [d], v0: true })),
    };
  }
  if (existsSync(join(root, 'bundle', 'regal'))) return { name: 'regal (bundle)', units: [{ name: 'bundle', dirs: [join(root, 'bundle')], v0: false }] };
  if (existsSync(join(root, 'checks')) && existsSync(join(root, 'lib'))) {
    return { name: 'trivy-checks', units: [{ name: 'checks+lib', dirs: [join(root, 'checks'), join(root, 'lib')], v0: false }] };
  }
  if (existsSync(join(root, 'examples')))
    return { name: 'conftest (examples)', units: subdirs(join(root, 'examples')).map((d) => ({ name: d.slice(root.length + 1), dirs: [d], v0: false })) };
  throw new Error(`${root}: not a corpus this harness knows (gatekeeper-library, regal, trivy-checks, conftest)`);
}

/** One long-lived oracle process; requests answered in order, one line each. */
class Oracle {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<(line: string) => void> = [];

  constructor(pylib: string) {
    this.proc = spawn(process.env.FRAMEWORK_OPA_PYTHON ?? 'python3', [ORACLE, pylib]);
    this.proc.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      // The oracle's computed stand-ins ask for their answer mid-evaluation: answered here, from the same cache.
      if (line.startsWith('@call ')) {
        const { name, args } = JSON.parse(line.slice(6)) as { name: string; args: unknown[] };
        const r = computedStandin(name, args);
        this.proc.stdin.write(('error' in r ? JSON.stringify({ error: r.error }) : `{"value":${r.json}}`) + '\n');
        return;
      }
      this.waiting.shift()?.(line);
    });
  }

  request(req: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.waiting.push((line) => resolve(JSON.parse(line) as Record<string, unknown>));
      this.proc.stdin.write(JSON.stringify(req) + '\n');
    });
  }

  close(): void {
    this.proc.stdin.end();
  }
}

type Outcome = 'pass' | 'fail' | 'error' | 'skip';

interface Figures {
  units: number;
  files: number;
  loadedHere: number;
  loadedOpa: number;
  tests: number;
  passHere: number;
  passOpa: number;
  agree: number;
  inputs: number;
  docsAgree: number;
  /** Tests whose OPA answer was a builtin error, compared under strict builtin errors here too. */
  strictCompared: number;
  differences: string[];
}

/** JSON with object keys sorted, so two engines' answers compare as text. */
function canonical(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(canonical).join(',')}]`;
  if (x !== null && typeof x === 'object') {
    return `{${Object.keys(x)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((x as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(x);
}

function ourAnswer(policy: CompiledPolicy, query: string, input: unknown): string {
  try {
    const rows = policy.query(query, { input, strictBuiltinErrors: true });
    return rows.length === 0 ? 'undefined' : canonical(rows.map((r) => toJS(r.x as Value)));
  } catch (error) {
    if (PolicyError.isInstance(error)) return 'error';
    // Not a policy error: a crash of our engine, shown as the answer so it is counted and reported, not fatal.
    return `crash: ${(error as Error).message}`;
  }
}

interface InputProbe {
  helper: string;
  /** The document the literal reads, e.g. `data.k8s.violation`. */
  target: string;
}

/** Literals of a body that apply `with input as X`, with the literals before them. */
function* inputLiterals(body: Body): Generator<{ before: Expr[]; expr: Expr; value: Term }> {
  for (let i = 0; i < body.length; i++) {
    const e = body[i] as Expr;
    const w = e.with.find(
      (x) => x.target.type === 'ref' && x.target.terms.length === 1 && x.target.terms[0]?.type === 'var' && x.target.terms[0].name === 'input',
    );
    if (w !== undefined) yield { before: body.slice(0, i), expr: e, value: w.value };
  }
}

/** The first document a literal reads: a rule of its package, an imported ref, or a data ref, as `data.a.b`. */
function targetOf(e: Expr, module: Module, rules: Set<string>): string | undefined {
  const pkg = refToString(module.package.path);
  const aliases = new Map(module.imports.map((i) => [i.alias ?? refToString(i.path).split('.').pop() ?? '', refToString(i.path)]));
  let found: string | undefined;
  const visit = (t: Term): void => {
    if (found !== undefined) return;
    if (t.type === 'var' && rules.has(t.name)) found = `${pkg}.${t.name}`;
    else if (t.type === 'ref') {
      const head = t.terms[0];
      const rest: string[] = [];
      for (const x of t.terms.slice(1)) {
        if (x.type !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(x.value)) break;
        rest.push(x.value);
      }
      if (head?.type === 'var' && head.name === 'data' && rest.length > 0) found = ['data', ...rest].join('.');
      else if (head?.type === 'var' && aliases.has(head.name) && aliases.get(head.name)?.startsWith('data.'))
        found = [aliases.get(head.name), ...rest].join('.');
      else if (head?.type === 'var' && rules.has(head.name)) found = `${pkg}.${head.name}`;
      else t.terms.forEach(visit);
    } else if (t.type === 'call') t.args.forEach(visit);
    else if (t.type === 'array' || t.type === 'set') t.items.forEach(visit);
    else if (t.type === 'object') t.entries.forEach(([k, v]) => (visit(k), visit(v)));
  };
  if (e.kind === 'call') e.args.forEach(visit);
  else if (e.kind === 'term') visit(e.term);
  return found;
}

/** Helper rules (one module per test file) whose values are the inputs the tests give. */
function inputProbes(parsed: SourceModule, source: string, packageRules: Set<string>): { module: string; probes: InputProbe[] } | undefined {
  const m = parsed.module;
  const text = (node: object): string | undefined => {
    const span = parsed.spans.get(node);
    return span === undefined ? undefined : source.slice(span.start, span.end);
  };
  const rules = new Set([...packageRules, ...m.rules.map((r) => (r.head.ref[0]?.type === 'var' ? r.head.ref[0].name : ''))]);
  const lines = [`package ${refToString(m.package.path).replace(/^data\./, '')}`, 'import rego.v1'];
  for (const i of m.imports)
    if (refToString(i.path) !== 'rego.v1' && !refToString(i.path).startsWith('future.'))
      lines.push(`import ${refToString(i.path)}${i.alias ? ` as ${i.alias}` : ''}`);
  const probes: InputProbe[] = [];
  m.rules.forEach((r) => {
    const name = r.head.ref[0]?.type === 'var' ? r.head.ref[0].name : '';
    if (!name.startsWith('test_') || r.head.args !== undefined) return;
    let n = 0;
    for (const lit of inputLiterals(r.body)) {
      const target = targetOf(lit.expr, m, rules);
      const before = lit.before.map(text);
      const value = text(lit.value);
      if (target === undefined || value === undefined || before.some((b) => b === undefined)) continue;
      const helper = `__corpus_input_${name}_${n++}`;
      lines.push(`${helper} contains __x if {`, ...before.map((b) => `\t${b}`), `\t__x := ${value}`, '}');
      probes.push({ helper: `${refToString(m.package.path)}.${helper}`, target });
    }
  });
  return probes.length === 0 ? undefined : { module: lines.join('\n') + '\n', probes };
}

async function runUnit(unit: Unit, oracle: Oracle, f: Figures): Promise<void> {
  let files: PolicyFiles;
  try {
    files = await readPolicyDirectories(unit.dirs, { v0Compatible: unit.v0 });
  } catch (error) {
    f.differences.push(`${unit.name}: cannot read: ${(error as Error).message}`);
    return;
  }
  // CORPORA_EXCLUDE (a regex over file paths) leaves files out, to run a part of a large corpus while developing.
  const exclude = process.env.CORPORA_EXCLUDE;
  if (exclude !== undefined && exclude !== '') {
    const re = new RegExp(exclude);
    files = { ...files, modules: files.modules.filter((m) => !re.test(m.id)) };
  }
  f.files += files.modules.length;
  const builtins = createDefaultRegistry().registerAll(STANDINS);
  const modules = files.modules.map((m) => ({ file: m.id, source: m.source, ...(m.regoVersion === undefined ? {} : { regoVersion: m.regoVersion }) }));
  let policy: CompiledPolicy | undefined;
  try {
    policy = compilePolicy({ modules, data: files.data, builtins });
    f.loadedHere += files.modules.length;
  } catch (error) {
    f.differences.push(`${unit.name}: does not compile here: ${(error as Error).message.split('\n').slice(0, 3).join(' | ')}`);
  }
  // How OPA's tester runs a v1 unit's tests: the modules with the runner's rewrites (a duplicate test renamed, as OPA's
  // RewriteDuplicateTestNames does; a parameterised test's case-listing rule appended, where OPA's tester injects
  // `internal.test_case`), so OPA is asked the same paths and its values judged as `opa test` judges them.
  // A v0 unit is planned on its --v0-v1 rewrite (OPA reads v1 text), so its duplicate tests are asked of OPA too.
  let plan: ReturnType<typeof planPolicyTests> | undefined;
  try {
    const v1 = unit.v0
      ? files.modules.map(({ regoVersion: _v0, ...m }) => ({ ...m, source: formatRego({ source: m.source, file: m.id, v0ToV1: true }) }))
      : files.modules;
    plan = planPolicyTests(v1);
  } catch (error) {
    f.differences.push(`${unit.name}: the tests cannot be planned for OPA (asked as written): ${(error as Error).message.split('\n')[0]}`);
  }
  // OPA reads v1 text: the v0 files through our --v0-v1 rewrite (the plan's sources, or file by file without a plan).
  const opaModules: Array<[string, string]> = [];
  if (plan !== undefined) for (const m of plan.sources) opaModules.push([m.file, m.source]);
  else
    for (const m of files.modules) {
      try {
        opaModules.push([m.id, unit.v0 ? formatRego({ source: m.source, file: m.id, v0ToV1: true }) : m.source]);
      } catch (error) {
        f.differences.push(`${unit.name}: ${m.id}: not rewritten to v1: ${(error as Error).message}`);
        opaModules.push([m.id, m.source]);
      }
    }
  // Data goes as JSON text: it may hold integers beyond 2^53 (bigint here).
  const data = stringifyJSON(fromJS(files.data));
  const load = await oracle.request({ op: 'load', modules: opaModules, data, standins: STANDINS.map((s) => s.name) });
  const opaLoaded = load.ok === true;
  if (opaLoaded) f.loadedOpa += files.modules.length;
  else f.differences.push(`${unit.name}: OPA does not load it: ${JSON.stringify(load.error).slice(0, 300)}`);

  // The tests: ours through the `policy test` runner, OPA's by evaluating each test rule.
  const ours = new Map<string, PolicyTestResult>();
  if (policy !== undefined) {
    const set = { policy, modules: files.modules, data: files.data, loadedAt: new Date(), generation: 0 };
    try {
      for (const r of runPolicyTests(set).results) ours.set(r.name, r);
    } catch (error) {
      // Reported, never fatal: the unit's tests then count as errors here.
      f.differences.push(`${unit.name}: the test runner failed here: ${(error as Error).message.split('\n').slice(0, 3).join(' | ')}`);
    }
  }
  const names = policy !== undefined ? [...ours.keys()] : testNames(files.modules, unit.v0);
  const verbose = process.env.CORPORA_VERBOSE === '1';
  // What to ask OPA for each test: the planned paths, or (v0, or no plan) the rule named as the test, duplicates aside.
  const planned = new Map((plan?.tests ?? []).map((t) => [t.name, t]));
  const opaRef = (name: string): { ref: string; casesRef?: string } | undefined => {
    if (plan === undefined) return name.includes('#') ? undefined : { ref: name };
    const t = planned.get(name);
    if (t === undefined || t.skip) return undefined;
    return { ref: pathRef(t.evalPath), ...(t.casesPath === undefined ? {} : { casesRef: pathRef(t.casesPath) }) };
  };
  // The pylib evaluates with strict builtin errors and `opa test` without: where OPA's answer is a builtin error (or a
  // builtin's operand type error), its `opa test` outcome is not observable, and our test is compared under strict builtin errors too.
  // The planned paths exist in the modules as the runner rewrote them.
  let strictPolicy = policy;
  if (policy !== undefined && plan !== undefined) {
    try {
      strictPolicy = compilePolicy({ modules: plan.sources, data: files.data, builtins });
    } catch (error) {
      f.differences.push(`${unit.name}: the runner's rewrite does not compile here: ${(error as Error).message.split('\n')[0]}`);
      strictPolicy = undefined;
    }
  }
  const strictHere = new Map<string, Outcome>();
  for (const name of names) strictHere.set(name, strictPolicy === undefined ? 'error' : strictOutcome(strictPolicy, opaRef(name) ?? { ref: name }));
  const asked = names.filter((n) => opaRef(n) !== undefined && ours.get(n)?.outcome !== 'skip');
  const opaOutcomes = new Map<string, Outcome | 'builtin-error'>();
  if (opaLoaded) {
    const asks: Ask[] = [];
    const at = new Map<string, { value: number; cases?: number }>();
    for (const name of asked) {
      const r = opaRef(name) as { ref: string; casesRef?: string };
      const errsHere = strictHere.get(name) === 'error';
      const entry: { value: number; cases?: number } = { value: asks.push({ ref: r.ref, errsHere }) - 1 };
      if (r.casesRef !== undefined) entry.cases = asks.push({ ref: r.casesRef, errsHere }) - 1;
      at.set(name, entry);
    }
    const values = await opaValues(oracle, asks);
    for (const name of asked) {
      const entry = at.get(name) as { value: number; cases?: number };
      const v = values[entry.value] as OpaValue;
      const c = entry.cases === undefined ? undefined : (values[entry.cases] as OpaValue);
      const failed = [v, c].find((x): x is { error: string } => x !== undefined && !Array.isArray(x));
      if (failed !== undefined) {
        if (verbose) process.stderr.write(`OPA error ${name}: ${failed.error.slice(0, 300)}\n`);
        // A builtin's operand error (`plus: operand 1 must be number`) is an eval_type_error, collected and made
        // undefined without strict errors exactly as an eval_builtin_error is (topdown's evalBuiltin): the same case.
        opaOutcomes.set(name, /eval_builtin_error|eval_type_error: [\w.]+: operand \d/.test(failed.error) ? 'builtin-error' : 'error');
        continue;
      }
      const value = v as unknown[];
      if (value.length === 0) opaOutcomes.set(name, 'fail');
      else if (c !== undefined) {
        // A parameterised test, judged as OPA's tester judges it (subResults): each case passes when its value is
        // `true`; a case the body reached (its case-listing rule) without giving a value fails; the test fails when a case does.
        const reached = (c as unknown[])[0];
        const cases = caseResults(fromJS(value[0]), RegoSet.of(Array.isArray(reached) ? reached.map((x) => fromJS(x)) : []));
        opaOutcomes.set(name, cases.some((x) => x.fail) ? 'fail' : 'pass');
      } else opaOutcomes.set(name, value.length === 1 && value[0] === true ? 'pass' : 'fail');
    }
  }
  let duplicates = 0;
  for (const name of names) {
    if (verbose) process.stderr.write(`test ${name}\n`);
    // A second definition of a test name runs on its own here as `test_x#01`, as `opa test` runs it; the pylib can
    // only evaluate the rule `test_x`, which ORs the definitions, so such a test cannot be asked of OPA: not compared.
    if (name.includes('#') && plan === undefined) {
      duplicates++;
      continue;
    }
    f.tests++;
    let here: Outcome = ours.get(name)?.outcome ?? 'error';
    // A `todo_test_*` rule is skipped by OPA's runner as by ours: evaluating it would not be what OPA does.
    const opa = here === 'skip' ? 'skip' : (opaOutcomes.get(name) ?? 'error');
    let there: Outcome;
    if (opa === 'builtin-error') {
      f.strictCompared++;
      there = 'error';
      here = strictHere.get(name) ?? 'error';
    } else there = opa;
    if (here === 'pass') f.passHere++;
    if (there === 'pass') f.passOpa++;
    if (here === there) f.agree++;
    else f.differences.push(`${name}: ${here} here, ${there} in OPA${ours.get(name)?.detail ? ` (here: ${ours.get(name)?.detail?.slice(0, 160)})` : ''}`);
  }
  if (duplicates > 0)
    f.differences.push(`${unit.name}: ${duplicates} duplicate test definition(s) (test_x#01, …) not compared: OPA's runner is not reachable through the pylib`);
  if (policy === undefined || !opaLoaded) return;

  // The rules on the tests' inputs.
  const probeModules: Array<[string, string]> = [];
  const probes: InputProbe[] = [];
  const parsedModules: Array<[PolicySource, SourceModule]> = [];
  // The rules of each package, over all its files (a test reads rules of its package written elsewhere).
  const packageRules = new Map<string, Set<string>>();
  for (const m of files.modules) {
    try {
      const parsed = parseModuleWithSource({ source: m.source, file: m.id, ...(m.regoVersion === undefined ? {} : { regoVersion: m.regoVersion }) });
      parsedModules.push([m, parsed]);
      const pkg = refToString(parsed.module.package.path);
      const set = packageRules.get(pkg) ?? new Set<string>();
      for (const r of parsed.module.rules) if (r.head.ref[0]?.type === 'var') set.add(r.head.ref[0].name);
      packageRules.set(pkg, set);
    } catch {
      // Not parsed here: no inputs from it.
    }
  }
  for (const [m, parsed] of parsedModules) {
    if (!/test/.test(m.id)) continue;
    const p = inputProbes(parsed, m.source, packageRules.get(refToString(parsed.module.package.path)) ?? new Set());
    if (p === undefined) continue;
    probeModules.push([`${m.id}.__inputs.rego`, p.module]);
    probes.push(...p.probes);
  }
  if (probes.length === 0) return;
  const probeLoad = await oracle.request({ op: 'load', modules: [...opaModules, ...probeModules], data, standins: STANDINS.map((s) => s.name) });
  if (probeLoad.ok !== true) {
    f.differences.push(`${unit.name}: input helpers do not compile in OPA (inputs skipped): ${JSON.stringify(probeLoad.error).slice(0, 200)}`);
    return;
  }
  const inputs: Array<{ target: string; input: unknown }> = [];
  const helperValues = await opaValues(
    oracle,
    probes.map((p) => ({ ref: p.helper })),
  );
  probes.forEach((p, i) => {
    const v = helperValues[i] as OpaValue;
    const set = Array.isArray(v) ? ((v[0] as unknown[] | undefined) ?? []) : [];
    for (const input of set) inputs.push({ target: p.target, input });
  });
  await oracle.request({ op: 'load', modules: opaModules, data, standins: STANDINS.map((s) => s.name) });
  const hereAnswers = inputs.map(({ target, input }) => ourAnswer(policy, `x = ${target}`, input));
  const thereValues = await opaValues(
    oracle,
    inputs.map(({ target, input }, i) => ({ ref: target, input, errsHere: hereAnswers[i] === 'error' })),
  );
  inputs.forEach(({ target, input }, i) => {
    const v = thereValues[i] as OpaValue;
    const there = Array.isArray(v) ? (v.length === 0 ? 'undefined' : canonical(v)) : 'error';
    const here = hereAnswers[i] as string;
    f.inputs++;
    if (here === there) f.docsAgree++;
    else f.differences.push(`${target} on ${canonical(input).slice(0, 120)}: here ${here.slice(0, 200)} / OPA ${there.slice(0, 200)}`);
  });
}

/** `data.a.b["c-d"]` for a path. */
function pathRef(path: readonly string[]): string {
  return ['data', ...path.map((p) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(p) ? `.${p}` : `[${JSON.stringify(p)}]`))].join('');
}

/** A test's outcome here under strict builtin errors, as the pylib evaluates it. */
function strictOutcome(policy: CompiledPolicy, at: { ref: string; casesRef?: string }): Outcome {
  try {
    const rows = policy.query(`x = ${at.ref}`, { strictBuiltinErrors: true });
    if (rows.length !== 1) return 'fail';
    if (at.casesRef === undefined) return rows[0]?.x === true ? 'pass' : 'fail';
    const reached = policy.query(`x = ${at.casesRef}`, { strictBuiltinErrors: true })[0]?.x;
    return caseResults(rows[0]?.x as Value, reached).some((c) => c.fail) ? 'fail' : 'pass';
  } catch {
    return 'error';
  }
}

/** One document to ask OPA for, on an input given as JSON (none: the loaded data alone). */
interface Ask {
  ref: string;
  input?: unknown;
  /** Whether evaluating it here (strict builtin errors, as the pylib evaluates) raised an error: it is then asked alone. */
  errsHere?: boolean;
}

/** OPA's answer for an {@link Ask}: the document's values (`[]` undefined, `[value]`), or its error message. */
type OpaValue = unknown[] | { error: string };

/**
 * OPA's values of many documents. Each query costs the pylib a preparation
 * against the whole corpus (about 10 s for trivy-checks' 1,125 modules on
 * this machine), so documents are asked together, one conjunct each
 * (`x7 = [v | v := data.p.q] with input as {…}`: `[]` when undefined). An
 * error (the pylib evaluates with strict builtin errors) stops the whole
 * query, so what errs here is asked alone first, and a batch that still errs
 * is split until the erring document stands alone.
 */
async function opaValues(oracle: Oracle, asks: Ask[]): Promise<OpaValue[]> {
  const out: OpaValue[] = asks.map(() => []);
  const ask = async (batch: number[]): Promise<void> => {
    if (batch.length === 0) return;
    const query = batch
      .map((i, j) => {
        const a = asks[i] as Ask;
        return `x${j} = [v | v := ${a.ref}]${a.input === undefined ? '' : ` with input as ${stringifyJSON(fromJS(a.input))}`}`;
      })
      .join('; ');
    const env = await oracle.request({ op: 'eval', query, input: null });
    if (env.error) {
      if (batch.length === 1) out[batch[0] as number] = { error: JSON.stringify(env.error) };
      else {
        const half = Math.ceil(batch.length / 2);
        await ask(batch.slice(0, half));
        await ask(batch.slice(half));
      }
      return;
    }
    const bindings = ((env.result ?? []) as Array<{ bindings?: Record<string, unknown> }>)[0]?.bindings ?? {};
    batch.forEach((i, j) => (out[i] = (bindings[`x${j}`] as unknown[] | undefined) ?? []));
  };
  const alone = asks.flatMap((a, i) => (a.errsHere ? [i] : []));
  const rest = asks.flatMap((a, i) => (a.errsHere ? [] : [i]));
  for (const i of alone) await ask([i]);
  for (let i = 0; i < rest.length; i += 300) await ask(rest.slice(i, i + 300));
  return out;
}

/** Test names when our engine could not compile the unit (each then counts as an error here). */
function testNames(modules: PolicySource[], v0: boolean): string[] {
  const out: string[] = [];
  for (const m of modules) {
    try {
      const parsed = parseModuleWithSource({ source: m.source, file: m.id, regoVersion: v0 ? 0 : 1 });
      const pkg = refToString(parsed.module.package.path);
      for (const r of parsed.module.rules) {
        const first = r.head.ref[0];
        if (r.head.ref.length === 1 && first?.type === 'var' && first.name.startsWith('test_') && r.head.args === undefined) out.push(`${pkg}.${first.name}`);
      }
    } catch {
      // Not parsed here: its tests cannot be named.
    }
  }
  return [...new Set(out)];
}

async function main(): Promise<void> {
  const roots = process.argv.slice(2);
  const pylib = process.env.FRAMEWORK_OPA_PYLIB;
  if (roots.length === 0 || pylib === undefined) {
    console.error('usage: FRAMEWORK_OPA_PYLIB=<unpacked opa-golib-python-bindings> node dist/bench/rego-corpora.js <corpus checkout>...');
    process.exit(2);
  }
  const oracle = new Oracle(pylib);
  const rows: string[] = [];
  const table = (): void => {
    console.log('\n| corpus | files | loaded here / OPA | tests | pass here | pass OPA | same outcome | rule results equal / inputs |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
  };
  const show = Number(process.env.CORPORA_SHOW ?? 40);
  const report = (name: string, root: string, f: Figures, started: number, partial: boolean): void => {
    console.log(`\n== ${name} (${root}), ${((Date.now() - started) / 1000).toFixed(1)} s${partial ? ', stopped before the end: partial figures' : ''}`);
    if (f.strictCompared > 0)
      console.log(`  ${f.strictCompared} test(s) end in a builtin error in the pylib's strict evaluation: compared under strict builtin errors here too`);
    for (const d of f.differences.slice(0, show)) console.log(`  ${d}`);
    if (f.differences.length > show) console.log(`  ... ${f.differences.length - show} more`);
    rows.push(
      `| ${name}${partial ? ' (partial)' : ''} | ${f.files} | ${f.loadedHere} / ${f.loadedOpa} | ${f.tests} | ${f.passHere} | ${f.passOpa} | ${f.agree} | ${f.docsAgree} / ${f.inputs} |`,
    );
  };
  // A large corpus may outlast the time given (`timeout`): what was compared so far is printed, not lost.
  let current: { name: string; root: string; f: Figures; started: number } | undefined;
  process.once('SIGTERM', () => {
    if (current !== undefined) report(current.name, current.root, current.f, current.started, true);
    table();
    oracle.close();
    process.exit(124);
  });
  try {
    for (const root of roots) {
      const corpus = detect(root);
      const f: Figures = {
        units: corpus.units.length,
        files: 0,
        loadedHere: 0,
        loadedOpa: 0,
        tests: 0,
        passHere: 0,
        passOpa: 0,
        agree: 0,
        inputs: 0,
        docsAgree: 0,
        strictCompared: 0,
        differences: [],
      };
      const started = Date.now();
      current = { name: corpus.name, root, f, started };
      for (const unit of corpus.units) {
        try {
          await runUnit(unit, oracle, f);
        } catch (error) {
          f.differences.push(`${unit.name}: the harness failed on it: ${(error as Error).stack?.split('\n').slice(0, 4).join(' | ')}`);
        }
      }
      current = undefined;
      report(corpus.name, root, f, started, false);
    }
  } finally {
    oracle.close();
  }
  table();
}

await main();
