import { beforeAll, describe, expect, it } from 'vitest';
import { loadCases } from '../../../runtime/policy/conformance.js';
import { formatRego } from '../../../runtime/policy/format/index.js';
import { parseModule } from '../../../runtime/policy/parser.js';
import { opaConformanceDir } from '../../support/opa-conformance.js';

/** Absent on a user's clone (skipped, saying where to get it); required in CI. */
const dir = opaConformanceDir();

/** The AST without what formatting may change: locations, generated markers, and `=` vs `:=` in rule heads. */
function meaning(source: string): string {
  const drop = new Set(['loc', 'module', 'file', 'generated', 'generatedValue', 'assign']);
  return JSON.stringify(parseModule(source, 'm.rego'), (k, v: unknown) => (drop.has(k) ? undefined : typeof v === 'bigint' ? `${v}n` : v));
}

/**
 * Every module of OPA's conformance suite (2,000+ modules, written by many
 * hands in many layouts): formatting keeps its meaning and a second
 * formatting changes nothing.
 */
describe.skipIf(dir === undefined)('formatRego over the OPA conformance modules', () => {
  // Loaded in beforeAll, not in the body: vitest runs a skipped describe's body too (to collect its tests).
  let modules: string[] = [];
  beforeAll(() => {
    modules = loadCases(dir!).flatMap((c) => c.testCase.modules ?? []);
  });

  it('finds the modules', () => {
    expect(modules.length).toBeGreaterThan(2_000);
  });

  it('keeps each module parsing to the same AST, and is idempotent', () => {
    const broken: string[] = [];
    for (const source of modules) {
      const once = formatRego({ source, file: 'm.rego' });
      if (meaning(once) !== meaning(source)) broken.push(`meaning changed:\n${source}\n---\n${once}`);
      else if (formatRego({ source: once, file: 'm.rego' }) !== once) broken.push(`not idempotent:\n${source}`);
    }
    expect(broken.slice(0, 3)).toEqual([]);
  });
});
