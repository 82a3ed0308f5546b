/**
 * Generated queries that OPA's query compiler may refuse (issue 35): calls of
 * builtins and user functions with one operand too few or too many (OPA's
 * `arity mismatch`, its `have:` listing the operands' types) and with
 * arguments of types a builtin does not take (`invalid argument(s)`), typed
 * against rules of known types, as a term (`x = f(a)`), as an expression
 * (`x = 1; f(a)`), assigned, inside a comprehension, and under `with` (a
 * function replaced by another whose arguments do not unify is refused).
 * Compile errors are compared word for word, their location included.
 */
import { builtinDecl } from '../../../runtime/policy/compiler/builtin-decls.js';
import { Rng, type Template } from './corpus.js';

/** Builtins whose answers do not depend on the clock, randomness or the network, of every arity from 1 to 3. */
const BUILTINS = [
  'count',
  'upper',
  'abs',
  'sort',
  'to_number',
  'is_string',
  'type_name',
  'object.keys',
  'json.marshal',
  'concat',
  'plus',
  'sprintf',
  'startswith',
  'split',
  'indexof',
  'object.union',
  'array.concat',
  'numbers.range',
  'array.slice',
  'object.get',
  'replace',
  'substring',
];
const FUNCTIONS: Array<[string, number]> = [
  ['data.p.fn_num', 1],
  ['data.p.fn_any', 1],
  ['data.p.fn_two', 2],
];
/** Operands: literals, composites, refs into rules of known types, `input`, comprehensions and calls. */
const OPERANDS = [
  '1',
  '"a"',
  'true',
  'null',
  '[1, "a"]',
  '{"k": 1}',
  '{1}',
  '[]',
  '{}',
  'set()',
  'input.a',
  'input',
  'data.p.r_num',
  'data.p.r_str',
  'data.p.obj',
  'data.p.obj.b',
  'data.p.arr',
  'data.p.arr[0]',
  'data.q.z',
  '[y | y := 1]',
  '{y | y := "a"}',
  '{y: 1 | y := "a"}',
  '[data.p.r_num]',
  '{"a": input.a}',
  'count([1])',
  '1 + 2',
];

const MODULE = `package p

r_num := 1
r_str := "s"
obj := {"a": 1, "b": {"k": 2}}
arr := [1, "a"]

fn_num(x) := x + 1
fn_any(x) := [x]
fn_two(a, b) := concat(a, b)
`;

function callee(rng: Rng): [name: string, arity: number] {
  if (rng.chance(0.25)) return rng.pick(FUNCTIONS);
  const name = rng.pick(BUILTINS);
  return [name, (builtinDecl(name)?.types.length ?? 1) - 1];
}

function call(rng: Rng, extra: number[], [name, arity] = callee(rng)): string {
  const count = Math.max(0, arity + rng.pick(extra));
  return `${name}(${Array.from({ length: count }, () => rng.pick(OPERANDS)).join(', ')})`;
}

/** A `with` on a call of `name`: the function replaced by another (OPA checks their arguments unify), or a value; a rule or `input` replaced. */
function withClause(rng: Rng, name: string): string {
  const replacement = rng.pick([...BUILTINS.slice(0, 12), ...FUNCTIONS.map(([f]) => f), '1', '"s"']);
  return rng.pick([
    `${name} as ${replacement}`,
    `${name} as ${replacement}`,
    `data.p.r_num as ${rng.pick(OPERANDS.slice(0, 10))}`,
    `data.p.obj as ${rng.pick(['{"b": 1}', '1', '{"a": "s"}'])}`,
    `input as ${rng.pick(OPERANDS.slice(0, 10))}`,
  ]);
}

/**
 * One query after `x = `: a call as a term, as an expression (with or without its output), assigned, in a
 * comprehension, or under a `with`.
 */
function query(rng: Rng): string {
  switch (rng.int(5)) {
    case 4: {
      const fn = callee(rng);
      return `1; y := ${call(rng, [0], fn)} with ${withClause(rng, fn[0])}`;
    }
    case 0:
      return call(rng, [-1, 0, 0, 1]);
    case 1:
      return `1; ${call(rng, [-1, 0, 1, 2])}`;
    case 2:
      return `1; y := ${call(rng, [-1, 0, 1])}`;
    default:
      return `[z | z := ${call(rng, [-1, 0, 1])}]`;
  }
}

const rng = new Rng(35);

export const QUERY_TYPE_TEMPLATES: Template[] = [
  {
    name: 'query-types',
    modules: [['p.rego', MODULE]],
    rules: Array.from({ length: 120 }, () => query(rng)),
    inputs: () => '{"a": 1}',
    exactCompileErrors: true,
  },
];
