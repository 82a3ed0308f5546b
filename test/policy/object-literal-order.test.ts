/**
 * An object literal whose computed keys turn out equal: OPA evaluates its
 * entries in its AST order of the keys (null, booleans, numbers, strings,
 * then vars, refs, arrays, …; declared locals as declared), a later equal
 * key overwriting the earlier. Written order decided here before 4 Dec, so
 * `{input: 1, "a": 2}` with input "a" was {"a": 2} where OPA answers
 * {"a": 1}: a silent wrong answer. Compared with OPA v1.20.2.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../runtime/policy/engine.js';
import { parseJSON, stringifyJSON } from '../../runtime/policy/value-json.js';
import { askOracle, oracleDir } from './differential/differ.js';

const pylib = oracleDir();

const MODULE = `package p

by_ref := {input.b: "b", input.a: "a"}

locals := x if {
  second := input.a
  first := input.b
  x := {second: 1, first: 2, "k": 3}
}

in_function(v) := {v: 1, "k": 2}

nested := {[input.a]: 1, ["k"]: 2, [input.b]: 3}
`;

const QUERIES = [
  'x := {input.a: 1, "k": 2}',
  'x := {"k": 2, input.a: 1}',
  'x := {input.a: 1, input.a: 2}',
  'x := {input.b: 1, input.a: 2}',
  'x := {input.a: 1, input.b: 2}',
  'y := input.a; x := {y: 1, "k": 2}',
  'b := input.a; a := input.b; x := {b: 1, a: 2}',
  'a := input.a; b := input.b; x := {b: 1, a: 2}',
  'x := {[input.a]: 1, [input.b]: 2, ["k"]: 3}',
  'x := {1: "n", input.n: "r"}',
  'x := {true: "t", input.t: "r", null: "z", input.z: "s"}',
  'x := [o | i := 1; o := {input.a: i, "k": 0}]',
  'x := data.p.by_ref',
  'x := data.p.locals',
  'x := data.p.in_function("k")',
  'x := data.p.nested',
];

const INPUTS = ['{"a": "k", "b": "k", "n": 1, "t": true, "z": null}', '{"a": "k", "b": "other", "n": 2, "t": false, "z": 0}'];

describe('object literals with equal keys', () => {
  it.skipIf(pylib === undefined)('keep the entry OPA v1.20.2 keeps', () => {
    const evals = INPUTS.flatMap((input) => QUERIES.map((query) => ({ query, input })));
    const theirs = askOracle([{ modules: [['p.rego', MODULE]], evals }], pylib!).map((line) => {
      const env = JSON.parse(line) as { error?: { message: string }; result?: Array<{ bindings: { x: unknown } }> };
      return env.error !== undefined ? `error ${env.error.message}` : JSON.stringify(env.result?.[0]?.bindings.x);
    });
    const policy = compilePolicy({ modules: [{ file: 'p.rego', source: MODULE }] });
    const ours = evals.map(({ query, input }) => {
      const rows = policy.query(query, { inputValue: parseJSON(input) });
      return rows.length === 0 ? undefined : stringifyJSON(rows[0]!['x']!);
    });
    expect(ours.map((a, i) => `${evals[i]!.query} | ${evals[i]!.input}: ${a}`)).toEqual(theirs.map((a, i) => `${evals[i]!.query} | ${evals[i]!.input}: ${a}`));
  });
});
