/**
 * A measurement, not a check: generated JSON schemas and documents (the `json-schema`
 * template's generator) through `json.match_schema` in OPA v1.20.2
 * (the oracle) and here, counting the evaluations whose answer is OPA's (the
 * same value, or the same error text word for word). Skipped unless
 * JSON_SCHEMA_MEASURE names `seed:count` (count inputs of six schema and document pairs each), e.g.
 *
 *   JSON_SCHEMA_MEASURE=5:500 npx vitest run test/policy/differential/json-schema-measure.test.ts
 *
 * Prints one line and the first disagreements; asserts nothing.
 */
import { it } from 'vitest';
import { JSON_SCHEMA_SLOTS, JSON_SCHEMA_TEMPLATES } from './corpus-json-schema.js';
import { buildBatch, oracleDir, runDifferential } from './differ.js';

const spec = process.env.JSON_SCHEMA_MEASURE;
const pylib = oracleDir();

it.skipIf(spec === undefined || pylib === undefined)('measures json.match_schema against OPA (JSON_SCHEMA_MEASURE=seed:count)', () => {
  const [seed = 5, count = 500] = (spec ?? '').split(':').map(Number);
  const report = runDifferential(JSON_SCHEMA_TEMPLATES, buildBatch(JSON_SCHEMA_TEMPLATES, count, seed), pylib as string);
  console.log(
    `json-schema (seed ${seed}): ${count * JSON_SCHEMA_SLOTS} pairs, ${report.evaluations} evaluations, ${report.agreed} answer as OPA; ${report.disagreements.length} differ`,
  );
  for (const d of report.disagreements.slice(0, 10)) console.log(`  ${d.rule} ${d.input}\n    OPA  ${d.opa}\n    ours ${d.ours}`);
});
