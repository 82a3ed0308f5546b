/**
 * A measurement, not a check: generated URL texts (the `uri-parse`
 * template's generator) through `uri.parse` and `uri.is_valid` in OPA v1.20.2
 * (the oracle) and here, counting the evaluations whose answer is OPA's (the
 * same value, or the same error text word for word). Skipped unless
 * URI_MEASURE names `seed:count` (count inputs of eight texts each), e.g.
 *
 *   URI_MEASURE=5:500 npx vitest run test/policy/differential/uri-measure.test.ts
 *
 * Prints one line and the first disagreements; asserts nothing.
 */
import { it } from 'vitest';
import { URI_SLOTS, URI_TEMPLATES } from './corpus-uri.js';
import { buildBatch, oracleDir, runDifferential } from './differ.js';

const spec = process.env.URI_MEASURE;
const pylib = oracleDir();

it.skipIf(spec === undefined || pylib === undefined)('measures uri.parse and uri.is_valid against OPA (URI_MEASURE=seed:count)', () => {
  const [seed = 5, count = 500] = (spec ?? '').split(':').map(Number);
  const report = runDifferential(URI_TEMPLATES, buildBatch(URI_TEMPLATES, count, seed), pylib as string);
  console.log(
    `uri (seed ${seed}): ${count * URI_SLOTS} texts, ${report.evaluations} evaluations, ${report.agreed} answer as OPA; ${report.disagreements.length} differ`,
  );
  for (const d of report.disagreements.slice(0, 10)) console.log(`  ${d.rule} ${d.input}\n    OPA  ${d.opa}\n    ours ${d.ours}`);
});
