/**
 * A measurement, not a check: broken modules (corpus-parse-errors.ts)
 * through OPA v1.20.2 (the oracle) and here, twice: `rego.parse_module`'s
 * answer (the AST, or the error text word for word) and the compile error of
 * loading the text as a module. Skipped unless PARSE_MEASURE names
 * `seed:count`, e.g.
 *
 *   PARSE_MEASURE=5:2000 npx vitest run test/policy/differential/parse-measure.test.ts
 *
 * Prints the counts and the first differences; asserts nothing.
 */
import { it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { PolicyError } from '../../../runtime/policy/errors.js';
import { brokenModule, PARSE_TEMPLATES } from './corpus-parse-errors.js';
import { askOracle, buildBatch, oracleDir, runDifferential } from './differ.js';
import { Rng, type Template } from './corpus.js';

const spec = process.env.PARSE_MEASURE;
const pylib = oracleDir();

it.skipIf(spec === undefined || pylib === undefined)('measures parse errors against OPA (PARSE_MEASURE=seed:count)', () => {
  const [seed = 5, count = 2000] = (spec ?? '').split(':').map(Number);
  const show = Number(process.env.PARSE_SHOW ?? 8);
  const report = runDifferential(PARSE_TEMPLATES, buildBatch(PARSE_TEMPLATES, count, seed), pylib as string);
  console.log(`rego.parse_module (seed ${seed}): ${report.evaluations} texts, ${report.agreed} answer as OPA, ${report.disagreements.length} differ`);
  for (const d of report.disagreements.slice(0, show)) console.log(`  ${d.input}\n    OPA  ${d.opa}\n    ours ${d.ours}`);

  for (const way of ['whole', 'cut-token', 'cut', 'delete', 'insert', 'swap', 'double', 'replace'] as const) {
    const t: Template = { ...PARSE_TEMPLATES[0]!, name: `parse-${way}`, inputs: (r) => JSON.stringify({ s: brokenModule(r, [way]) }) };
    const r = runDifferential([t], buildBatch([t], Math.ceil(count / 4), seed), pylib as string);
    console.log(`  ${way}: ${r.agreed} of ${r.evaluations} answer as OPA`);
  }

  const rng = new Rng(seed);
  const texts = Array.from({ length: count }, () => brokenModule(rng));
  const out = askOracle(
    texts.map((s) => ({ modules: [['broken.rego', s]] as const, evals: [{ query: 'x = 1', input: null }] })),
    pylib as string,
  );
  let same = 0;
  const diffs: string[] = [];
  texts.forEach((s, i) => {
    const env = JSON.parse(out[i]!) as { error?: { message: string } };
    const opa = env.error === undefined ? 'ok' : env.error.message.replace(/^bundle activation failed: /, '').replace(/^1 error occurred: /, '');
    let ours = 'ok';
    try {
      compilePolicy({ modules: [{ file: 'broken.rego', source: s }] });
    } catch (e) {
      ours = PolicyError.isInstance(e) ? e.message : `crash ${String(e)}`;
    }
    if (opa === ours) same++;
    else diffs.push(`  ${JSON.stringify(s)}\n    OPA  ${JSON.stringify(opa)}\n    ours ${JSON.stringify(ours)}`);
  });
  console.log(`compile (seed ${seed}): ${count} texts, ${same} answer as OPA, ${diffs.length} differ`);
  for (const d of diffs.slice(0, show)) console.log(d);
});
