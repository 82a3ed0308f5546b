/**
 * Functions used as values, and the types of documents read whole, form by form against a real OPA v1.20.2
 * (FRAMEWORK_OPA_PYLIB). OPA refuses a function named without a call (`x := data.p.f`, `[f]`, `count(f)`, a ref
 * into it, in a module or a query, as the value of a `with` on `input`) with `function data.p.f used as reference,
 * not called` and the function's type; a function stays a legal `with` value for a function or a data target. A
 * package read as an object (`upper(data.p)`, `upper(data)` in a query) has the type OPA's checker gives it: an
 * object of its rules' types, functions included, open to any string key. Each answer (the bindings of the query,
 * or the error text) is compared word for word. A var declared by `some` and never read is refused as OPA refuses it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../runtime/policy/engine.js';
import { startPolicyServer } from '../../runtime/policy/server/start-policy-server.js';
import { PolicyError } from '../../runtime/policy/errors.js';
import { parseJSON, stringifyJSON } from '../../runtime/policy/value-json.js';
import { askOracle, oracleDir } from './differential/differ.js';

const pylib = oracleDir();

interface Case {
  module: string;
  queries: string[];
  /** More modules (`m1.rego`, …). */
  others?: string[];
}

const filesOf = (c: Case): Array<[string, string]> => [['p.rego', c.module], ...(c.others ?? []).map((m, i): [string, string] => [`m${i + 1}.rego`, m])];

const F = 'package p\n\nf(x) := x\n';
const F1 = 'package p\n\nf(x) := 1\n';

/** Forms that answer, or are refused, as in OPA word for word. */
const CASES: Case[] = [
  // A function named without a call, in a rule.
  { module: `${F}x := data.p.f\n`, queries: ['x = data.p.x'] },
  { module: `${F}y := f\n`, queries: ['x = data.p.y'] },
  { module: `${F}y if data.p.f == 1\n`, queries: ['x = data.p.y'] },
  { module: `${F}y := [data.p.f]\n`, queries: ['x = data.p.y'] },
  { module: `${F}y := count(data.p.f)\n`, queries: ['x = data.p.y'] },
  { module: `${F}y := data.p.f.x\n`, queries: ['x = data.p.y'] },
  { module: `${F1}y := data.p.f[0]\nz := data.p.f[k]\n`, queries: ['x = data.p'] },
  { module: `${F1}y if not data.p.f\nz := [x | x := data.p.f]\n`, queries: ['x = data.p'] },
  { module: `${F1}z if { every x in f { x } }\n`, queries: ['x = data.p'] },
  { module: 'package p\n\nf(x) := upper(x)\nf(x) := x + 1\ny := f\n', queries: ['x = data.p'] },
  { module: 'package p\n\nf(x) := x if x > 1\nelse := "a"\ny := f\n', queries: ['x = data.p'] },
  { module: 'package p\n\nf(x, y) := z if { z := concat(x, y) }\ny := f\n', queries: ['x = data.p'] },
  { module: 'package p\n\nimport data.p.f as h\n\nf(x) := 1\ny := h\n', queries: ['x = data.p'] },
  { module: 'package p\n\na.b.f(x) := 1\ny := a.b.f\n', queries: ['x = data.p'] },
  { module: 'package q\n\ny := data.p.f\n', queries: ['x = data.q'] },
  // In a query; the package that holds a function leaves it out of its value.
  {
    module: `${F}g := 1\n`,
    queries: ['x = data.p.f', 'data.p.f', 'data.p.f.x', 'x := data.p.f(1)', 'x = data.p', 'x = data', 'x = data.p[k]', 'x := [data.p.f]'],
  },
  { module: 'package p.q\n\nf(x) := 1\n', queries: ['x = data.p', 'x := data.p.q.f'] },
  // `with`: a function is a legal value for a function or a data target, not for `input`.
  { module: `${F}g(x) := 2\ny := 1 if { true with data.p.f as g }\n`, queries: ['x = data.p'] },
  { module: `${F}g(x) := 2\nz := 1 if { f(1) with f as g }\n`, queries: ['x = data.p'] },
  { module: `${F}u if { f(1) with f as 3 }\n`, queries: ['x = data.p'] },
  { module: `${F}u := y if { y := f(1) with f as 3 }\n`, queries: ['x = data.p'] },
  { module: `${F}w := 1 if { true with input as data.p.f }\n`, queries: ['x = data.p'] },
  { module: `${F}v := 1 if { true with input as f }\n`, queries: ['x = data.p'] },
  { module: `${F}y := 1 if { true with input.a as f }\n`, queries: ['x = data.p'] },
  { module: `${F}y := 1 if { x := input with input as f }\n`, queries: ['x = data.p'] },
  { module: `${F}y := z if { z := 1 with input as [f] }\n`, queries: ['x = data.p'] },
  { module: `${F}y := z if { z := 1 with data.q as [f] }\n`, queries: ['x = data.p'] },
  { module: `${F}y := z if { z := 1 with data.q as f.a }\n`, queries: ['x = data.p'] },
  { module: `${F}y := 1 if { true with data.q as f }\n`, queries: ['x = data.p'] },
  { module: `${F}y := 1 if { true with data.q as data.p.f }\n`, queries: ['x = data.p'] },
  { module: `${F}y := data.q if { true with data.q as f }\n`, queries: ['x = data.p'] },
  { module: `${F}y := z if { z := 1 with data.q.r as f }\n`, queries: ['x = data.p'] },
  { module: `${F}g := 1\ny := 1 if { true with data.p.g as f }\n`, queries: ['x = data.p'] },
  { module: `${F}g := 1\ny := z if { z := g with data.p.g as f }\n`, queries: ['x = data.p'] },
  {
    module: F,
    queries: [
      'true with input as data.p.f',
      'x := 1 with data.x as data.p.f',
      'x := data.p.f(1) with data.p.f as 2',
      'x := data.p.f(1) with data.p.f as input',
    ],
  },
  // A package, or the whole of data, as an argument: its type is the object of its rules' types.
  {
    module: 'package p\n\nf(x) := 1\ng := "a"\nh contains 1\na.b.c := 1\n',
    queries: [
      'x := count(data.p)',
      'x := upper(data.p)',
      'x := upper(data.p.a)',
      'x := upper(data)',
      'x := data.p == 1',
      'upper(data.p.a.b)',
      'x := json.marshal(data.p)',
    ],
  },
  {
    module: 'package p\n\nf(x) := 1\nf(x) := "a"\ndefault k := 1\nk := "a" if input.x\ne := 1 if input.x\nelse := "s"\n',
    queries: ['x := upper(data.p)', 'x := object.get(data.p, "f", 1)'],
  },
  { module: 'package p\n\ng := 2\n', queries: ['upper(data)', 'x := upper(data.p)', 'x := count(data.p)', 'x := upper(data.q)'] },
  { module: 'package p.q\n\nf(x) := 1\n', queries: ['x := upper(data.p)'] },
  { module: 'package q\n\ny := upper(data.p)\nz := upper(data.p.x)\n', queries: ['x = data.q'] },
  ...[
    'y := upper(data.p)',
    'y := count(data.p)',
    'y := data.p.g.h',
    'y := x if { x := data.p; x.g.h }',
    'y := data.p.f',
    'y := object.get(data.p, "g", 1)',
  ].map((rule) => ({ module: `package q\n\n${rule}\n`, others: ['package p\n\nf(x) := 1\ng := 2\n'], queries: ['x = data.q'] })),
  { module: 'package q\n\ny := count(data.p)\n', others: ['package p\n\ng := 2\n'], queries: ['x = data.q'] },
  // A var declared by `some` and never read is refused (OPA's checkUnusedDeclaredVars); one the head reads is used,
  // and unsafe when nothing binds it.
  { module: 'package p\n\ny if {\n\tx := 1\n\tsome k\n\tx == 1\n}\n', queries: ['x = data.p'] },
  ...[
    'y if { some k; [k | k := 1] }',
    'y if { some k; not k }',
    'y if { some k; input[k] }',
    'y if { some k; true with input as k }',
    'y := [1 | some k; true]',
    'f(x) := 1 if { some k; true }',
    'y if { some k; every j in [1] { j == k } }',
    'y if { some k; some k; k = 1 }',
    'y if { some k; upper("a", 1) }',
    'y if { some k; z }',
    'y if { some k; k := 1 }',
    'y := 1 if { input.x } else := 2 if { some k; true }',
    'y if { some k; x := {k: 1 | k := "a"}; x }',
    'y := k if { some k }',
    'y := k if { some k; input.x }',
    'y contains k if { some k; true }',
    'y := k if { some k; k = 1 }',
    'y if { some k; some j; true }',
    'y if { some k; x := 1; x := 2 }',
    'y if { some _; true }',
    'f(k) if { some k; true }',
    'y if { some k in [1] }',
    'y if { some k, v in [1] }',
  ].map((rule) => ({ module: `package p\n\n${rule}\n`, queries: ['x = data.p'] })),
  // A rule called as a function: `undefined function` unless operands beyond an output make it an arity error (counted
  // without the output the compiler adds); a function whose first definition has a type error and a later one none
  // has no type in OPA's env, so its calls are `undefined function` too.
  ...[
    'r := 1\ny := r(1)',
    'r := 1\ny := r()',
    'r := 1\ny if r()',
    'r := 1\ny if r(1)',
    'r := 1\ny if r(1, 2)',
    'f() := 1\ny := f()',
    'f() := r if { r := 1 }\ny := f()',
    'f() := r if { r := 1 }\ny if f()',
    'f() := r if { r := 1 }\ny := f(1)',
    'f() := r if { r := upper("a") }\ny := f()',
    'f() := r if { r := input.x }\ny := f()',
    'f(x) := 1 if { upper(1) }\ng(x) := 2\ng(x) := 1 if { upper(1) }\nh(x) := 1 if { upper(1) }\nh(x) := 1 if { upper(1) }\ny := [f(1), g(1), h(1)]',
    'f(x) := 1 if { upper(x, 1) }\nf(x) := 2\ny := f(1)',
    'f(x) := 1 if { upper(x, 1) }\nf(x) := 2\nf(x) := 3 if { upper(x, 1) }\ny := f(1)',
    'f(x) := 1 if { upper(x, 1) }\nf(x) := 2\nf(x) := 3\ny := f(1)',
    // `f()` reads the rule `f` only when OPA types it `any`, however far away its value is typed.
    'f() := r if { x := 1; r := x }\ny := f()',
    'f := r if { r := input.x }\ny := f()',
    'f := r if { r := 1 }\ny := f()',
    'f := r if { x := [1]; r := x }\ny := f()',
    'f := r if { r := input.x }\nf := r if { r := 1 }\ny := f()',
    'f := r if { r := count(input.x) }\ny := f()',
    'f := r if { r := json.unmarshal(input.x) }\ny := f()',
    'f := input.x\ny := f()',
    'f := r if { r := input.x }\ny if f()',
    'f := r if { r := sprintf("%v", [input.x]) }\ny := f()',
  ].map((rule) => ({ module: `package p\n\n${rule}\n`, queries: ['x = data.p'] })),
  // The local OPA generates for the key of `some x in xs` is named as OPA numbers its locals (arguments, declared
  // vars, generated keys, in order); a `_` stays in the function's name.
  ...[
    'f(x) := 1\ny if { some x in data.p.f }',
    'f(x) := 1\ny if { x := data.p.f[_] }',
    'f(x) := 1\ny := [x | some x in f]',
    'f(x, _) := 1\ng(y, [z, w]) := 2\ny if { some x in data.p.f }',
    'f(x) := 1\ny if { a := 1; b := [c | c := 1]; some x in data.p.f }',
    'f(x) := 1\ny if { every z in [1] { z }; some x in data.p.f }',
  ].map((rule) => ({ module: `package p\n\n${rule}\n`, queries: ['x = data.p'] })),
  { module: 'package p\n\nr := 1\n', queries: ['x := data.p.r()', 'x := data.p.r(1)', 'data.p.r()', 'data.p.r(1, 2)'] },
  { module: F1, queries: ['some k; true', 'x := 1; some k; true', 'some k, j; true', 'some k; k = 1', 'y := [1 | some k; true]', 'some k in [1]'] },
];

/** An error text with OPA's bundle lead removed. */
function errorText(message: string): string {
  return `error: ${message.replace(/^bundle activation failed: /, '').replace(/^1 error occurred: /, '')}`;
}

/** The bindings of every solution, each printed with sorted keys, the list sorted. */
function solutions(rows: Array<Record<string, string>>): string {
  return JSON.stringify(rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1))))).sort());
}

function opaAnswers(cases: Case[]): string[] {
  const groups = cases.map((c) => ({ modules: filesOf(c), evals: c.queries.map((query) => ({ query, input: '{}' })) }));
  return askOracle(groups, pylib as string).map((l) => {
    const env = JSON.parse(l) as { error?: { message: string }; result?: Array<{ bindings?: Record<string, unknown> }> | null };
    if (env.error !== undefined) return errorText(env.error.message);
    return solutions(
      (env.result ?? []).map((r) => Object.fromEntries(Object.entries(r.bindings ?? {}).map(([k, v]) => [k, stringifyJSON(parseJSON(JSON.stringify(v)))]))),
    );
  });
}

function ourAnswers(c: Case): string[] {
  let policy;
  try {
    policy = compilePolicy({ modules: filesOf(c).map(([file, source]) => ({ file, source })) });
  } catch (e) {
    if (!PolicyError.isInstance(e)) throw e;
    return c.queries.map(() => errorText(e.message));
  }
  return c.queries.map((q) => {
    try {
      const rows = policy.query(q, { input: {} });
      return solutions(rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, stringifyJSON(v)]))));
    } catch (e) {
      if (!PolicyError.isInstance(e)) throw e;
      return errorText(e.message);
    }
  });
}

describe('functions used as values, and documents read whole, as OPA types them', () => {
  it('refuses a function named without a call, in OPA’s words', () => {
    expect(ourAnswers({ module: `${F}y := f\n`, queries: ['x = data.p.y'] })).toEqual([
      'error: p.rego:4: rego_type_error: function data.p.f used as reference, not called\n\tdata.p.f\n\t^^^^^^^^\n\thave: (any) => any',
    ]);
    expect(ourAnswers({ module: F1, queries: ['x = data.p.f.x'] })).toEqual([
      'error: 1:5: rego_type_error: function data.p.f.x used as reference, not called\n\tdata.p.f.x\n\t^^^^^^^^\n\thave: (any) => number',
    ]);
    // A function is still a value for `with` on a function or on data.
    expect(ourAnswers({ module: `${F}g(x) := 2\ny := z if { z := f(1) with f as g }\n`, queries: ['x = data.p.y'] })).toEqual([solutions([{ x: '2' }])]);
    expect(ourAnswers({ module: `${F}y if { true with data.q as f }\n`, queries: ['x = data.p.y'] })).toEqual([solutions([{ x: 'true' }])]);
  });

  it.skipIf(pylib === undefined)('answers every form as OPA v1.20.2 does', () => {
    const theirs = opaAnswers(CASES);
    const disagree: string[] = [];
    let i = 0;
    for (const c of CASES) {
      ourAnswers(c).forEach((mine, j) => {
        const opa = theirs[i++];
        if (mine !== opa) disagree.push(`${c.module}  ${c.queries[j]}\n  OPA   ${opa}\n  ours  ${mine}`);
      });
    }
    console.log(`function values: ${i - disagree.length} of ${i} answers as OPA's`);
    expect(disagree).toEqual([]);
    expect(i).toBe(theirs.length);
    // The forms cover refusals of both kinds and answers.
    expect(theirs.filter((a) => a.includes('used as reference, not called')).length).toBeGreaterThan(20);
    expect(theirs.filter((a) => a.includes('invalid argument(s)')).length).toBeGreaterThan(5);
    expect(theirs.filter((a) => a.includes('unused')).length).toBeGreaterThan(10);
    expect(theirs.filter((a) => !a.startsWith('error')).length).toBeGreaterThan(10);
  });

  it('refuses the Data API path of a function as OPA compiles it (the query data.p.f), and leaves functions out of their package', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fw-fnval-'));
    writeFileSync(join(dir, 'p.rego'), `${F}g := 1\n`);
    const server = await startPolicyServer({ dir, port: 0, watch: false });
    try {
      const get = async (path: string) => {
        const r = await fetch(`${server.url}${path}`);
        return { status: r.status, json: (await r.json()) as { code?: string; message?: string; result?: unknown; errors?: Array<{ message: string }> } };
      };
      const fn = await get('/v1/data/p/f');
      expect(fn.status).toBe(500);
      expect(fn.json.code).toBe('internal_error');
      expect(fn.json.message).toBe('1:1: rego_type_error: function data.p.f used as reference, not called\n\tdata.p.f\n\t^^^^^^^^\n\thave: (any) => any');
      expect((await get('/v1/data/p/f/x')).json.message).toMatch(/^1:1: rego_type_error: function data\.p\.f\.x used as reference, not called\n/);
      expect(await get('/v1/data/p')).toEqual({ status: 200, json: { result: { g: 1 } } });
      const q = await fetch(`${server.url}/v1/query?q=${encodeURIComponent('x = data.p.f')}`);
      expect(q.status).toBe(400);
      const body = (await q.json()) as { errors: Array<{ code: string; message: string; location: { row: number; col: number } }> };
      expect(body.errors[0]).toMatchObject({
        code: 'rego_type_error',
        message: 'function data.p.f used as reference, not called\n\tdata.p.f\n\t^^^^^^^^\n\thave: (any) => any',
        location: { row: 1, col: 5 },
      });
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
