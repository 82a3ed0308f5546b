/**
 * The compile-time type check against a real OPA v1.20.2 (FRAMEWORK_OPA_PYLIB):
 * generated modules (test/policy/differential/corpus-types.ts) are compiled by
 * both engines. The safety rule: a module OPA accepts is never refused here;
 * where both refuse it, the errors read the same. Modules OPA refuses and we
 * accept are the checks not covered (counted, and printed).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../runtime/policy/engine.js';
import { PolicyError } from '../../runtime/policy/errors.js';
import { Rng } from './differential/corpus.js';
import { typeModule } from './differential/corpus-types.js';
import { askOracle, oracleDir } from './differential/differ.js';

const pylib = oracleDir();
/** The generated corpus: TYPE_CHECK_SEED / TYPE_CHECK_MODULES pick another seed or size (default seed 35, 400 modules). */
const SEED = Number(process.env.TYPE_CHECK_SEED ?? 35);
const MODULES = Number(process.env.TYPE_CHECK_MODULES ?? 400);
/** TYPE_CHECK_DUMP=<file> writes the modules OPA refuses and we load, each with OPA's error, to study what is not covered. */
const DUMP = process.env.TYPE_CHECK_DUMP;
/** TYPE_CHECK_BASE=<dist dir> also compiles each module with another build (e.g. main's) and counts what it refuses: "before" in the same run. */
const BASE = process.env.TYPE_CHECK_BASE;

/** Our answer: undefined when the module compiles, else the error text. */
function ours(source: string): string | undefined {
  try {
    compilePolicy({ modules: [{ file: 'p.rego', source }] });
    return undefined;
  } catch (e) {
    if (!PolicyError.isInstance(e)) throw e;
    return e.message;
  }
}

/**
 * OPA's answer: undefined when the module compiles, else its compile errors as ours print them. The oracle also
 * evaluates `data.p`, with builtin errors strict: an evaluation error (`eval_type_error`, `eval_builtin_error`) means
 * the module compiled, so it reads as undefined.
 */
function opa(sources: string[]): Array<string | undefined> {
  const groups = sources.map((s) => ({ modules: [['p.rego', s] as const], evals: [{ query: 'data.p', input: '{}' }] }));
  return askOracle(groups, pylib as string).map((l) => {
    const env = JSON.parse(l) as { error?: { message: string } };
    const message = env.error?.message.replace(/^bundle activation failed: /, '').replace(/^1 error occurred: /, '');
    return message === undefined || /^(p\.rego:\d+: )?eval_/.test(message) ? undefined : message;
  });
}

/** The errors of one compile error text (`N errors occurred:` then one per `file:row:` line). */
function split(text: string): string[] {
  return text.replace(/^\d+ errors occurred:\n/, '').split(/\n(?=p\.rego:\d+: )/);
}

function rowless(error: string): string {
  return error.replace(/^p\.rego:\d+: (rego_type_error: undefined ref: data\.)/, 'p.rego:_: $1');
}

describe('compile-time type errors, as OPA reports them', () => {
  it('refuses a builtin call with an argument of a type it does not take, and a key an object never has, in OPA’s words', () => {
    const e = (src: string) => ours(`package p\n\n${src}\n`);
    expect(e('x := 1 + "a"')).toBe(
      'p.rego:3: rego_type_error: plus: invalid argument(s)\n\thave: (number, string, ???)\n\twant: (x: number, y: number, z: number)',
    );
    expect(e('q if {\n\tx := 1\n\tupper(x)\n}')).toBe(
      'p.rego:5: rego_type_error: upper: invalid argument(s)\n\thave: (number)\n\twant: (x: string, y: string)',
    );
    expect(e('labels := {"k": 1, "j": 2}\n\nq := labels.zz')).toBe(
      'p.rego:5: rego_type_error: undefined ref: data.p.labels.zz\n\tdata.p.labels.zz\n\t              ^\n\t              have: "zz"\n\t              want (one of): ["j" "k"]',
    );
    expect(e('f(y) := z if { l := {"k": 1}; z := l.zz }')).toBe(
      'p.rego:3: rego_type_error: undefined ref: l.zz\n\tl.zz\n\t  ^\n\t  have: "zz"\n\t  want (one of): ["k"]',
    );
    // OPA's match error: `=` (and `==`, `:=`) of two typed sides no value fits.
    expect(e('q if {\n\tx := 1\n\tx == "a"\n}')).toBe('p.rego:5: rego_type_error: match error\n\tleft  : number\n\tright : string');
    // Composites, locals bound to composites, refs into them, rules of several definitions.
    expect(e('q if { x := {"k": 1}; upper(x) }')).toBe(
      'p.rego:3: rego_type_error: upper: invalid argument(s)\n\thave: (object<k: number>)\n\twant: (x: string, y: string)',
    );
    expect(e('q if { x := [1, "s"]; y := x[_]; y == true }')).toBe('p.rego:3: rego_type_error: match error\n\tleft  : any<number, string>\n\tright : boolean');
    expect(e('r := 1\nr := 2 if input.x\n\nq if upper(r)')).toBe(
      'p.rego:6: rego_type_error: upper: invalid argument(s)\n\thave: (number)\n\twant: (x: string, y: string)',
    );
    expect(e('q if { x := {"a": 1}; k := 1; x[k] }')).toBe(
      'p.rego:3: rego_type_error: undefined ref: x[k]\n\tx[k]\n\t  ^\n\t  have (type): number\n\t  want (one of): ["a"]',
    );
    // Every builtin OPA declares, its result typing the output (`walk`'s path is an array).
    expect(e('q if { walk(input, [p, v]); upper(p) }')).toBe(
      'p.rego:3: rego_type_error: upper: invalid argument(s)\n\thave: (array[any])\n\twant: (x: string, y: string)',
    );
    // What OPA types `any` (input, a union that fits) compiles, as in OPA.
    expect(e('q if { x := input.a; upper(x) }')).toBeUndefined();
    expect(e('q if { x := input.b; x = 1; upper(x) }')).toBeUndefined();
    expect(e('r := 1 if input.x else := "a"\n\nq if upper(r)')).toBeUndefined();
    expect(e('labels := {"k": 1}\nlabels2 := object.union(labels, {"zz": 1})\n\nq := labels2.zz')).toBeUndefined();
    // `count([x])` widens x to any in OPA's checker (a composite unified with `any<…>` unions its vars' types).
    expect(e('q if { x := 1; count([x]); upper(x) }')).toBeUndefined();
  });

  it('type-checks a query against the compiled rules, as OPA’s query compiler does', () => {
    const policy = compilePolicy({ modules: [{ file: 'p.rego', source: 'package p\n\nr := {"a": 1}\nf(x) := x + 1\n' }] });
    const refusal = (query: string): string | undefined => {
      try {
        policy.query(query);
        return undefined;
      } catch (e) {
        if (!PolicyError.isInstance(e)) throw e;
        return e.message;
      }
    };
    // A query's errors are located at row:col (a query has no file).
    expect(refusal('x := data.p.r + 1')).toBe(
      '1:6: rego_type_error: plus: invalid argument(s)\n\thave: (object<a: number>, number, ???)\n\twant: (x: number, y: number, z: number)',
    );
    expect(refusal('x = data.p.r.b')).toBe(
      '1:5: rego_type_error: undefined ref: data.p.r.b\n\tdata.p.r.b\n\t         ^\n\t         have: "b"\n\t         want (one of): ["a"]',
    );
    // OPA's rego package gives a call written without its output one, which the error lists.
    expect(refusal('x = 1; upper(data.p.r)')).toBe(
      '1:8: rego_type_error: upper: invalid argument(s)\n\thave: (object<a: number>, ???)\n\twant: (x: string, y: string)',
    );
    // A user function's wrong arity is worded with its type, which the query's check has.
    expect(refusal('x = data.p.f(1, 2)')).toBe('1:5: rego_type_error: data.p.f: arity mismatch\n\thave: (number, number, ???)\n\twant: (number)');
    // `==` stays the builtin `equal` in a query (no RewriteEquals stage): no match error.
    expect(refusal('y = data.p.r; y == "a"')).toBeUndefined();
    expect(refusal('y = data.p.r; y = "a"')).toBe('1:15: rego_type_error: match error\n\tleft  : object<a: number>\n\tright : string');
  });

  it.skipIf(pylib === undefined)('agrees with OPA on hand-written modules: what it refuses, and in which words', () => {
    const bodies = [
      'q if { x := 1; x = input.b; upper(x) }',
      'q if { x := input.b; x = 1; upper(x) }',
      'r := 1 if input.x else := 2\nq if upper(r)',
      'default r := "a"\nr := 1 if input.x\nq if upper(r)',
      'r := {"a": 1} if input.x\nr := {"b": 2} if input.y\nq if r.c',
      'r := {"a": 1} if input.x\nr := {"a": "s"} if input.y\nq if upper(r.a)',
      'q if { x := set(); upper(x) }',
      'q if { x := {}; x[k] }',
      'q if { x := []; upper(x) }',
      'q if { x := [1]; x[5] }',
      'q if { x := "s"; x[0] }',
      'q if { x := {"a": {"b": 1}}; x.a.b.c }',
      'f(x) if { upper(x); x == 1 }',
      'q if { x := {y: 1 | y := "a"}; x == 1 }',
      's contains 1\nq if upper(s)',
      'q if { x := 1; y := [x]; count(y); upper(x) }',
      'q if { x := {"a": 1, "b": "s"}; upper(x[_]) }',
      'q if { x := input.a; x.b == 1; upper(x) }',
      'p.a := 1\nq if upper(p.a)',
      'q if { [x, y] := input.a; upper(x); x == 1 }',
      'q if { {"k": x} := {"k": 1}; upper(x) }',
      'q if { x := 1; x > "a" }',
      'q if { x := true; not x == 1 }',
      'q if { x := [1, 2]; x[i] == "a" }',
      'q if { xs := [x | x := input.a[_]]; upper(xs[0]) }',
      'q if { x := sum([1, 2]); x == "a" }',
      'q if { x := json.unmarshal("1"); x == "a" }',
      // A user function's result types its call's output where its arguments are all `any`.
      'f(x) := [x]\nq if { y := f(1); upper(y) }',
      'f(x) := {"a": x}\nq if { y := f(1); y.b }',
      'f(x) := r\nr := 5\nq if upper(f(1))',
      'f(x) := input.a\nq if upper(f(1))',
      // Builtins beyond the first 44, their declarations read from OPA (builtin-decls-table.ts).
      'q if { x := json.marshal(1); x.k }',
      'q if { x := object.keys({"a": 1}); upper(x) }',
      'q if { walk(input, [p, v]); upper(p) }',
      'q if { x := {"indent": 1}; json.marshal_with_options(1, x) }',
      'q if { x := {"a": 1}; json.marshal_with_options(1, x) }',
      'q if { x := [{"op": "s"}]; json.patch(1, x) }',
      'q if { x := io.jwt.decode("a"); x[3] }',
      'q if { net.cidr_contains(1, "a") }',
      'q if { x := time.clock(1); x == [1, 2] }',
      // A key one object lacks fails to unify only when neither has dynamic keys.
      'q if { x := {"a": 1, "b": "s"}; y := {k: 1 | k := 2}; x == y }',
      'q if { x := {"a": 1}; y := {"a": 1, "b": 2}; x == y }',
      // User functions: arguments typed by their bodies (the union over definitions), the result typing the output.
      'f(x) := y if y := x + 1\nq if f("a")',
      'f(x) := y if y := x + 1\nq if { z := f("a"); upper(z) }',
      'f(x) := y if y := x + 1\nq if { z := f(1); upper(z) }',
      'f(x) := y if y := x + 1\nf(x) := y if y := upper(x)\nq if { z := f(true) }',
      'f(x) := y if y := x + 1\nf(x) := y if y := upper(x)\nq if { z := f(1); z == true }',
      'f(x, "a") := 1\nq if { f(1, 2) }',
      'f([x, y]) := x if upper(y)\nq if { f([1, 2]) }',
      'f(x) if x.a == 1\nq if { f("s") }',
      'f(x) := x\ng(x) := x if f(x)\nq if { g(1) }',
      'f(x) if { x == 1 }\nq if f("a")',
      'f(x) := 1 if x > 1 else := "s"\nq if { y := f(2); y == true }',
      'f(x) := y if { y := x + 1; upper("a", 2) }\nq if f("a")',
      'f(x) := [y | y := x[_]]\nq if { z := f(1); upper(z) }',
      // A user function called with a wrong number of arguments, in OPA's words.
      'f(x) := x\nq if f(1, 2, 3)',
      'f(x) := x\nq if f()',
      'f(x, y) := x\nq if { z := f(1) }',
      'f(x) := x\nq := f(1, 2, 3)',
      // Wrong numbers of operands: a builtin's `arity mismatch` lists the operands' types (a var's is `???`, a ref's `any`).
      'q if count([1], [2], 3)',
      'q if { y := count() }',
      'q if { y := upper("a", "b") }',
      'q if { x := 1; count([x], {"a": x}, {x}, input.a) }',
      'r := {"a": 1}\nq if { count(r, {input.x: 3}, [y | y := 1], {y: 1 | y := "a"}) }',
      'f(x) := x\nq if f(count([1]))',
      'q if plus(1, count([1]))',
      // Constant keys of every kind are static properties, printed as Go's %v of their JSON.
      'q if count({{1}: 2}, 1)',
      'q if count({[1, "a"]: 2, "k": 1}, 1)',
      'q if count({{"b": [1, {2, 1}], "a": null}: 1}, 1)',
      'q if count({{1: 2}: 1}, 1)',
      'q if count({true: 2, null: 1}, 1)',
      // Under `with`: the expression is typed as any other; a function replaced by one whose arguments do not unify
      // with its own is refused at the `with`; a replaced rule reads as its own type or the value's.
      'q if { x := 1 with input as 2; upper(x) }',
      'q if { upper(1) with input as {} }',
      'q if { upper("a") with upper as f }\nf(x) := x + 1',
      'q if { upper("a") with upper as g }\ng(x) := 1',
      'q if { upper("a") with upper as g }\ng(x, y) := 1',
      'q if { upper("a") with upper as plus }',
      'q if { count("a") with count as upper }',
      'q if { x := upper("a") with upper as count; x == 1 }',
      'q if { x := f(1) with f as "s"; upper(x) }\nf(x) := x + 1',
      'q if { data.p.f("a") with data.p.f as upper }\nf(x) := x + 1',
      'r := 1\nq if { upper(r) with data.p.r as "a" }',
      'r := 1\nq if { upper(r) with data.p.r as [1] }',
      'r := 1\nq if { x := r with data.p.r as "a"; x == true }',
      'r := 1\nq if { upper(r) with data.p.r as "a"; upper(r) }',
      'o := {"a": 1}\nq if { o.b with data.p.o as {"b": 1} }',
      'o := {"a": 1}\nq if { o.b with data.p.o as {"c": 1} }',
      'q if { upper(data.x.y) with data.x.y as 1 }',
      // A set literal is not nil for OPA's unification, and `{x}` of an unbound x is set[any] (Regal's with_location).
      'f(x) := y if { y = {[x]}; upper(y) }',
      'f(x) := y if { y = {x}; upper(y) }',
      'f(x) := y if { y = {[x]}; x == 1; upper(x) }',
      'f(l) := {{"l": l, "r": concat("", ["a"])}}\nq if { r := input.x; r == f({"c": 9}) }',
      'f(l) := {{"l": l, "r": concat("", ["a"])}}\nq if { r := f(1); r == {{"l": 2, "r": "s"}} }',
    ];
    const sources = bodies.map((b) => `package p\n\n${b}\n`);
    const theirs = opa(sources);
    const disagree: string[] = [];
    sources.forEach((s, i) => {
      const a = ours(s);
      const b = theirs[i];
      if (a === undefined ? b !== undefined : b === undefined || !split(b).includes(split(a)[0] as string)) disagree.push(`${s}\nOPA:  ${b}\nours: ${a}`);
    });
    expect(disagree).toEqual([]);
  });

  it.skipIf(pylib === undefined)('lets a zero-argument call f() read the rule f exactly when OPA does (its type is any)', () => {
    const values = [
      'f() := 1',
      'f() := x if x := 1',
      'f() := x if x := input.a',
      'f() := count([1])',
      'f() := input.a',
      'f() := [1]',
      'f() := {"a": input.b}',
      'f() := x if { x := upper("a") }',
      'f() := x if { x := json.unmarshal("1") }',
      'f() := y if { y := input.a + 1 }',
      'f() := x if { x := max([1, 2]) }',
      'f() := x if { x := [y | y := 1] }',
      'f() := r\nr := input.a',
      'f() := x if { some x in input.xs }',
      'f() := x if { x := object.get(input, "a", 1) }',
    ];
    const sources = values.map((v) => `package p\n\n${v}\n\nq := f()\n`);
    const theirs = opa(sources).map((t) => t === undefined);
    const here = sources.map((s) => ours(s) === undefined);
    expect(here).toEqual(theirs);
    expect(theirs.filter(Boolean).length).toBeGreaterThan(3);
    expect(theirs.filter((t) => !t).length).toBeGreaterThan(3);
  });

  it.skipIf(pylib === undefined)(
    'never refuses a generated module OPA accepts, and words every shared refusal as OPA does',
    async () => {
      const rng = new Rng(SEED);
      const sources = Array.from({ length: MODULES }, () => typeModule(rng));
      const theirs = opa(sources);
      let base = '';
      if (BASE !== undefined) {
        const engine = (await import(join(BASE, 'runtime/policy/engine.js'))) as { compilePolicy: typeof compilePolicy };
        const refused = sources.filter((source, i) => {
          try {
            engine.compilePolicy({ modules: [{ file: 'p.rego', source }] });
            return false;
          } catch {
            return theirs[i] !== undefined;
          }
        });
        base = `, ${refused.length} by both with the build in ${BASE}`;
      }
      let both = 0;
      let notCovered = 0;
      let same = 0;
      const wrongRefusals: string[] = [];
      const wording: string[] = [];
      const uncovered: string[] = [];
      sources.forEach((s, i) => {
        const a = ours(s);
        const b = theirs[i];
        if (a !== undefined && b === undefined) wrongRefusals.push(`${s}\n-> ${a}`);
        else if (a === undefined && b !== undefined) {
          notCovered++;
          uncovered.push(`${s}-> ${b}\n`);
        } else if (a !== undefined && b !== undefined) {
          both++;
          // Each error we report must be one of OPA's (OPA may report more: those checks are not covered).
          // OPA reports an undefined ref into a rule at the row of the module's last reference to its package's rules
          // (the resolved refs share one `data` term, whose location the last resolution sets); that row is not compared.
          const theirErrors = new Set(split(b).map(rowless));
          if (split(a).some((x) => !theirErrors.has(rowless(x)))) wording.push(`${s}\nOPA:  ${b}\nours: ${a}`);
          if (a === b) same++;
        }
      });
      if (DUMP !== undefined) writeFileSync(DUMP, uncovered.join('\n'));
      console.log(
        `type check: seed ${SEED}, ${MODULES} modules, ${theirs.filter((t) => t !== undefined).length} refused by OPA, ${both} by both, ${notCovered} only by OPA (not covered), ${same} with the same error text, ${wording.length} with an error OPA does not report${base}`,
      );
      expect(wrongRefusals).toEqual([]);
      expect(wording.slice(0, 5)).toEqual([]);
      expect(both).toBeGreaterThan(MODULES / 10);
    },
    300_000,
  );
});
