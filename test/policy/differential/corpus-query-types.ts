/**
 * Generated queries that OPA's query compiler may refuse (issue 35): calls of
 * builtins and user functions with one operand too few or too many (OPA's
 * `arity mismatch`, its `have:` listing the operands' types) and with
 * arguments of types a builtin does not take (`invalid argument(s)`), typed
 * against rules of known types, as a term (`x = f(a)`), as an expression
 * (`x = 1; f(a)`), assigned and inside a comprehension. Compile errors are
 * compared word for word, their location included.
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

function call(rng: Rng, extra: number[]): string {
  const [name, arity] = rng.chance(0.25)
    ? rng.pick(FUNCTIONS)
    : ((n: string): [string, number] => [n, (builtinDecl(n)?.types.length ?? 1) - 1])(rng.pick(BUILTINS));
  const count = Math.max(0, arity + rng.pick(extra));
  return `${name}(${Array.from({ length: count }, () => rng.pick(OPERANDS)).join(', ')})`;
}

/** One query after `x = `: a call as a term, as an expression (with or without its output), assigned, or in a comprehension. */
function query(rng: Rng): string {
  switch (rng.int(4)) {
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
    rules: Array.from({ length: 90 }, () => query(rng)),
    inputs: () => '{"a": 1}',
    exactCompileErrors: true,
  },
];
