/**
 * Differential templates for the language forms real-world corpora needed:
 * `future.keywords.or` disjunctions (implicit and `{ ... }` operands, chains,
 * with `with`), `future.keywords.not` blocks, heads written `f() := v` (plain
 * rules in OPA) and zero-argument calls reading a rule, imports after rules.
 */
import type { Rng, Template } from './corpus.js';

/** Modules whose `rego.parse_module` AST both engines must print alike: comments, template strings, or/not, ref heads, every. */
const PARSED_MODULES = [
  'package a\n# comment one\nx := 1 # trailing\n',
  'package a.b["c-d"]\nimport rego.v1\nimport data.foo as bar\np.q[r] := 1 if r := "x"\ns contains t if t := 1\nf(x) := y if y := x\ndefault g := 1\nh := 1 if false\nelse := 2\n',
  'package a\nimport future.keywords.or\nimport future.keywords.not\nx if { input.b == 1; true } or input.c\ny if not { input.a; input.b }\nz if input.a or {input.b} or input.c with input as 1\n',
  'package a\nmsg := $"hello {input.name} and {1 + 2}"\nt := $`multi {input.x}\nline`\nu := $"{input.name}{[1 | true]}"\n',
  'package a\np[x] := 1 if x := "a"\np.q.r := 2\nsome_set contains x if some x in [1]\nobj[k] := v if some k, v in {"a": 1}\nf() := 3\n',
  'package a\nf(_, _) := 1\nx := [y | some y in [1]; not y == 2]\nevery_test if every x in [1] { x > 0 }\nw if 1 == 1 with input.a as 2 with data.b as 3\n',
  '# METADATA\n# title: hi\npackage a\n\nimport data.x\n\n# leading\n\n# METADATA\n# description: rule\np := 1 if {\n\t# inner\n\tinput.a # same line\n}\nimport input.late\n',
];

const p = (name: string, source: string, rules: string[]): Template => ({
  name,
  modules: [[`${name}.rego`, `package p\n\n${source}\n`]],
  rules: rules.map((r) => `data.p.${r}`),
});

export const LANGUAGE_TEMPLATES: Template[] = [
  {
    // OPA's IsMetadataComment: column 1 and text starting METADATA (`# METADATA:` too); the block ends at a comment
    // not in column 1 or at the next METADATA comment. Regal's own policies write `# METADATA:`.
    name: 'metadata-headers',
    modules: [
      [
        'metadata-headers.rego',
        'package p\n\n# METADATA:\n# title: colon\ncolon := rego.metadata.rule()\n\n# METADATA\n# title: first\n# METADATA\n# description: second\ntwo := rego.metadata.rule()\n\n# METADATA\n# title: short\n  # description: indented, not in the block\nindented := rego.metadata.rule()\n\nplain if {\n  # METADATA\n  # title: inside a body\n  true\n}\n\nrule_after := rego.metadata.rule()\n',
      ],
    ],
    rules: ['data.p.colon', 'data.p.two', 'data.p.indented', 'data.p.rule_after'],
    inputs: () => '{}',
  },
  {
    name: 'parse-module-ast',
    modules: [['parse-module-ast.rego', 'package p\n\nast := rego.parse_module("p.rego", input.s)\n']],
    rules: ['data.p.ast'],
    inputs: (rng: Rng) => JSON.stringify({ s: rng.pick(PARSED_MODULES) }),
  },
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
  {
    // `with` targets holding vars: OPA fails them ("bad document path") only when the expression is reached.
    ...p(
      'with-var-targets',
      `bound if { input.n > 2; x := "k"; input[x] == 1 with input[x] as 1 }
each := [v | some v in input.ss; count(v) > 3; input.a == 1 with input[v] as 2]
neg if { is_string(input.s); not input.missing with data.q[input.s] as 1 }
number_key if { input.flag == true; input.a == 1 with input[1] as 1 }
ground := y if { y := input.s with input.s as "z" }
keyed if { input.key == "a"; input.a == 2 with input[input.key] as 2 }`,
      ['bound', 'each', 'neg', 'number_key', 'ground', 'keyed'],
    ),
    exactErrors: true,
  },
];
