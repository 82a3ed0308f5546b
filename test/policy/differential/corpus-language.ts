/**
 * Differential templates for the language forms real-world corpora needed:
 * `future.keywords.or` disjunctions (implicit and `{ ... }` operands, chains,
 * with `with`), `future.keywords.not` blocks, heads written `f() := v` (plain
 * rules in OPA) and zero-argument calls reading a rule, imports after rules.
 */
import type { Template } from './corpus.js';

const p = (name: string, source: string, rules: string[]): Template => ({
  name,
  modules: [[`${name}.rego`, `package p\n\n${source}\n`]],
  rules: rules.map((r) => `data.p.${r}`),
});

export const LANGUAGE_TEMPLATES: Template[] = [
  p(
    'or-implicit',
    `import future.keywords.or

either if input.flag or input.a > 1
chain if input.a == 1 or input.b == 2 or input.s == "x"
negated if not input.flag or input.n == 0
count_once := count([1 | input.a or input.b])
members contains x if {
	some x in input.xs
	is_number(x) or is_string(x)
}
split_line contains x if {
	some x in input.ns
	x > 2
	or x < 0
}
with_input if input.a or input.b with input as {"b": input.n}`,
    ['either', 'chain', 'negated', 'count_once', 'members', 'split_line', 'with_input'],
  ),
  p(
    'or-blocks',
    `import future.keywords.or

both if { input.a > 1; input.b > 1 } or { input.flag == true }
guarded := "big" if { input.n > 2 } or input.a > 100
local_vars if { some v in input.xs; v == input.s } or { x := input.t; x == "y" }
rhs_block if input.flag or { input.a; input.b }
outer := [z | some z in [1, 2, 3]; { z == input.n } or { z == input.a }]`,
    ['both', 'guarded', 'local_vars', 'rhs_block', 'outer'],
  ),
  p(
    'not-block',
    `import future.keywords.not

none if not { input.a; input.b }
no_admin if not { some r in input.roles; r == "admin" }
no_big_pair if not {
	input.a > 1
	input.b > 1
}
nested := [x | some x in input.ns; not { x > 1; x < 5 }]`,
    ['none', 'no_admin', 'no_big_pair', 'nested'],
  ),
  p(
    'future-keywords-all',
    `import future.keywords

any_of if input.a or input.b
neither if not { input.a; input.b }
roles contains r if { some r in input.roles; r != "banned" }`,
    ['any_of', 'neither', 'roles'],
  ),
  p(
    'empty-parens-head',
    `f() := {"k": input.a}

x := f

g() := input.s if input.s
g() := out if {
	not input.s
	out := "default"
}

obj() := input.obj

read := obj()
read_key := obj().a
truthy if g()

h() if input.flag`,
    ['f', 'x', 'g', 'obj', 'read', 'read_key', 'truthy', 'h'],
  ),
  p(
    'import-after-rules',
    `early := user.name

import input.user

late := user.roles

import data.p.early as first

same if first == early`,
    ['early', 'late', 'same'],
  ),
];
