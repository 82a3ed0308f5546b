import { describe, expect, it } from 'vitest';
import { compilePolicy, MAX_CACHED_PATHS } from '../../runtime/policy/engine.js';
import { RegoDecimal } from '../../runtime/policy/value.js';
import { errorOf, run, value } from './helpers.js';

describe('string interpolation', () => {
  it('renders values, undefined and nested templates', () => {
    const src = `package t

a := "foo"
p := $"{a} {input.n + 1} {[1, "x"]} {input.missing} \\{lit\\} {$"<{a}>"}"
r := $\`line {a}
next\`
`;
    expect(value(src, 't.p', { n: 1 })).toBe('foo 2 [1, "x"] <undefined> {lit} <foo>');
    expect(value(src, 't.r')).toBe('line foo\nnext');
  });

  it('fails on several values', () => {
    const e = errorOf(() => value('package t\n\np := $"{input.xs[_]}"\n', 't.p', { xs: [1, 2] }));
    expect(e?.message).toContain('template-strings must not produce multiple outputs');
  });
});

describe('exact decimals', () => {
  it('compares numbers as the decimals they denote', () => {
    const src = `package t

p := [
  0.1234567890123456789 > 0.1234567890123456788,
  1e-400 > 0,
  1e400 > 1e399,
  3.50 == 3.5,
  0.1 + 0.2 == 0.3,
  count({3.5, 3.50, 35e-1}),
]
`;
    expect(value(src, 't.p')).toEqual([true, true, true, true, true, 1]);
  });

  it('keeps decimals a double cannot hold', () => {
    const policy = compilePolicy({ modules: { 'x.rego': 'package t\n\np := 0.1234567890123456789\n' } });
    const v = policy.evaluate('t.p');
    expect(v).toBeInstanceOf(RegoDecimal);
    expect(String(v)).toBe('0.1234567890123456789');
  });
});

describe('partial rules queried by key', () => {
  it('evaluates only the bodies for that key (no conflict or error from other keys)', () => {
    const src = `package t

o["a"] := 1
o["b"] := 2
o["b"] := 3
s contains x if { some x in [1, 2]; 10 / (x - 2) }
`;
    expect(value(src, 't.o.a')).toBe(1);
    expect(errorOf(() => value(src, 't.o'))?.code).toBe('eval_conflict_error');
    const policy = compilePolicy({ modules: { 'x.rego': src } });
    expect(policy.query('data.t.s[1] = x', { strictBuiltinErrors: true })).toEqual([{ x: 1 }]);
  });
});

describe('negation', () => {
  it('supports rego.v2 not-bodies and future.keywords.not', () => {
    const v2 = 'package t\nimport rego.v2\n\ndefault p := false\np if { not { input.a; input.b } }\n';
    expect(value(v2, 't.p', { a: true, b: false })).toBe(true);
    expect(value(v2, 't.p', { a: true, b: true })).toBe(false);
    const fk = 'package t\nimport future.keywords.not\n\ndefault p := false\np if { not input.x + input.y == input.z }\n';
    expect(value(fk, 't.p', {})).toBe(true);
    const v1 = 'package t\n\ndefault p := false\np if { not input.x + input.y == input.z }\n';
    expect(value(v1, 't.p', {})).toBe(false);
  });
});

describe('with replacing builtins', () => {
  it('mocks builtins with functions and values; mocks are off inside a mock', () => {
    const src = `package t

mock_count(x) := 100 if x == "one"
mock_count(x) := count(x) if x != "one"
p := [count("one"), count("three")] if true
q := x if { x := r with count as mock_count }
r := [count("one"), count("three")]
s := x if { x := t with http.send as {"status_code": 200} }
t := http.send({"url": "x"}).status_code
`;
    expect(value(src, 't.q')).toEqual([100, 5]);
    expect(value(src, 't.p')).toEqual([3, 5]);
    expect(value(src, 't.s')).toBe(200);
  });
});

describe('print and queries', () => {
  it('sends print output to the hook, <undefined> for undefined values', () => {
    const lines: string[] = [];
    const policy = compilePolicy({ modules: { 'x.rego': 'package t\n\np if { print("x =", input.x, input.missing) }\n' } });
    expect(policy.query('data.t.p = v', { input: { x: [1] }, print: (m) => lines.push(m) })).toEqual([{ v: true }]);
    expect(lines).toEqual(['x = [1] <undefined>']);
  });

  it('reports declared query vars under their names and hides generated ones', () => {
    expect(run('package t', 'x := 1; y := [x, 2]; some z in y')).toEqual([
      { x: 1, y: [1, 2], z: 1 },
      { x: 1, y: [1, 2], z: 2 },
    ]);
  });

  it('evaluates paths in several spellings and reuses prepared queries', () => {
    const policy = compilePolicy({ modules: { 'x.rego': 'package a.b\n\nallow if input.ok\n' } });
    expect(policy.evaluate('a.b.allow', { ok: true })).toBe(true);
    expect(policy.evaluate('data.a.b.allow', { ok: true })).toBe(true);
    expect(policy.evaluate('a/b/allow', { ok: false })).toBeUndefined();
    expect(policy.evaluate(['a', 'b', 'allow'], { ok: true })).toBe(true);
    const q = policy.prepare('data.a.b.allow = x');
    expect(q.run({ input: { ok: true } })).toEqual([{ x: true }]);
    expect(q.run({ input: { ok: false } })).toEqual([]);
  });
});

describe('document paths from requests', () => {
  it('keeps a bounded number of path references, however many distinct paths are asked for', () => {
    const policy = compilePolicy({ modules: { 'a.rego': 'package a\n\nallow if input.ok\n' } });
    for (let i = 0; i < MAX_CACHED_PATHS + 500; i++) expect(policy.evaluate(['a', `random-${i}`], {})).toBeUndefined();
    // Past the bound, paths are still answered, and the first ones stay cached.
    expect(policy.evaluate(['a', 'allow'], { ok: true })).toBe(true);
    expect((policy as unknown as { paths: Map<string, unknown> }).paths.size).toBe(MAX_CACHED_PATHS);
  });
});
