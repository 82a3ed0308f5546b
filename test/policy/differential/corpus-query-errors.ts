/**
 * Generated evaluation errors (issue 35): builtin errors, type errors at
 * evaluation and conflicts, raised by an ad-hoc query's own expressions
 * (which OPA labels by the expression's source text, `1 / 0: eval_builtin_error: …`)
 * and by rules and functions of a module the query reads (labelled
 * `p.rego:3: …`), in the contexts a query can hold them: alone, assigned,
 * compared, nested in calls, composites and comprehensions, under `with`,
 * after other expressions and lines, written with odd spacing and parentheses.
 */
export const QUERY_ERRORS_MODULE = `package p

r_div := 1 / 0
r_type := count(input.n)
conf := 1 if input.n
conf := 2 if input.n
fconf(x) := 1 if x
fconf(x) := 2 if x
f_err(x) := to_number(x)
obj_conf := {k: v | some k in ["a", "a"]; some v in [1, 2]}
r_ok := 1
arr := [1, "a"]
f(x) := x
xs := {1: 2}
`;

export const QUERY_ERRORS_INPUT = '{"n": 1, "s": "z", "o": {"a": 1}}';

/** Expressions that raise an error when evaluated over {@link QUERY_ERRORS_INPUT}. */
const FAILING = [
  '1/0',
  '1 / 0',
  '1  /  0',
  'input.n / 0',
  'input.n % 0',
  '1.5 % 1',
  'to_number("z")',
  'to_number(input.s)',
  'count(input.n)',
  'input.s + 1',
  'input.n - input.s',
  'input.s * 2',
  'upper(input.n)',
  'split(input.n, ",")',
  'concat(",", input.o)',
  'json.unmarshal("{")',
  'base64.decode("%")',
  'regex.match("[", "a")',
  'numbers.range(1, input.s)',
  'object.get(input.n, "a", 1)',
  'sprintf(input.n, [])',
  'startswith(input.n, "a")',
  'abs(input.s)',
  'sum(input.o)',
  'array.slice(input.o, 0, 1)',
  'data.p.r_div',
  'data.p.r_type',
  'data.p.conf',
  'data.p.fconf(true)',
  'data.p.f_err("q")',
  'data.p.obj_conf',
  'units.parse_bytes("zz")',
  'time.parse_rfc3339_ns("x")',
  'format_int(input.s, 10)',
];

/** Ways to hold an expression `E` in a query (`E` replaced). */
const CONTEXTS = [
  'E',
  'x = E',
  'x := E',
  'E == 1',
  'x := [E]',
  'x := {"k": E}',
  'x := {E}',
  'x := [y | y := E]',
  'x := {y | y := E}',
  'x := {"k": y | y := E}',
  'x := count([E])',
  'x := (E)',
  'y := 1; x := E',
  'y := 1\nx := E',
  'y := 1\n\n  x := E',
  'some i in [1, 2]; x := E',
  'x := E with input.q as 1',
  'every i in [1] { i > 0; E }',
  'x := [E, 1]',
  'x := E; y := 2',
  'x := object.get({}, "a", E)',
  'not E',
  'x = {"a": [E]}',
  'x := E\ny := 2',
];

/** Forms written out: `with` on the failing expression, parentheses, line breaks and comments, operators around it, non-ASCII text. */
const WRITTEN = [
  '1/0 with input.q as 1',
  'not 1/0 with input.q as 1',
  'count(input.n) with input.q as 1',
  'x := 1 with input[input.s] as 1',
  'x := (  1/0  )',
  'x := ((1/0))',
  'x = [1,2][1/0]',
  'x := "a" < 1/0',
  'x := 1/0 + 2',
  'x := 2 + 1/0',
  'x := count(input.n)\n',
  'x:=count(input.n) # c',
  'x := - input.s',
  'input.s+1 == 2',
  'x := count(\n input.n\n)',
  'x := data.p.f(1/0)',
  'x = 1/0; y = 2/0',
  'x := {1} - 1',
  'x := 1 in 2/0',
  'data.p.xs[1/0]',
  'x := input[1/0]',
  'x := to_number("z") with input as {}',
  'input.n / 0 > 1 with input.q as 2',
  'x := input.s + 1\nwith input.q as 1',
  'x := [1 | input.s + 1 with input.q as 2]',
  '[1/0]',
  'some x in [1]; x/0',
  'x := [1][0] / 0',
  'x := {"k": 1}[upper(input.n)]',
  'x := input.o["a"] / 0',
  'x := to_number("é")',
  'x := "é" / 0',
  'x := {"é": to_number(input.s)}',
  // A call read on into a ref: labelled by the call's own text (4 Dec; it was row:col).
  'x := json.unmarshal(input.s).a',
  'x := json.unmarshal(input.s)[0]',
  'x := count(json.unmarshal(input.s).a)',
  'x := data.p.f(1/0).a',
];

/** Every expression in every context (816 queries), then the forms written out. */
export function queryErrorCases(): string[] {
  return [...CONTEXTS.flatMap((c) => FAILING.map((e) => c.replace('E', e))), ...WRITTEN];
}
