/**
 * Runs OPA's YAML conformance cases (`cases:` with note, query, modules,
 * data, input / input_term, want_result, want_error(_code), strict_error,
 * sort_bindings, skip) against this engine, the way OPA's own test runner
 * does: modules are named `test-<i>.rego`, results are compared as a set of
 * binding objects after a JSON round trip (sets become sorted arrays,
 * non-string object keys become their JSON text).
 *
 * @example
 * const report = runConformance({ dir: '../shared/opa-conformance' });
 * console.log(report.passed, '/', report.total);
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import YAML from 'yaml';
import { createDefaultRegistry } from './builtins/index.js';
import { asString, type BuiltinDefinition } from './builtins/registry.js';
import { parseDuration } from './builtins/time.js';
import { compilePolicy } from './engine.js';
import { PolicyError } from './errors.js';
import { constantValue } from './compiler/constant.js';
import { parseTermText } from './parser.js';
import { fromJS, toJS } from './value-json.js';
import { compare, equal, RegoObject, RegoSet, type Value } from './value.js';

export interface ConformanceCase {
  note: string;
  query: string;
  modules?: string[];
  data?: unknown;
  input?: unknown;
  input_term?: string;
  want_result?: Array<Record<string, unknown>>;
  want_error?: string;
  want_error_code?: string;
  strict_error?: boolean;
  sort_bindings?: boolean;
  skip?: boolean;
}

export type CaseStatus = 'passed' | 'failed' | 'unsupported' | 'skipped';

export interface CaseResult {
  /** File path relative to the conformance directory. */
  file: string;
  /** First path segment (the OPA category). */
  folder: string;
  note: string;
  status: CaseStatus;
  reason?: string;
}

export interface FolderCounts {
  total: number;
  passed: number;
  failed: number;
  unsupported: number;
  skipped: number;
}

export interface ConformanceReport extends FolderCounts {
  folders: Record<string, FolderCounts>;
  results: CaseResult[];
}

export interface LoadedCase {
  file: string;
  folder: string;
  testCase: ConformanceCase;
  /** Set when the file could not be read as YAML; the case then fails with this reason. */
  loadError?: string;
}

function walkFiles(dir: string, out: string[]): void {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walkFiles(p, out);
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
}

/** Loads every case of every YAML file under `dir`. */
export function loadCases(dir: string): LoadedCase[] {
  const files: string[] = [];
  walkFiles(dir, files);
  const out: LoadedCase[] = [];
  for (const path of files) {
    const file = relative(dir, path);
    const folder = file.split(/[\\/]/)[0] ?? '';
    let doc: { cases?: ConformanceCase[] } | null;
    try {
      doc = YAML.parse(readFileSync(path, 'utf8'), { intAsBigInt: true }) as { cases?: ConformanceCase[] } | null;
    } catch (e) {
      const reason = `cannot load file: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`;
      out.push({ file, folder, testCase: { note: '(whole file)', query: '' }, loadError: reason });
      continue;
    }
    for (const testCase of doc?.cases ?? []) out.push({ file, folder, testCase });
  }
  return out;
}

/** Result values as OPA's runner sees them: JSON round trip, optionally sorted. */
function normalizeBinding(v: Value, sort: boolean): Value {
  let x = fromJS(toJS(v));
  if (sort && Array.isArray(x)) x = [...x].sort(compare);
  return x;
}

function describe(rows: Value[]): string {
  return JSON.stringify(
    rows.map((r) => toJS(r)),
    (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v),
  );
}

/**
 * `test.sleep(duration)`: the builtin OPA's own test harness adds for the
 * conformance cases (`time caching` checks that time.now_ns stays fixed
 * across it). It blocks for the Go duration given.
 */
const testSleep: BuiltinDefinition = {
  name: 'test.sleep',
  args: ['string'],
  impl: ([d]) => {
    const ms = Number(parseDuration(asString(d, 1)) / 1_000_000n);
    if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(ms, 1_000));
    return undefined;
  },
};
const conformanceBuiltins = createDefaultRegistry().register(testSleep);

/** Runs one case. Never throws. */
export function runCase(loaded: LoadedCase): CaseResult {
  const { file, folder, testCase: c } = loaded;
  const base = { file, folder, note: c.note };
  if (loaded.loadError !== undefined) return { ...base, status: 'failed', reason: loaded.loadError };
  if (c.skip === true) return { ...base, status: 'skipped' };
  const wantsError = c.want_error !== undefined || c.want_error_code !== undefined;
  try {
    const modules = (c.modules ?? []).map((source, i) => ({ file: `test-${i}.rego`, source }));
    const policy = compilePolicy({ modules, data: c.data ?? {}, builtins: conformanceBuiltins });
    let input: Value | undefined;
    if (c.input_term !== undefined) {
      const v = constantValue(parseTermText(c.input_term, 'input'));
      if (v === undefined) return { ...base, status: 'unsupported', reason: 'input_term that needs evaluation' };
      input = v;
    } else if (c.input !== undefined) input = fromJS(c.input);
    const rows = policy.query(c.query, { inputValue: input, strictBuiltinErrors: c.strict_error === true });
    if (wantsError)
      return { ...base, status: 'failed', reason: `expected error ${c.want_error_code ?? ''} ${c.want_error ?? ''} but got ${rows.length} result(s)` };
    if (c.want_result === undefined) return { ...base, status: 'failed', reason: 'case has no want_result or want_error' };
    const got = new RegoSet();
    const gotRows: Value[] = [];
    for (const row of rows) {
      const o = new RegoObject();
      for (const [k, v] of Object.entries(row)) o.set(k, normalizeBinding(v, c.sort_bindings === true));
      got.add(o);
      gotRows.push(o);
    }
    const want = new RegoSet();
    const wantRows: Value[] = [];
    for (const row of c.want_result) {
      const o = fromJS(row ?? {});
      want.add(o);
      wantRows.push(o);
    }
    if (equal(got, want)) return { ...base, status: 'passed' };
    return { ...base, status: 'failed', reason: `unexpected result: want ${describe(wantRows)} got ${describe(gotRows)}` };
  } catch (e) {
    if (PolicyError.isInstance(e)) {
      if (e.code === 'unsupported' || e.errors.some((x) => x.code === 'unsupported')) return { ...base, status: 'unsupported', reason: e.message };
      if (!wantsError) return { ...base, status: 'failed', reason: `unexpected error: ${e.message}` };
      if (c.want_error_code !== undefined && e.code !== c.want_error_code) {
        return { ...base, status: 'failed', reason: `expected code ${c.want_error_code} but got: ${e.message}` };
      }
      if (c.want_error !== undefined && !e.message.includes(c.want_error)) {
        return { ...base, status: 'failed', reason: `expected error text ${JSON.stringify(c.want_error)} but got: ${e.message}` };
      }
      return { ...base, status: 'passed' };
    }
    const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    return { ...base, status: 'failed', reason: `internal error: ${msg}` };
  }
}

function emptyCounts(): FolderCounts {
  return { total: 0, passed: 0, failed: 0, unsupported: 0, skipped: 0 };
}

export interface RunConformanceOptions {
  /** Directory holding the category folders. */
  dir: string;
  /** Only run cases whose folder is in this list. */
  folders?: readonly string[];
}

/** Loads and runs every case under `dir`. */
export function runConformance(options: RunConformanceOptions): ConformanceReport {
  const report: ConformanceReport = { ...emptyCounts(), folders: {}, results: [] };
  for (const loaded of loadCases(options.dir)) {
    if (options.folders !== undefined && !options.folders.includes(loaded.folder)) continue;
    const r = runCase(loaded);
    report.results.push(r);
    const f = (report.folders[r.folder] ??= emptyCounts());
    for (const counts of [report, f]) {
      counts.total++;
      counts[r.status]++;
    }
  }
  return report;
}
