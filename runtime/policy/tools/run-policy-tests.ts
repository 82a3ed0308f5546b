import { parseModule } from '../parser.js';
import { PolicyError } from '../errors.js';
import type { Term } from '../ast.js';
import { formatValue } from '../value-format.js';
import type { PolicySet } from '../server/policy-set.js';
import { compilePolicy } from '../engine.js';
import type { Module } from '../ast.js';
import { coverageReport, type CoverageReport } from './test-coverage.js';

export interface PolicyTestResult {
  /** `data.<package>.<rule>` */
  name: string;
  file: string;
  row: number;
  outcome: 'pass' | 'fail' | 'error';
  /** What the test evaluated to when it failed, or the error message. */
  detail?: string;
  durationNs: number;
}

export interface PolicyTestReport {
  results: PolicyTestResult[];
  passed: number;
  failed: number;
  errors: number;
  /** With `coverage`: OPA's coverage report over every module, tests included. */
  coverage?: CoverageReport;
}

/**
 * Runs every rule whose name starts with `test_` in the loaded modules, like
 * `opa test`: a test passes when it is defined and true; undefined or any
 * other value fails; an evaluation error is an error. Tests run in file order.
 */
export function runPolicyTests(set: PolicySet, options: { filter?: RegExp; coverage?: boolean } = {}): PolicyTestReport {
  const results: PolicyTestResult[] = [];
  const hits = new Set<string>();
  // Coverage needs a copy compiled with recording hooks; plain runs keep the fast compiled set.
  const policy = options.coverage
    ? compilePolicy({ modules: set.modules.map((m) => ({ file: m.id, source: m.source })), data: set.data, coverage: hits })
    : set.policy;
  const parsed: Array<{ id: string; module: Module }> = [];
  for (const source of set.modules) {
    const module = parseModule(source.source, source.id, source.regoVersion);
    parsed.push({ id: source.id, module });
    const pkg = packagePath(module.package.path.terms);
    const seen = new Set<string>();
    for (const rule of module.rules) {
      const first = rule.head.ref[0];
      if (rule.head.ref.length !== 1 || first?.type !== 'var' || !first.name.startsWith('test_') || rule.head.args) continue;
      const name = `data.${[...pkg, first.name].join('.')}`;
      if (seen.has(name) || (options.filter && !options.filter.test(name))) continue;
      seen.add(name);
      const started = process.hrtime.bigint();
      let outcome: PolicyTestResult['outcome'] = 'pass';
      let detail: string | undefined;
      try {
        const value = policy.evaluate([...pkg, first.name], undefined, { strictBuiltinErrors: true });
        if (value !== true) {
          outcome = 'fail';
          detail = value === undefined ? 'undefined' : formatValue(value);
        }
      } catch (error) {
        if (!PolicyError.isInstance(error)) throw error;
        outcome = 'error';
        detail = error.message;
      }
      results.push({
        name,
        file: source.id,
        row: rule.loc.row,
        outcome,
        ...(detail === undefined ? {} : { detail }),
        durationNs: Number(process.hrtime.bigint() - started),
      });
    }
  }
  return {
    results,
    passed: results.filter((r) => r.outcome === 'pass').length,
    failed: results.filter((r) => r.outcome === 'fail').length,
    errors: results.filter((r) => r.outcome === 'error').length,
    ...(options.coverage ? { coverage: coverageReport(parsed, hits) } : {}),
  };
}

/** `data.a.b` → `['a', 'b']`. */
function packagePath(terms: readonly Term[]): string[] {
  return terms.slice(1).map((t) => (t.type === 'string' ? t.value : String((t as { name?: string }).name)));
}
