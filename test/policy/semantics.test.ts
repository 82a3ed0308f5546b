import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../runtime/policy/engine.js';
import { builtinFamilies } from '../../runtime/policy/builtins/index.js';
import { graphqlBuiltins } from '../../runtime/policy/builtins/graphql.js';
import { BuiltinRegistry } from '../../runtime/policy/builtins/registry.js';
import { errorOf, run, value } from './helpers.js';

describe('undefined, false and defaults', () => {
  it('distinguishes undefined from false', () => {
    const src = 'package t\n\np if input.x == 1\nq := input.x == 1\n';
    expect(value(src, 't.p', { x: 2 })).toBeUndefined();
    expect(value(src, 't.q', { x: 2 })).toBe(false);
    expect(value(src, 't.q', {})).toBeUndefined();
    expect(run(src, 'data.t.p = x', { input: { x: 2 } })).toEqual([]);
  });

  it('uses default values only when no rule applies', () => {
    const src = 'package t\n\ndefault allow := false\nallow if input.user == "admin"\n';
    expect(value(src, 't.allow', { user: 'bob' })).toBe(false);
    expect(value(src, 't.allow', { user: 'admin' })).toBe(true);
  });

  it('evaluates else chains in order', () => {
    const src = `package t

grade := "a" if input.score > 90
else := "b" if input.score > 80
else := "c"
`;
    expect(value(src, 't.grade', { score: 95 })).toBe('a');
    expect(value(src, 't.grade', { score: 85 })).toBe('b');
    expect(value(src, 't.grade', { score: 1 })).toBe('c');
  });

  it('supports default functions and else in functions', () => {
    const src = `package t

default f(_) := "none"
f(x) := "big" if x > 10
g(x) := "pos" if { x > 0 } else := "neg"
p := [f(1), f(11), g(1), g(-1)]
`;
    expect(value(src, 't.p')).toEqual(['none', 'big', 'pos', 'neg']);
  });
});

describe('negation over undefined operands (as OPA: `==` keeps its refs inside the `not`)', () => {
  // OPA rewrites `a == b` to `a = b` before hoisting refs out of calls, so `not input.a == 1` holds without `input.a`;
  // a builtin call's ref arguments are evaluated first, so `not startswith(input.s, "a")` is undefined without `input.s`.
  const src = `package t

eq_l if not input.a == 1
eq_r if not 1 == input.a
eq_fn if not equal(input.a, 1)
in_fn if f(input)
f(x) if not x.a == 1
local if {
  x := input
  not x.a == 1
}
dyn_key if not input.a[input.k] == 1
array_operand if not [input.a] == [1]
count_of_missing if not count(input.a) == 0
builtin_of_missing if not startswith(input.a, "x")
violation contains c.name if {
  some c in input.containers
  not c.securityContext.allowPrivilegeEscalation == false
}
`;

  it.each(['eq_l', 'eq_r', 'eq_fn', 'in_fn', 'local'])('%s holds when the compared ref is undefined', (rule) => {
    expect(value(src, `t.${rule}`, {})).toBe(true);
    expect(value(src, `t.${rule}`, { a: { a: 1 } })).toBe(true);
  });

  it('fails when the compared value is there and equal', () => {
    expect(value(src, 't.eq_l', { a: 1 })).toBeUndefined();
    expect(value(src, 't.eq_fn', { a: 1 })).toBeUndefined();
    expect(value(src, 't.in_fn', { a: 1 })).toBeUndefined();
  });

  it.each(['dyn_key', 'array_operand', 'count_of_missing', 'builtin_of_missing'])(
    '%s stays undefined when an operand evaluated before the `not` is undefined',
    (rule) => {
      expect(value(src, `t.${rule}`, {})).toBeUndefined();
    },
  );

  it('reports every container that does not set allowPrivilegeEscalation to false (the Gatekeeper idiom)', () => {
    const input = {
      containers: [
        { name: 'unset', securityContext: {} },
        { name: 'no-context' },
        { name: 'true', securityContext: { allowPrivilegeEscalation: true } },
        { name: 'false', securityContext: { allowPrivilegeEscalation: false } },
      ],
    };
    expect(value(src, 't.violation', input)).toEqual(['no-context', 'true', 'unset']);
  });
});

describe('conflicts', () => {
  it('reports complete rules with several values', () => {
    const e = errorOf(() => value('package t\n\np := 1\np := 2 if true\n', 't.p'));
    expect(e?.code).toBe('eval_conflict_error');
    expect(e?.message).toContain('complete rules must not produce multiple outputs');
  });

  it('reports functions with several outputs for the same input', () => {
    const e = errorOf(() => value('package t\n\nf(x) := 1\nf(x) := 2\np := f(1)\n', 't.p'));
    expect(e?.code).toBe('eval_conflict_error');
    expect(e?.message).toContain('functions must not produce multiple outputs for same inputs');
  });

  it('reports object rules with conflicting keys', () => {
    const e = errorOf(() => value('package t\n\np[k] := v if { some k, v in {"a": 1} }\np["a"] := 2\n', 't.p'));
    expect(e?.code).toBe('eval_conflict_error');
  });
});

describe('compile errors', () => {
  it('reports unsafe variables with their location', () => {
    const e = errorOf(() => compilePolicy({ modules: { 'x.rego': 'package t\n\np if {\n  x == y\n}\n' } }));
    expect(e?.code).toBe('rego_unsafe_var_error');
    expect(e?.message).toContain('x.rego:4: rego_unsafe_var_error: var x is unsafe');
  });

  it('reports recursion', () => {
    const e = errorOf(() => compilePolicy({ modules: { 'x.rego': 'package t\n\np if q\nq if p\n' } }));
    expect(e?.code).toBe('rego_recursion_error');
    expect(e?.message).toContain('rule data.t.p is recursive: data.t.p -> data.t.q -> data.t.p');
  });

  it('reports builtin arity errors as type errors, in OPA v1.20.2’s words', () => {
    const e = errorOf(() => compilePolicy({ modules: { 'x.rego': 'package t\n\np := count([1], [2], 3)\n' } }));
    expect(e?.code).toBe('rego_type_error');
    expect(e?.message).toBe(
      'x.rego:3: rego_type_error: count: arity mismatch\n\thave: (array<number>, array<number>, number, ???)\n\twant: (collection: any<string, array[any], object[any: any], set[any]>)',
    );
  });

  it('reports an unsafe var at the expression where it is unsafe, as OPA locates it (not at the var)', () => {
    const e = errorOf(() => compilePolicy({ modules: { 'x.rego': 'package t\n\nq if {\n\tcount(\n\t\ty)\n}\n' } }));
    expect(e?.message).toBe('x.rego:4: rego_unsafe_var_error: var y is unsafe');
    const q = errorOf(() => compilePolicy({ modules: { 'x.rego': 'package t\n' } }).query('x = y'));
    expect(q?.message).toBe('2 errors occurred:\n1:1: rego_unsafe_var_error: var x is unsafe\n1:1: rego_unsafe_var_error: var y is unsafe');
  });

  it('reports undefined functions', () => {
    const e = errorOf(() => compilePolicy({ modules: { 'x.rego': 'package t\n\np := nope(1)\n' } }));
    expect(e?.code).toBe('rego_type_error');
    expect(e?.message).toContain('undefined function nope');
  });

  it('reports re-assignment of a local var', () => {
    const e = errorOf(() => compilePolicy({ modules: { 'x.rego': 'package t\n\np if { x := 1; x := 2 }\n' } }));
    expect(e?.code).toBe('rego_compile_error');
    expect(e?.message).toContain('var x assigned above');
  });
});

describe('documents', () => {
  it('builds partial sets and objects', () => {
    const src = `package t

s contains x if { some x in input.xs; x > 1 }
o[k] := v if { some k, v in input.m; v != 0 }
`;
    expect(value(src, 't.s', { xs: [1, 2, 3] })).toEqual([2, 3]);
    expect(value(src, 't.o', { m: { a: 1, b: 0 } })).toEqual({ a: 1 });
    expect(value(src, 't.s', { xs: [] })).toEqual([]);
  });

  it('supports ref heads and merges rules with base data', () => {
    const src = `package t

a.b.c := 1
a.b.d[x] := true if { some x in ["p", "q"] }
`;
    expect(value(src, 't', undefined, { t: { base: 1 } })).toEqual({ a: { b: { c: 1, d: { p: true, q: true } } }, base: 1 });
  });

  it('enumerates over virtual and base documents', () => {
    const src = 'package t\n\nks := sort([k | data.d[k]])\n';
    const policy = compilePolicy({ modules: { 'a.rego': src, 'b.rego': 'package d.x\n\ny := 1\n' }, data: { d: { z: 1 } } });
    expect(policy.query('data.t.ks = ks').map((b) => b.ks)).toEqual([['x', 'z']]);
  });

  it('allows non-string object keys', () => {
    const src = 'package t\n\np[1] := "one"\np[[1, 2]] := "pair"\nq := p[[1, 2]]\n';
    expect(value(src, 't.q')).toBe('pair');
  });
});

describe('with', () => {
  it('replaces input and data', () => {
    const src = `package t

allow if input.user == "admin"
limit := data.config.limit
p := [x, y] if {
  x := allow with input as {"user": "admin"}
  y := limit with data.config.limit as 5
}
`;
    expect(value(src, 't.p', undefined, { config: { limit: 1 } })).toEqual([true, 5]);
  });

  it('replaces functions and builtins', () => {
    const src = `package t

f(x) := x + 1
g(x) := x * 10
p := [a, b, c] if {
  a := f(1) with f as g
  b := count([1, 2]) with count as 7
  c := f(1) with f as 42
}
`;
    expect(value(src, 't.p')).toEqual([10, 7, 42]);
  });
});

describe('iteration', () => {
  it('evaluates every', () => {
    const src = 'package t\n\np if { every x in input.xs { x > 0 } }\n';
    expect(value(src, 't.p', { xs: [1, 2] })).toBe(true);
    expect(value(src, 't.p', { xs: [1, -2] })).toBeUndefined();
    expect(value(src, 't.p', { xs: [] })).toBe(true);
  });

  it('every over something that is not a collection is undefined, as in OPA, so it never grants access', () => {
    const src = 'package t\n\ndefault allow := false\nallow if { every r in input.roles { r != "banned" } }\n';
    expect(value(src, 't.allow', { roles: ['reader', 'writer'] })).toBe(true);
    expect(value(src, 't.allow', { roles: ['reader', 'banned'] })).toBe(false);
    for (const roles of ['banned', 'reader', 42, 0, true, false, null]) expect(value(src, 't.allow', { roles })).toBe(false);
    expect(value(src, 't.allow', {})).toBe(false);
    // Objects and sets are collections: every iterates their values.
    expect(value(src, 't.allow', { roles: { a: 'reader' } })).toBe(true);
    expect(value('package t\n\np if { every x in {1, 2} { x > 0 } }\n', 't.p')).toBe(true);
    expect(value('package t\n\np if { every x in "abc" { true } }\n', 't.p')).toBeUndefined();
  });

  it('evaluates comprehensions and some-in', () => {
    const src = `package t

a := [x * 2 | some x in [1, 2, 3]]
s := {x | some x in [1, 1, 2]}
o := {k: v | some k, v in {"a": 1, "b": 2}; v > 1}
n := count([i | some i, _ in ["x", "y"]])
`;
    expect(value(src, 't')).toEqual({ a: [2, 4, 6], s: [1, 2], o: { b: 2 }, n: 2 });
  });

  it('returns every binding of a query', () => {
    expect(run('package t', 'x := [1, 2, 3][_]; x > 1')).toEqual([{ x: 2 }, { x: 3 }]);
  });
});

describe('numbers', () => {
  it('keeps big integers exact', () => {
    const src = 'package t\n\np := 9007199254740993 + 2\nq := 18446744073709551617 * 2\nr := 28857836529306024611913 != 28857836529306024611912\n';
    expect(value(src, 't.p')).toBe(9007199254740995n);
    expect(value(src, 't.q')).toBe(36893488147419103234n);
    expect(value(src, 't.r')).toBe(true);
  });

  it('follows OPA for division and remainder', () => {
    const src = 'package t\n\np := [6 / 3, 1 / 4, -17 % 5, 0.1 + 0.2]\n';
    expect(value(src, 't.p')).toEqual([2, 0.25, -2, 0.3]);
  });
});

describe('builtin errors', () => {
  it('make the expression undefined unless strict', () => {
    const policy = compilePolicy({ modules: { 'x.rego': 'package t\n\np := 1 / 0\n' } });
    expect(policy.query('data.t.p = x')).toEqual([]);
    const e = errorOf(() => policy.query('data.t.p = x', { strictBuiltinErrors: true }));
    expect(e?.code).toBe('eval_builtin_error');
    expect(e?.message).toContain('div: divide by zero');
  });

  it('report operand types as eval_type_error', () => {
    const policy = compilePolicy({ modules: { 'x.rego': 'package t\n\np := count(input)\n' } });
    const e = errorOf(() => policy.query('data.t.p = x', { input: 5, strictBuiltinErrors: true }));
    expect(e?.code).toBe('eval_type_error');
    expect(e?.message).toContain('count: operand 1 must be one of {array, object, set, string} but got number');
  });

  it('reports OPA builtins a registry does not implement as unsupported when called', () => {
    // Every OPA builtin is implemented now: leave the GraphQL family out of a registry.
    const builtins = new BuiltinRegistry(builtinFamilies.filter((f) => f !== graphqlBuiltins).flat());
    const policy = compilePolicy({
      modules: { 'x.rego': 'package t\n\np := graphql.parse_schema("s")\nq := 1 if { graphql.parse_schema("s") with graphql.parse_schema as {} }\n' },
      builtins,
    });
    expect(policy.query('data.t.q = x').map((b) => b.x)).toEqual([1]);
    const e = errorOf(() => policy.query('data.t.p = x'));
    expect(e?.code).toBe('unsupported');
  });
});

describe('dependencies through dynamic refs', () => {
  it('does not report recursion when later ref parts rule the rule out', () => {
    const modules = {
      'test.rego': 'package test\n\np := data[first].allow.see.something_else if first := "primary"\n',
      'primary.rego': 'package primary\n\nallow[action].something if action := "show"\n\nallow.see.something_else if true\n',
    };
    const policy = compilePolicy({ modules });
    expect(policy.evaluate('test.p')).toBe(true);
  });

  it('still reports recursion through a dynamic ref', () => {
    const e = errorOf(() => run('package test\n\np if data.test[x]\n', 'data.test.p = x'));
    expect(e?.code).toBe('rego_recursion_error');
  });
});

describe('package and rule conflicts', () => {
  it('rejects a package at the path of a rule in another module', () => {
    const e = errorOf(() => compilePolicy({ modules: { 'a.rego': 'package x\n\nr contains 1\n', 'b.rego': 'package x.r\n' } }));
    expect(e?.code).toBe('rego_type_error');
    expect(e?.message).toContain('package x.r conflicts with rule r defined at a.rego:3');
  });
});

describe('generic ref heads merging with rules defined at their keys (answers checked against OPA v1.20.2)', () => {
  const r = (body: string, path = 'data.p.r') => {
    const e = errorOf(() => run(`package p\n\n${body}\n`, `x = ${path}`));
    return e === undefined ? run(`package p\n\n${body}\n`, `x = ${path}`)[0]?.x : e.code;
  };

  it('joins the sets of multi-value rules and merges path objects', () => {
    expect(r('r[q] contains x if { some q in ["a", "b"]; x := 1 }\nr.a contains 2')).toEqual({ a: [1, 2], b: [1] });
    expect(r('r[q] contains x if { some q in ["a", "b"]; x := 1 }\nr.a contains 2', 'data.p.r.a')).toEqual([1, 2]);
    expect(r('r[q].s := x if { some q in ["a", "b"]; x := 1 }\nr.a.t := 2')).toEqual({ a: { s: 1, t: 2 }, b: { s: 1 } });
    expect(r('r[q].s.t contains x if { some q in ["a"]; x := 1 }\nr.a.s.u contains 3', 'data.p.r.a')).toEqual({ s: { t: [1], u: [3] } });
  });

  it("conflicts with a rule's own set or object value", () => {
    expect(r('r[q] contains x if { some q in ["a", "b"]; x := 1 }\nr.a := {2}')).toBe('eval_conflict_error');
    expect(r('r[q].s contains x if { some q in ["a", "b"]; x := 1 }\nr.a := {"s": {2}}')).toBe('eval_conflict_error');
    expect(r('r[q] := x if { some q in ["a", "b"]; x := {"s": 1} }\nr.a.t := 2', 'data.p.r.a')).toBe('eval_conflict_error');
  });
});
