/**
 * Number templates for the differential test: generated number text (signs,
 * long mantissas, trailing zeros, `e`/`E` exponents up to 1e±400) through
 * arithmetic, aggregates, rounding and every builtin that prints a number, so
 * that OPA's kept number text and its big.Float rounding are compared digit
 * for digit.
 */
import type { Rng, Template } from './corpus.js';

function digits(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += String(rng.int(10));
  return s;
}

/** A JSON number literal, chosen to exercise text and rounding corners. */
export function numberText(rng: Rng): string {
  const sign = rng.chance(0.3) ? '-' : '';
  const r = rng.int(10);
  if (r === 0) return sign + rng.pick(['0', '1', '2', '7', '10', '65535', '2147483648', '9007199254740993', '18446744073709551617']);
  const intLen = rng.chance(0.15) ? 16 + rng.int(15) : 1 + rng.int(4);
  let int = digits(rng, intLen).replace(/^0+(?=\d)/, '');
  if (rng.chance(0.3)) int = '0';
  let text = sign + int;
  if (r < 7 || rng.chance(0.5)) {
    let frac = digits(rng, 1 + rng.int(rng.chance(0.2) ? 24 : 6));
    if (rng.chance(0.2)) frac += '0'.repeat(1 + rng.int(2));
    text += '.' + frac;
  }
  if (r >= 6) {
    const big = rng.chance(0.15);
    const exp = big ? 290 + rng.int(120) : rng.int(25);
    text += (rng.chance(0.2) ? 'E' : 'e') + (rng.chance(0.5) ? '-' : rng.chance(0.3) ? '+' : '') + String(exp);
  }
  return text;
}

function numbersInput(rng: Rng): string {
  const xs: string[] = [];
  for (let i = rng.int(5); i > 0; i--) xs.push(numberText(rng));
  const s = rng.chance(0.8) ? numberText(rng) : rng.pick(['.5', '+1', '1.', ' 1', 'x', '1e400', 'inf']);
  return `{"x":${numberText(rng)},"y":${rng.chance(0.1) ? '0' : numberText(rng)},"xs":[${xs.join(',')}],"s":${JSON.stringify(s)}}`;
}

// Rule names must not be builtin names: a rule `mul` would shadow the `*` operator (both engines then reject the module).
const p = (name: string, body: string, rules: string[]): Template => ({
  name,
  modules: [[`${name}.rego`, `package p\n\n${body}\n`]],
  rules: rules.map((r) => `data.p.${r}`),
  inputs: numbersInput,
});

export const NUMBER_TEMPLATES: Template[] = [
  p(
    'numtext-arith',
    `n_add := input.x + input.y
n_sub := input.x - input.y
n_mul := input.x * input.y
n_quo := input.x / input.y
n_neg := 0 - input.x
n_uneg := [-input.x, 2 * -input.y]
n_unary := [round(input.x), ceil(input.x), floor(input.x), abs(input.x)]
n_agg := [sum(input.xs), product(input.xs), max(input.xs), min(input.xs)]
n_cmp := [input.x < input.y, input.x == input.y, input.x >= input.y]`,
    ['n_add', 'n_sub', 'n_mul', 'n_quo', 'n_neg', 'n_uneg', 'n_unary', 'n_agg', 'n_cmp'],
  ),
  p(
    'numtext-print',
    `v := sprintf("%v|%v|%v", [input.x, input.xs, {"k": input.y}])
v_calc := sprintf("%v %v %v %v", [input.x + input.y, input.x * input.y, input.x / input.y, sum(input.xs)])
verbs := sprintf("%d|%.2f|%e|%g|%x|%s", [input.x, input.x, input.x, input.x, input.x, input.x])
js := json.marshal([input.x, input.xs, input.x * input.y])
ym := yaml.marshal([input.x, input.xs])
fi := format_int(input.x, 10)
fi16 := format_int(input.x, 16)
tn := to_number(input.s)
tn_v := sprintf("%v", [to_number(input.s)])
tn_x := json.marshal(to_number(input.x))
coll := sprintf("%v %v", [{x | some x in array.concat([input.x, input.y], input.xs)}, {x: 1 | some x in input.xs}])`,
    ['v', 'v_calc', 'verbs', 'js', 'ym', 'fi', 'fi16', 'tn', 'tn_v', 'tn_x', 'coll'],
  ),
];
