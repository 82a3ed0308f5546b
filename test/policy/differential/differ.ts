/**
 * Runs the corpus through our engine and a real OPA (the oracle,
 * `opa_oracle.py`) and lists every disagreement.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compilePolicy, type CompiledPolicy } from '../../../runtime/policy/engine.js';
import { PolicyError } from '../../../runtime/policy/errors.js';
import { parseJSON, stringifyJSON } from '../../../runtime/policy/value-json.js';
import { equal, type Value } from '../../../runtime/policy/value.js';
import { genericInput, Rng, type Template } from './corpus.js';

const here = dirname(fileURLToPath(import.meta.url));

/** One evaluation: a query on a template with an input (JSON text). */
export interface Evaluation {
  template: string;
  rule: string;
  input: string;
}

/** An answer: a value, undefined, or an error. */
export type Answer = { kind: 'value'; value: Value } | { kind: 'undefined' } | { kind: 'error'; code: string; message: string };

export interface Disagreement extends Evaluation {
  opa: string;
  ours: string;
}

export interface DiffReport {
  evaluations: number;
  agreed: number;
  /** Both raised an error, but worded differently (counted, not a wrong answer). */
  errorWording: number;
  /** Those evaluations, both texts kept. */
  worded: Disagreement[];
  disagreements: Disagreement[];
  opaSeconds: number;
  oursSeconds: number;
}

/** Where the unpacked wheel is, or undefined (env FRAMEWORK_OPA_PYLIB). */
export function oracleDir(): string | undefined {
  const dir = process.env.FRAMEWORK_OPA_PYLIB;
  if (dir === undefined || dir === '') return undefined;
  return existsSync(join(dir, 'opa_bindings', 'libopabridge.so')) ? dir : undefined;
}

/** What opa_oracle.py evaluates: modules (file, source), base data as JSON text, and queries over inputs (JSON text). */
export interface OracleGroup {
  modules: ReadonlyArray<readonly [string, string]>;
  data?: string;
  evals: ReadonlyArray<{ query: string; input: string | null }>;
}

/**
 * Asks the real OPA v1.20.2 (opa_oracle.py over the wheel in `pylib`) to
 * evaluate every query of every group: one JSON line per evaluation, in
 * order (`{"result": …}` or `{"error": {code, message}}`). Throws when the
 * oracle fails or answers fewer evaluations than it was asked.
 */
export function askOracle(groups: readonly OracleGroup[], pylib: string): string[] {
  const text = groups.map((g) => JSON.stringify({ modules: g.modules, data: g.data ?? '{}', evals: g.evals })).join('\n') + '\n';
  if (process.env.DIFF_DUMP !== undefined) writeFileSync(process.env.DIFF_DUMP, text);
  const proc = spawnSync(process.env.FRAMEWORK_OPA_PYTHON ?? 'python3', [join(here, 'opa_oracle.py'), pylib], {
    input: text,
    maxBuffer: 1 << 30,
    encoding: 'utf8',
  });
  if (proc.status !== 0) throw new Error(`opa_oracle.py exited with ${proc.status}: ${proc.stderr.slice(0, 4000)}`);
  const out = proc.stdout.split('\n').filter((l) => l !== '');
  const asked = groups.reduce((n, g) => n + g.evals.length, 0);
  if (out.length !== asked) throw new Error(`opa_oracle.py answered ${out.length} of ${asked} evaluations: ${proc.stderr.slice(0, 4000)}`);
  return out;
}

const QUERY_VAR = 'x';

function describe(a: Answer): string {
  if (a.kind === 'undefined') return 'undefined';
  if (a.kind === 'error') return `error ${a.code}: ${a.message}`;
  return stringifyJSON(a.value);
}

/** OPA's envelope as an Answer. */
function opaAnswer(line: string): Answer {
  const env = parseJSON(line);
  const get = (v: Value, k: string): Value | undefined =>
    v !== null && typeof v === 'object' && !Array.isArray(v) && 'get' in v ? (v.get(k) as Value | undefined) : undefined;
  const err = get(env, 'error');
  if (err !== undefined && err !== null) return { kind: 'error', code: String(get(err, 'code')), message: String(get(err, 'message')) };
  const result = get(env, 'result');
  if (!Array.isArray(result) || result.length === 0) return { kind: 'undefined' };
  const first = result[0] as Value;
  const bindings = get(first, 'bindings');
  const v = bindings === undefined ? undefined : get(bindings, QUERY_VAR);
  return v === undefined ? { kind: 'undefined' } : { kind: 'value', value: v };
}

function ourAnswer(policy: CompiledPolicy | PolicyError, query: string, input: string): Answer {
  if (policy instanceof PolicyError) return { kind: 'error', code: policy.code, message: policy.message };
  try {
    const rows = policy.query(query, { inputValue: parseJSON(input), strictBuiltinErrors: true });
    if (rows.length === 0) return { kind: 'undefined' };
    const v = rows[0]?.[QUERY_VAR];
    // As a client of the REST API sees it: one JSON round trip.
    return v === undefined ? { kind: 'undefined' } : { kind: 'value', value: parseJSON(stringifyJSON(v)) };
  } catch (e) {
    if (PolicyError.isInstance(e)) return { kind: 'error', code: e.code, message: e.message };
    return { kind: 'error', code: 'crash', message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

/** An error's text without OPA's `file:row: code: ` lead, as both engines word the rest. */
const errorText = (message: string): string => message.replace(/^(?:[^\s:]+:\d+: )?(?:[a-z_]+_error: )?/, '');

/** A compile error's text without the leads OPA's envelope adds (`bundle activation failed: `, `1 error occurred: `). */
const compileText = (message: string): string => message.replace(/^bundle activation failed: /, '').replace(/^1 error occurred: /, '');

function agree(a: Answer, b: Answer, t: Template): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'value' && b.kind === 'value') return equal(a.value, b.value);
  if (a.kind !== 'error' || b.kind !== 'error') return true;
  if (t.exactErrors === true) return errorText(a.message) === errorText(b.message);
  if (t.exactCompileErrors === true && (a.code.startsWith('rego_') || b.code.startsWith('rego_'))) return compileText(a.message) === compileText(b.message);
  return true;
}

/** The batch: every template × its rules × `perTemplate` seeded inputs. */
export function buildBatch(templates: readonly Template[], perTemplate: number, seed: number): Evaluation[] {
  const out: Evaluation[] = [];
  for (const t of templates) {
    const rng = new Rng(seed ^ hash(t.name));
    for (let i = 0; i < perTemplate; i++) {
      const input = (t.inputs ?? genericInput)(rng);
      for (const rule of t.rules) out.push({ template: t.name, rule, input });
    }
  }
  return out;
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h;
}

/** Runs the batch through OPA (one python process) and through our engine. */
export function runDifferential(templates: readonly Template[], batch: readonly Evaluation[], pylib: string): DiffReport {
  const byName = new Map(templates.map((t) => [t.name, t]));
  const groups = new Map<string, Evaluation[]>();
  for (const e of batch) {
    let g = groups.get(e.template);
    if (g === undefined) groups.set(e.template, (g = []));
    g.push(e);
  }
  const ordered: Evaluation[] = [];
  const oracleGroups: OracleGroup[] = [];
  for (const [name, evals] of groups) {
    const t = byName.get(name)!;
    oracleGroups.push({ modules: t.modules, data: t.data ?? '{}', evals: evals.map((e) => ({ query: `${QUERY_VAR} = ${e.rule}`, input: e.input })) });
    ordered.push(...evals);
  }
  const t0 = process.hrtime.bigint();
  const out = askOracle(oracleGroups, pylib);
  const opaSeconds = Number(process.hrtime.bigint() - t0) / 1e9;

  const t1 = process.hrtime.bigint();
  const policies = new Map<string, CompiledPolicy | PolicyError>();
  const report: DiffReport = { evaluations: ordered.length, agreed: 0, errorWording: 0, worded: [], disagreements: [], opaSeconds, oursSeconds: 0 };
  ordered.forEach((e, i) => {
    let policy = policies.get(e.template);
    if (policy === undefined) {
      const t = byName.get(e.template)!;
      try {
        policy = compilePolicy({ modules: t.modules.map(([file, source]) => ({ file, source })), data: parseJSON(t.data ?? '{}') });
      } catch (err) {
        if (!PolicyError.isInstance(err)) throw err;
        policy = err;
      }
      policies.set(e.template, policy);
    }
    const ours = ourAnswer(policy, `${QUERY_VAR} = ${e.rule}`, e.input);
    const opa = opaAnswer(out[i]!);
    if (agree(opa, ours, byName.get(e.template)!)) {
      report.agreed++;
      if (opa.kind === 'error' && ours.kind === 'error' && !opa.message.includes(ours.message.replace(/^[^:]*: /, ''))) {
        report.errorWording++;
        report.worded.push({ ...e, opa: describe(opa), ours: describe(ours) });
      }
    } else report.disagreements.push({ ...e, opa: describe(opa), ours: describe(ours) });
  });
  report.oursSeconds = Number(process.hrtime.bigint() - t1) / 1e9;
  return report;
}
