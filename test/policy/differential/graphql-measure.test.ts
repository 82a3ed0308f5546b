/**
 * A measurement, not a check: generated GraphQL queries that break several
 * validation rules (corpus-graphql.ts) through graphql.parse in OPA v1.20.2
 * (the oracle) and here, as text and as AST objects (queries with no
 * misplaced directive: see multiErrorQuery). Counts the queries OPA
 * refuses with more than one error, and among them those whose first error
 * and whose whole message are OPA's. Skipped unless GQL_MEASURE names
 * `seed:count`, e.g.
 *
 *   GQL_MEASURE=5:300 npx vitest run test/policy/differential/graphql-measure.test.ts
 *
 * Prints the counts and the first few differences; asserts nothing.
 */
import { it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { PolicyError } from '../../../runtime/policy/errors.js';
import { parseJSON } from '../../../runtime/policy/value-json.js';
import { Rng } from './corpus.js';
import { GRAPHQL_SCHEMA, multiErrorQuery } from './corpus-graphql.js';
import { askOracle, oracleDir } from './differ.js';

const spec = process.env.GQL_MEASURE;
const pylib = oracleDir();
const MODULE = 'package p\n\npp := graphql.parse(input.q, input.s)\npp_ast := graphql.parse(graphql.parse_query(input.qa), input.s)\n';

/** The builtin's message without the `file:row: eval_builtin_error: graphql.parse: ` lead; '' when there was no error. */
const strip = (m: string) => m.replace(/^[^:]*:\d+: [a-z_]+: graphql\.parse: /, '');

it.skipIf(spec === undefined || pylib === undefined)('measures graphql.parse error lists against OPA (GQL_MEASURE=seed:count)', () => {
  const [seed = 5, count = 300] = (spec ?? '').split(':').map(Number);
  const rng = new Rng(seed);
  const inputs = Array.from({ length: count }, () => JSON.stringify({ q: multiErrorQuery(rng), qa: multiErrorQuery(rng, true), s: GRAPHQL_SCHEMA }));
  const policy = compilePolicy({ modules: [{ file: 'p.rego', source: MODULE }] });
  for (const rule of ['pp', 'pp_ast']) {
    const group = { modules: [['p.rego', MODULE] as const], evals: inputs.map((input) => ({ query: `x = data.p.${rule}`, input })) };
    const opa = askOracle([group], pylib as string).map((l) => {
      const env = JSON.parse(l) as { error?: { message: string } };
      return env.error === undefined ? '' : strip(env.error.message);
    });
    let refused = 0;
    let multi = 0;
    let firstSame = 0;
    let wholeSame = 0;
    let allSame = 0;
    let opaPanics = 0;
    const shown: string[] = [];
    inputs.forEach((input, i) => {
      let ours = '';
      try {
        policy.query(`x = data.p.${rule}`, { inputValue: parseJSON(input), strictBuiltinErrors: true });
      } catch (e) {
        ours = PolicyError.isInstance(e) ? strip(e.message) : `crash: ${String(e)}`;
      }
      const theirs = opa[i] ?? '';
      // OPA v1.20.2 dereferences a nil position for a misplaced directive in a query given as an AST object.
      if (theirs.includes('nil pointer dereference')) opaPanics++;
      else if (theirs === ours) allSame++;
      else if (shown.length < 4)
        shown.push(`  ${JSON.parse(input)[rule === 'pp' ? 'q' : 'qa']}\n    OPA  ${JSON.stringify(theirs)}\n    ours ${JSON.stringify(ours)}`);
      if (theirs === '') return;
      refused++;
      if (!/\ninput:/.test(theirs)) return;
      multi++;
      if (theirs.split('\n')[0] === ours.split('\n')[0]) firstSame++;
      if (theirs === ours) wholeSame++;
    });
    console.log(
      `graphql ${rule} (seed ${seed}): ${count} queries, ${allSame} answer as OPA, ${opaPanics} crash OPA; OPA refuses ${refused}, ${multi} with several errors: ` +
        `${firstSame} give OPA's first error, ${wholeSame} its whole message\n${shown.join('\n')}`,
    );
  }
});
