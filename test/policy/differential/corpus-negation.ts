/**
 * Negation templates for the differential test: `not` over comparisons,
 * builtin calls, function calls, comprehensions, `with` and rule refs whose
 * operands are often undefined. Which of these hold when an operand is
 * missing depends on OPA's compiler rewrites (`a == b` keeps its refs in
 * place, a call's ref arguments are evaluated first), so a wrong answer here
 * lets a policy through or drops a violation: the Gatekeeper idiom
 * `not c.securityContext.allowPrivilegeEscalation == false` is one of them.
 */
import type { Rng, Template } from './corpus.js';

const SCALARS = ['1', '2', '0', '-1', '2.5', '"1"', '"a"', '"abc"', '""', 'true', 'false', 'null'];

/** Each field is missing about half the time, and otherwise of a varying type. */
function negationInput(rng: Rng): string {
  const scalar = () => rng.pick(SCALARS);
  const list = () => {
    const out: string[] = [];
    for (let i = rng.int(4); i > 0; i--) out.push(scalar());
    return `[${out.join(',')}]`;
  };
  const obj = () => {
    const out: string[] = [];
    for (const k of ['a', 'b', 'k']) if (rng.chance(0.5)) out.push(`${JSON.stringify(k)}:${rng.chance(0.3) ? list() : scalar()}`);
    return `{${out.join(',')}}`;
  };
  const container = () => {
    const sc: string[] = [];
    if (rng.chance(0.6)) sc.push(`"allowPrivilegeEscalation":${rng.pick(['true', 'false', 'null', '"false"'])}`);
    if (rng.chance(0.4)) sc.push(`"privileged":${rng.pick(['true', 'false'])}`);
    const fields = [`"name":${JSON.stringify(rng.pick(['app', 'sidecar', 'init']))}`];
    if (rng.chance(0.8)) fields.push(`"securityContext":{${sc.join(',')}}`);
    return `{${fields.join(',')}}`;
  };
  const fields: Array<[string, () => string]> = [
    ['a', scalar],
    ['b', scalar],
    ['s', () => (rng.chance(0.8) ? rng.pick(['"a"', '"abc"', '"b"', '""', '"xa"']) : scalar())],
    ['xs', () => (rng.chance(0.85) ? list() : scalar())],
    ['obj', () => (rng.chance(0.85) ? obj() : scalar())],
    ['key', () => rng.pick(['"a"', '"b"', '"k"', '"z"', '1'])],
    ['n', () => rng.pick(['0', '1', '2', '5', '"0"'])],
    ['flag', () => rng.pick(['true', 'false', 'null', '1'])],
    ['containers', () => `[${Array.from({ length: rng.int(3) }, container).join(',')}]`],
  ];
  const out: string[] = [];
  for (const [k, gen] of fields) if (rng.chance(0.55)) out.push(`${JSON.stringify(k)}:${gen()}`);
  return `{${out.join(',')}}`;
}

const p = (name: string, body: string, rules: string[]): Template => ({
  name,
  modules: [[`${name}.rego`, `package p\n\n${body}\n`]],
  rules: rules.map((r) => `data.p.${r}`),
  inputs: negationInput,
});

export const NEGATION_TEMPLATES: Template[] = [
  p(
    'not-compare',
    `eq_l if not input.a == 1
eq_r if not 1 == input.a
eq_both if not input.a == input.b
eq_fn if not equal(input.a, 1)
unify if not input.a = 1
ne_op if not input.a != 1
ne_fn if not neq(input.a, 1)
lt_op if not input.a < 2
gte_op if not input.a >= input.b
lt_fn if not lt(input.a, 2)
nested if not input.obj.a == 1
nested_dyn if not input.obj[input.key] == 1
index if not input.xs[0] == 1
index_dyn if not input.xs[input.n] == 1
array_op if not [input.a] == [1]
object_op if not {"k": input.a} == {"k": 1}
set_op if not {input.a} == {1}
both_missing if not input.zz == input.yy
false_cmp if not input.flag == false
local if {
  x := input.obj
  not x.a == 1
}
iter if {
  some i, _ in input.xs
  not input.xs[i] == 1
}
iter_obj if {
  some k, _ in input.obj
  not input.obj[k] == 1
}`,
    [
      'eq_l',
      'eq_r',
      'eq_both',
      'eq_fn',
      'unify',
      'ne_op',
      'ne_fn',
      'lt_op',
      'gte_op',
      'lt_fn',
      'nested',
      'nested_dyn',
      'index',
      'index_dyn',
      'array_op',
      'object_op',
      'set_op',
      'both_missing',
      'false_cmp',
      'local',
      'iter',
      'iter_obj',
    ],
  ),
  p(
    'not-builtin',
    `sw if not startswith(input.s, "a")
ct if not contains(input.s, "b")
cnt_eq if not count(input.xs) == 0
cnt_gt if not count(input.xs) > 1
is_str if not is_string(input.a)
rx if not regex.match("^a", input.s)
in_set if not input.s in {"a", "b"}
in_ref if not 1 in input.xs
in_kv if not "a", 1 in input.obj
get_default if not object.get(input.obj, "a", 0) == 1
get_path if not object.get(input.obj, ["a"], "none") == "none"
upper_eq if not upper(input.s) == "A"
plus_eq if not input.a + 1 == 2
abs_gt if not abs(input.a) > 1
concat_eq if not concat(",", input.xs) == "1"
json_eq if not json.marshal(input.a) == "1"
call_out if not startswith(input.s, input.obj.a)
truthy_call if not is_number(input.obj.k)`,
    [
      'sw',
      'ct',
      'cnt_eq',
      'cnt_gt',
      'is_str',
      'rx',
      'in_set',
      'in_ref',
      'in_kv',
      'get_default',
      'get_path',
      'upper_eq',
      'plus_eq',
      'abs_gt',
      'concat_eq',
      'json_eq',
      'call_out',
      'truthy_call',
    ],
  ),
  p(
    'not-function',
    `is_one(x) if x == 1
not_one(x) if not x == 1
not_field(o) if not o.a == 1
not_field_false(o) if not o.a == false
partial(x) := "one" if x == 1
as_bool(x) := x

fn_arg if not is_one(input.a)
fn_inner if not_one(input.a)
fn_field if not_field(input.obj)
fn_field_input if not_field(input)
fn_field_false if not_field_false(input.obj)
fn_value if not partial(input.a) == "one"
fn_partial if not partial(input.a)
fn_false if not as_bool(input.flag)
fn_nested if not is_one(input.obj.a)
fn_in_not_body if {
  some o in [input.obj]
  not not_field(o)
}`,
    ['fn_arg', 'fn_inner', 'fn_field', 'fn_field_input', 'fn_field_false', 'fn_value', 'fn_partial', 'fn_false', 'fn_nested', 'fn_in_not_body'],
  ),
  p(
    'not-comprehension',
    `big := [x | some x in input.xs; is_number(x); x > 1]
cmp_count if not count([x | some x in input.xs; x == 1]) == 0
cmp_empty if not [x | some x in input.xs] == []
cmp_set if not {x | some x in input.xs} == set()
cmp_obj if not {k: v | some k, v in input.obj} == {}
cmp_rule if not big == []
cmp_ref_in if not 2 in [x | some x in input.xs]
cmp_undefined_body if not count([x | x := input.missing[_]]) > 0
cmp_sum if not sum([x | some x in input.xs; is_number(x)]) > 1`,
    ['cmp_count', 'cmp_empty', 'cmp_set', 'cmp_obj', 'cmp_rule', 'cmp_ref_in', 'cmp_undefined_body', 'cmp_sum'],
  ),
  p(
    'not-with',
    `allow if input.a == 1
one := 1
f(x) := x
g(_) := 2

w_input if not allow with input.a as 2
w_input_undef if not input.a == 1 with input as {}
w_input_value if not input.a == 1 with input.a as input.b
w_data if not one == 1 with data.p.one as input.b
w_func if not f(1) == 1 with f as g
w_builtin if not startswith(input.s, "a") with startswith as endswith
w_rule_undef if not allow with input as {"b": 1}
w_compare_missing if not input.zz == 1 with input.a as 1`,
    ['w_input', 'w_input_undef', 'w_input_value', 'w_data', 'w_func', 'w_builtin', 'w_rule_undef', 'w_compare_missing'],
  ),
  p(
    'not-rules',
    `deny contains "a" if input.a == 1
deny contains "s" if startswith(input.s, "a")
labels := {"k": input.obj.k} if is_object(input.obj)

term_ref if not input.flag
term_nested if not input.obj.a
term_dyn if not input.xs[input.n]
set_member if not deny[input.s]
set_any if {
  some d in deny
  not d == "a"
}
set_empty if not count(deny) > 0
obj_field if not labels.k == 1
double if {
  not input.a == 1
  not input.b == 2
}
negated_rule if not term_ref
all_one if every x in input.xs { x == 1 }
not_every if not all_one
key_lookup if not input.obj[input.key]
key_compare if not input.obj[input.key] == input.a
call_key if not input.obj[lower(input.s)] == 1
upper_ref if not upper(input.obj.a) == input.s
nested_not if {
  not double
  not input.flag == true
}
object_in if not {"a": input.a} == input.obj
print_not if {
  print(input.a)
  not input.a == 2
}`,
    [
      'term_ref',
      'term_nested',
      'term_dyn',
      'set_member',
      'set_any',
      'set_empty',
      'obj_field',
      'double',
      'negated_rule',
      'not_every',
      'key_lookup',
      'key_compare',
      'call_key',
      'upper_ref',
      'nested_not',
      'object_in',
      'print_not',
    ],
  ),
  p(
    'not-gatekeeper',
    `violation contains c.name if {
  some c in input.containers
  not c.securityContext.allowPrivilegeEscalation == false
}

privileged contains c.name if {
  some c in input.containers
  c.securityContext.privileged
}

hardened contains c.name if {
  some c in input.containers
  not c.securityContext.privileged == true
  not c.securityContext.allowPrivilegeEscalation != false
}

every_ok if every c in input.containers { not c.securityContext.allowPrivilegeEscalation == true }`,
    ['violation', 'privileged', 'hardened', 'every_ok'],
  ),
];
