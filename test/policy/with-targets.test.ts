/**
 * `with` targets holding variables, form by form against a real OPA v1.20.2 (FRAMEWORK_OPA_PYLIB): what OPA refuses
 * when compiling (an unbound var, a var referenced before its `:=`, recursion through the target, a partial
 * replacement of a rule) is refused here in its words, and what it evaluates (a target such as `input[x]` with `x`
 * bound, which OPA cannot merge into the document: `eval_conflict_error: bad document path`) answers the same.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../runtime/policy/engine.js';
import { PolicyError } from '../../runtime/policy/errors.js';
import { parseJSON, stringifyJSON } from '../../runtime/policy/value-json.js';
import { askOracle, oracleDir } from './differential/differ.js';

const pylib = oracleDir();
const INPUT = '{"k": 1, "s": "k", "arr": [1, 2]}';

/** Each body is the module `package p` + body; the answer compared is `x = data.p.a`. */
const BODIES = [
  // Evaluated: a var (bound before, by `=`, `some`, `some … in`, `every`) or any non-string key in the target.
  'a if { x := "k"; input[x] == 1 with input[x] as 1 }',
  'a if { x = "k"; y := 1 with input[x] as 1 }',
  'a if { some x; x = "k"; 1 == 1 with input[x] as 1 }',
  'a contains x if { some x in ["a"]; input[x] == 2 with input[x] as 2 }',
  'a if { every x in [1] { x == 1 with input[x] as 1 } }',
  'a if { x := "k"; every y in [1] { y == 1 with input[x] as 1 } }',
  'a := [1 | x := "k"; input.y == 1 with input[x] as 1]',
  'a if { x := "k"; not input.a with input[x] as 1 }',
  'a if { x := "k"; input[x] == 1 with input[x].z as 1 with input[x] as {} }',
  'a if { input.x == 2 with input[1] as 1 with input.x as 2 }',
  'a if { input.k == 1 with input[input.s] as 1 }',
  'a if { input.k == 1 with input[count([1])] as 1 }',
  'a if { x := "k"; data.q[x] == 2 with data.q[x] as 2 }',
  'a if { input.k == 1 with data.q[input.s] as 1 }',
  'a if { false; x := "k"; data.q[x] == 2 with data.q[x] as 2 }',
  'a if { input.k == 2; x := "k"; input[x] == 1 with input[x] as 1 }',
  'a := v if { some v in input.arr; v > 1; input[v] == 1 with input[v] as 1 }',
  // Refused when compiling.
  'a if { input.k == 1 with input[x] as 1 }',
  'a if { some x; x = "k"; y := 1 with input[x] as 1 }',
  'a if { x := 1; y := x with input[x] as 1 }',
  'a := y if { y := 7 with input[x] as 1; x := 1 }',
  'a if { 1 == 1 with data.p[x] as 1; x := "k" }',
  'a if { count([1]) == 1 with count as 2 with input[x] as 1; x := 1 }',
  'a if { input.k == 1 with input[{"a": x}] as 1; x := 1 }',
  'a if { x := "f"; input.k == 1 with input.a[_] as 1 }',
  'r := 1\na if { x := "k"; r == 1 with data.p.r[x] as 2 }',
  'r := 1\na if { x := "k"; y := data.p with data.p[x] as 2 }',
  'b := 1\na if { x := "k"; 1 == 1 with data.p[x] as 1 }',
  'f(x) := 1\na if { x := "f"; f(1) == 2 with data.p[x] as 2 }',
  // A ground target into the rule's own package is a dependency too.
  'a if { 1 == 1 with data.p.a as 1 }',
  'b := 1\na if { 1 == 1 with data.p.b as 1 }',
];

/** An error text with OPA's bundle lead removed and its lines sorted (OPA lists unsafe vars in map order). */
function errorText(message: string): string {
  const body = message
    .replace(/^bundle activation failed: /, '')
    .replace(/^1 error occurred: /, '')
    .replace(/^\d+ errors occurred:\n/, '');
  return `error: ${body
    .split(/\n(?=p\.rego:\d+: )/)
    .sort()
    .join('\n')}`;
}

function opaAnswers(sources: string[]): string[] {
  const groups = sources.map((s) => ({ modules: [['p.rego', s] as const], evals: [{ query: 'x = data.p.a', input: INPUT }] }));
  return askOracle(groups, pylib as string).map((l) => {
    const env = JSON.parse(l) as { error?: { message: string }; result?: Array<{ bindings: { x: unknown } }> | null };
    if (env.error !== undefined) return errorText(env.error.message);
    const first = env.result?.[0];
    return first === undefined ? 'undefined' : stringifyJSON(parseJSON(JSON.stringify(first.bindings.x)));
  });
}

function ourAnswer(source: string): string {
  try {
    const rows = compilePolicy({ modules: [{ file: 'p.rego', source }] }).query('x = data.p.a', { inputValue: parseJSON(INPUT) });
    const x = rows[0]?.x;
    return x === undefined ? 'undefined' : stringifyJSON(x);
  } catch (e) {
    if (!PolicyError.isInstance(e)) throw e;
    return errorText(e.message);
  }
}

describe('with targets holding variables', () => {
  it('fails a bound-var target when the expression is reached, as OPA: eval_conflict_error "bad document path"', () => {
    expect(ourAnswer('package p\na if { x := "k"; input[x] == 1 with input[x] as 1 }')).toBe('error: p.rego:2: eval_conflict_error: bad document path');
    expect(ourAnswer('package p\na if { input.k == 2; x := "k"; input[x] == 1 with input[x] as 1 }')).toBe('undefined');
    expect(ourAnswer('package p\na if { input.k == 1 with input[x] as 1 }')).toBe('error: p.rego:2: rego_unsafe_var_error: var x is unsafe');
  });

  it.skipIf(pylib === undefined)('answers every form as OPA v1.20.2 does', () => {
    const sources = BODIES.map((b) => `package p\n${b}\n`);
    const theirs = opaAnswers(sources);
    const disagree = sources.flatMap((s, i) => {
      const mine = ourAnswer(s);
      return mine === theirs[i] ? [] : [`${BODIES[i]}\n  OPA   ${theirs[i]}\n  ours  ${mine}`];
    });
    expect(disagree).toEqual([]);
    // The forms cover all three outcomes.
    expect(theirs.filter((a) => a.includes('bad document path')).length).toBeGreaterThan(10);
    expect(theirs.filter((a) => a.includes('rego_')).length).toBeGreaterThan(10);
    expect(theirs.filter((a) => !a.startsWith('error')).length).toBeGreaterThan(2);
  });
});
