/**
 * A measurement, not a check: generated YAML texts (the three yaml
 * templates' generators) through yaml.unmarshal in OPA v1.20.2 (the oracle)
 * and here, counting the texts whose answer is OPA's (the same value, or
 * the same error text word for word). Skipped unless YAML_MEASURE names
 * `seed:count`, e.g.
 *
 *   YAML_MEASURE=5:2000 npx vitest run test/policy/differential/yaml-measure.test.ts
 *
 * Prints one line per generator; asserts nothing.
 */
import { it } from 'vitest';
import { brokenYaml, scalarText, yamlDocument } from './corpus-yaml.js';
import { buildBatch, oracleDir, runDifferential } from './differ.js';
import type { Rng, Template } from './corpus.js';

const spec = process.env.YAML_MEASURE;
const pylib = oracleDir();

it.skipIf(spec === undefined || pylib === undefined)('measures yaml.unmarshal answers against OPA (YAML_MEASURE=seed:count)', () => {
  const [seed = 5, count = 2000] = (spec ?? '').split(':').map(Number);
  const generators: Array<[string, (rng: Rng) => string]> = [
    ['broken', brokenYaml],
    ['documents', yamlDocument],
    ['scalars', scalarText],
  ];
  for (const [name, gen] of generators) {
    const template: Template = {
      name: `yaml-measure-${name}`,
      modules: [['m.rego', 'package p\n\nv := yaml.unmarshal(input.s)\n']],
      rules: ['data.p.v'],
      inputs: (rng) => JSON.stringify({ s: gen(rng) }),
      exactErrors: true,
    };
    const report = runDifferential([template], buildBatch([template], count, seed), pylib as string);
    const refusedByOpa = report.disagreements.filter((d) => d.opa.startsWith('error')).length;
    console.log(
      `yaml ${name} (seed ${seed}): ${report.evaluations} texts, ${report.agreed} answer as OPA; ` +
        `${report.disagreements.length} differ (${refusedByOpa} of them refused by OPA)`,
    );
    for (const d of report.disagreements.slice(0, 5)) console.log(`  ${d.input}\n    OPA  ${d.opa}\n    ours ${d.ours}`);
  }
});
