/**
 * Policies and inputs whose traces are compared with OPA's: several rules,
 * functions, `some x in`, `every`, `not`, comprehensions, partial sets and
 * objects, defaults, `else`, `with`, failing expressions and trace() notes.
 * Conditions are comparisons OPA's rule index does not use (`>`, `!=`,
 * calls), except in the cases named `indexed`, which show where the index
 * makes OPA skip rules this engine enters (see explain.test.ts).
 */
import type { TraceCase } from './trace-oracle.js';

const ROLES = `package p

allow if {
	some r in input.roles
	is_admin(r)
	trace("admin role")
}

allow if {
	not input.blocked
	count(names) > 1
	trace("enough names")
}

is_admin(x) if startswith(x, "adm")

names contains n if {
	some n in input.users
	n != "bob"
}
`;

const DEFAULTS = `package p

default allow := false

allow if {
	input.level > 3
	every u in input.users { u != "root" }
	trace("no root")
}

xs := [x | some x in input.users; x != "a"]

bucket := "low" if {
	input.level < 2
} else := "mid" if {
	input.level < 5
} else := "high"

scaled if {
	f(2) == 20 with input.level as 10
}

f(x) := y if {
	y := x * input.level
}

limits[k] := v if {
	some k, v in input.limits
	v > 0
}
`;

/** A policy and its tests: what `policy test -v` traces is the test's document, as `opa test` queries it. */
const TESTED = `package p

deny if input.run.workspace.auto_apply
`;

const TESTS = `package p_test

import data.p

test_with if {
	trace("checking")
	not p.deny with input as {"run": {"workspace": {"auto_apply": true}}}
}

test_cases[tc.note] if {
	some tc in [{"note": "one", "v": 1}, {"note": "two", "v": 2}]
	tc.v == 1
}
`;

/** Why the full traces of `every` differ (the lineages and rule events still agree). */
const EVERY =
  'OPA rewrites `every x in <domain>` into `__localN__ = <domain>; every ... in __localN__` and evaluates `__localN__[k] = x` per member: ' +
  'two generated expressions (Eval/Redo events) this engine does not have';

export const CASES: Array<TraceCase & { fullDiffers?: string }> = [
  { name: 'first role matches', modules: { 'p.rego': ROLES }, path: 'p.allow', input: { roles: ['admin'], users: ['x', 'y'] } },
  { name: 'second rule after a failing first', modules: { 'p.rego': ROLES }, path: 'p.allow', input: { roles: ['user'], users: ['x', 'bob', 'y'] } },
  { name: 'nothing holds', modules: { 'p.rego': ROLES }, path: 'p.allow', input: { roles: [], users: ['bob'], blocked: true } },
  { name: 'partial set', modules: { 'p.rego': ROLES }, path: 'p.names', input: { users: ['a', 'bob', 'c'] } },
  { name: 'every fails, default', modules: { 'p.rego': DEFAULTS }, path: 'p.allow', input: { level: 4, users: ['x', 'root'] }, fullDiffers: EVERY },
  { name: 'every holds', modules: { 'p.rego': DEFAULTS }, path: 'p.allow', input: { level: 4, users: ['x', 'y'] }, fullDiffers: EVERY },
  { name: 'level too low', modules: { 'p.rego': DEFAULTS }, path: 'p.allow', input: { level: 1, users: [] } },
  { name: 'comprehension', modules: { 'p.rego': DEFAULTS }, path: 'p.xs', input: { users: ['a', 'b', 'c'] } },
  { name: 'else chain', modules: { 'p.rego': DEFAULTS }, path: 'p.bucket', input: { level: 3 } },
  { name: 'else chain to the last', modules: { 'p.rego': DEFAULTS }, path: 'p.bucket', input: { level: 9 } },
  { name: 'with', modules: { 'p.rego': DEFAULTS }, path: 'p.scaled', input: { level: 1 } },
  { name: 'partial object', modules: { 'p.rego': DEFAULTS }, path: 'p.limits', input: { limits: { a: 1, b: 0, c: 2 } } },
  { name: 'a failing test with `with` and a note', modules: { 'p.rego': TESTED, 'p_test.rego': TESTS }, path: 'p_test.test_with' },
  { name: 'a parameterised test with a failing case', modules: { 'p.rego': TESTED, 'p_test.rego': TESTS }, path: 'p_test.test_cases' },
];
