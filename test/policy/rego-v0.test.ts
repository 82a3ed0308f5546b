/**
 * Rego v0 (OPA's `--v0-compatible`) and the v1 forms real-world corpora
 * needed: partial sets written `p[x] { ... }`, bodies without `if`, several
 * bodies per head, future keywords only when imported, the v0-to-v1 rewrite
 * (`policy fmt --v0-v1`), bundle manifests' `rego_version`, and a v1 module
 * written in v0 getting every error with OPA's hints. The answers here were
 * checked against OPA v1.20.2 (the v0 ones through the v1 rewrite, since the
 * pylib has no v0 switch).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../runtime/policy/engine.js';
import { PolicyError } from '../../runtime/policy/errors.js';
import { formatRego } from '../../runtime/policy/format/index.js';
import { parseModule } from '../../runtime/policy/parser.js';
import { readPolicyDirectory } from '../../runtime/policy/server/policy-files.js';
import { toJS } from '../../runtime/policy/value-json.js';
import { runCliInProcess } from '../support/cli.js';

const V0 = `package gk

import data.lib.helpers

violation[{"msg": msg}] {
  c := input.containers[_]
  not helpers.allowed(c)
  msg := sprintf("container %v is not allowed", [c.name])
}

kind(obj) = k {
  obj.kind == "Pod"
  k := "pod"
} {
  obj.kind == "Job"
  k := "job"
}

default level = "low"

level = "high" {
  count(violation) > 1
} else = "medium" {
  count(violation) == 1
}

names[n] { n := input.containers[_].name }

named = contains(input.name, "a")

every = 3
`;

const LIB = `package lib.helpers

allowed(c) {
  startswith(c.image, "registry.local/")
}
`;

const INPUT = {
  name: 'abc',
  kind: 'Job',
  containers: [
    { name: 'a', image: 'docker.io/x' },
    { name: 'b', image: 'registry.local/y' },
  ],
};

function v0Policy(): ReturnType<typeof compilePolicy> {
  return compilePolicy({
    modules: [
      { file: 'gk.rego', source: V0, regoVersion: 0 },
      { file: 'lib.rego', source: LIB, regoVersion: 0 },
    ],
  });
}

describe('Rego v0 (--v0-compatible)', () => {
  it('reads partial sets, several bodies per head, default/else with =, and the future keywords as plain names', () => {
    const doc = toJS(v0Policy().evaluate(['gk'], INPUT) as never) as Record<string, unknown>;
    expect(doc.violation).toEqual([{ msg: 'container a is not allowed' }]);
    expect(doc.level).toBe('medium');
    expect(doc.names).toEqual(['a', 'b']);
    expect(doc.named).toBe(true);
    expect(doc.every).toBe(3);
    expect(toJS(v0Policy().query('x := data.gk.kind(input)', { input: INPUT })[0]?.x as never)).toBe('job');
  });

  it('makes a future keyword a keyword once imported, and a module importing rego.v1 is v1', () => {
    const withIn = 'package a\nimport future.keywords.in\nimport future.keywords.if\np if { "x" in input }\nq[y] { some y in input }\n';
    const policy = compilePolicy({ modules: [{ file: 'a.rego', source: withIn, regoVersion: 0 }] });
    expect(toJS(policy.evaluate(['a'], ['x', 'y']) as never)).toEqual({ p: true, q: ['x', 'y'] });
    expect(() => parseModule('package a\nimport rego.v1\np { true }\n', 'a.rego', 0)).toThrow(/`if` keyword is required before rule body/);
  });

  it('rewrites v0 to v1 with import rego.v1 (policy fmt --v0-v1), to the same answers', () => {
    const v1 = formatRego({ source: V0.replace('every = 3\n', ''), file: 'gk.rego', v0ToV1: true });
    expect(v1).toContain('import rego.v1');
    expect(v1).toContain('violation contains {"msg": msg} if {');
    expect(v1).toContain('default level := "low"');
    const libV1 = formatRego({ source: LIB, file: 'lib.rego', v0ToV1: true });
    const rewritten = compilePolicy({ modules: { 'gk.rego': v1, 'lib.rego': libV1 } });
    expect(toJS(rewritten.evaluate(['gk'], INPUT) as never)).toEqual({ ...(toJS(v0Policy().evaluate(['gk'], INPUT) as never) as object), every: undefined });
    // `every` is a keyword in v1: a rule of that name cannot be rewritten, and says so.
    expect(() => formatRego({ source: V0, file: 'gk.rego', v0ToV1: true })).toThrow(/cannot be rewritten as Rego v1/);
  });
});

describe('v0 text in a v1 module', () => {
  it("lists every v0 form with OPA's hint, in OPA's order, instead of stopping at the first", () => {
    const source = 'package a\np[x] { x := 1 }\nq { true }\nr = 1 { true }\ns := 2\nf(x) = y { y := x }\n';
    let error: unknown;
    try {
      parseModule(source, 'p.rego');
    } catch (e) {
      error = e;
    }
    expect(PolicyError.isInstance(error)).toBe(true);
    expect((error as PolicyError).message).toBe(
      [
        '5 errors occurred:',
        'p.rego:2: rego_parse_error: `if` keyword is required before rule body',
        'p.rego:2: rego_parse_error: `contains` keyword is required for partial set rules',
        'p.rego:3: rego_parse_error: `if` keyword is required before rule body',
        'p.rego:4: rego_parse_error: `if` keyword is required before rule body',
        'p.rego:6: rego_parse_error: `if` keyword is required before function body',
      ].join('\n'),
    );
  });
});

describe('language forms from the corpora (OPA v1.20.2 answers)', () => {
  it('reads f() := v as the plain rule f, and f() as reading it when OPA cannot type the rule', () => {
    const policy = compilePolicy({ modules: { 'a.rego': 'package a\nf() := {"k": 1}\nx := f\ng() := input.v\ny := g()\nz if g()\n' } });
    expect(toJS(policy.evaluate(['a'], { v: 2 }) as never)).toEqual({ f: { k: 1 }, g: 2, x: { k: 1 }, y: 2, z: true });
    // A rule of a known type is no function to OPA's checker.
    expect(() => compilePolicy({ modules: { 'a.rego': 'package a\nf := 1\ny := f()\n' } })).toThrow(/rego_type_error/);
  });

  it('takes imports after rules', () => {
    const policy = compilePolicy({ modules: { 'a.rego': 'package a\nx := 1\nimport input.b\ny := b\n' } });
    expect(toJS(policy.evaluate(['a'], { b: 7 }) as never)).toEqual({ x: 1, y: 7 });
  });

  it('evaluates `a or b` and `not { ... }` as OPA does: once, with no bindings leaving an operand', () => {
    const source = [
      'package a',
      'import future.keywords.or',
      'import future.keywords.not',
      'x := [1 | input.a or input.b]',
      'y if { input.b == 2 } or { false }',
      'z if not { input.a; input.b }',
      'w := [v | some v in [1, 2, 3]; v == 1',
      '  or v == 3]',
    ].join('\n');
    const policy = compilePolicy({ modules: { 'a.rego': source } });
    expect(toJS(policy.evaluate(['a'], { a: 1, b: 1 }) as never)).toEqual({ x: [1], w: [1, 3] });
    expect(toJS(policy.evaluate(['a'], { b: 2 }) as never)).toEqual({ x: [1], y: true, z: true, w: [1, 3] });
    expect(() => compilePolicy({ modules: { 'a.rego': 'package a\nimport future.keywords.or\nx := y if { y := input.a or input.b }\n' } })).toThrow(
      'cannot assign vars inside implicit or operand',
    );
  });
});

describe('loading v0 policy directories', () => {
  function dir(files: Record<string, string>): string {
    const d = mkdtempSync(join(tmpdir(), 'fw-rego-v0-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(d, name), text);
    return d;
  }

  it("reads a bundle manifest's rego_version, and refuses one it cannot honour", async () => {
    const ok = await readPolicyDirectory(dir({ '.manifest': '{"rego_version": 0}', 'lib.rego': LIB }));
    expect(ok.modules.map((m) => m.regoVersion)).toEqual([0]);
    const bad = await readPolicyDirectory(dir({ '.manifest': '{"rego_version": 2}', 'lib.rego': LIB }));
    expect(bad.problems).toEqual([{ file: '.manifest', message: 'rego_version must be 0 or 1, got 2' }]);
    const perFile = await readPolicyDirectory(dir({ '.manifest': '{"file_rego_versions": {"*.rego": 0}}', 'lib.rego': LIB }));
    expect(perFile.problems[0]?.message).toMatch(/file_rego_versions .* not supported/);
  });

  it('runs v0 tests with policy test --v0-compatible, and says what is wrong without it', async () => {
    const d = dir({
      'gk.rego': V0,
      'lib.rego': LIB,
      'gk_test.rego': 'package gk\n\ntest_level { level == "medium" with input as {"containers": [{"name": "a", "image": "x"}]} }\n',
    });
    const run = await runCliInProcess(['policy', 'test', d, '--v0-compatible', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).passed).toBe(1);
    const v1 = await runCliInProcess(['policy', 'check', d]);
    expect(v1.code).toBe(1);
    expect(v1.stderr).toContain('lib.rego:3:1: rego_parse_error: `if` keyword is required before function body');
  });
});
