/**
 * Numbers as OPA v1.20.2 has them (issue 16): the text a number was written
 * with is kept until arithmetic touches it, and arithmetic on non-integers
 * runs in a 64-bit binary float (Go big.Float). Every expected answer here is
 * what a real OPA v1.20.2 answered (probed through the differential oracle).
 */
import { describe, expect, it } from 'vitest';
import { addFloat, floatOfDec, floatText, mulFloat, quoFloat } from '../../runtime/policy/bigfloat.js';
import { compilePolicy } from '../../runtime/policy/engine.js';
import { equal, RegoNumText } from '../../runtime/policy/value.js';
import { parseJSON, stringifyJSON } from '../../runtime/policy/value-json.js';

/** `x := <expr>` evaluated on `input` (JSON text); the answer as OPA's JSON text. */
function answer(expr: string, input = '{}'): string {
  const policy = compilePolicy({ modules: [{ file: 'n.rego', source: `package n\n\nx := ${expr}\n` }] });
  const rows = policy.query('v = data.n.x', { inputValue: parseJSON(input), strictBuiltinErrors: true });
  const v = rows[0]?.v;
  return v === undefined ? 'undefined' : stringifyJSON(v);
}

describe('number text kept as written', () => {
  it('prints input and literal text in sprintf %v, json.marshal and Term.String', () => {
    const input = '{"e": 1e3, "f": 1.10, "big": 1E2, "z": -0}';
    expect(answer('sprintf("%v", [input.e])', input)).toBe('"1e3"');
    expect(answer('sprintf("%v", [[input.e, input.f, 1.0]])', input)).toBe('"[1e3, 1.10, 1.0]"');
    expect(answer('json.marshal([input.e, input.f, input.big, input.z, 0.50])', input)).toBe('"[1e3,1.10,1E2,-0,0.50]"');
    expect(answer('sprintf("%v", [{"a": 1e3}])')).toBe('"{\\"a\\": 1e3}"');
    expect(answer('sprintf("%v", [max([1e3, 2])])')).toBe('"1e3"');
  });

  it('keeps 16 or more significant digits exactly, a fraction point between them or not', () => {
    expect(answer('sum(input.xs)', '{"xs": [8454.750334749043]}')).toBe('8454.750334749043');
    expect(answer('sum([0.271, 1.5, input.x])', '{"x": 8454.750334749043}')).toBe('8456.521334749043');
  });

  it('drops the text once arithmetic touches the number', () => {
    expect(answer('sprintf("%v", [input.e + 0])', '{"e": 1e3}')).toBe('"1000"');
    expect(answer('sprintf("%v", [round(1e3)])')).toBe('"1000"');
    expect(answer('format_int(1e3, 16)')).toBe('"3e8"');
  });

  it('hands numbers to fmt by their text: int, *big.Int, float64 or the text itself', () => {
    expect(answer('sprintf("%d", [1e3])')).toBe('"%!d(string=1e3)"');
    expect(answer('sprintf("%v|%d|%f", [1.00, 1.00, 1.00])')).toBe('"1|1|%!f(int64=1)"');
    expect(answer('sprintf("%v|%d|%f", [1.5e2, 1.5e2, 1.5e2])')).toBe('"150|%!d(float64=150)|150.000000"');
    expect(answer('sprintf("%.1f|%T", [input.x, input.x])', '{"x": 1.5e400}')).toBe('"%!f(string=1)|string"');
    expect(answer('sprintf("%d", [9223372036854775808])')).toBe('"9223372036854775808"');
  });

  it('keeps text through to_number and prints beyond-double text in yaml.marshal', () => {
    expect(answer('sprintf("%v", [to_number("1e3")])')).toBe('"1e3"');
    expect(answer('yaml.marshal([1.10, -0, 1e3, 1e400, 2e-400])')).toBe('"- 1.1\\n- 0\\n- 1000\\n- 1e400\\n- 0\\n"');
    expect(() => answer('to_number("1e400")')).toThrow('strconv.ParseFloat: parsing "1e400": value out of range');
  });

  it('compares, hashes and indexes by value, not text', () => {
    const v = parseJSON('[1e3]') as unknown[];
    expect(v[0]).toBeInstanceOf(RegoNumText);
    expect(equal(v[0] as RegoNumText, 1000)).toBe(true);
    expect(answer('count({1e3, 1000, 1000.0})')).toBe('1');
    expect(answer('input.e == 1000', '{"e": 1e3}')).toBe('true');
    expect(answer('[10, 20][input.i]', '{"i": 1.0}')).toBe('20');
  });

  it('keeps the text of set members and object keys, the first one added winning', () => {
    const input = '{"xs": [1e3, 1000, 2.50, 2.5]}';
    expect(answer('sprintf("%v", [{x | x := input.xs[_]}])', input)).toBe('"{2.50, 1e3}"');
    expect(answer('sprintf("%v", [{x: 1 | x := input.xs[_]}])', input)).toBe('"{2.50: 1, 1e3: 1}"');
    expect(answer('json.marshal({1e3: "a"})')).toBe('"{\\"1e3\\":\\"a\\"}"');
  });

  it('parses unary minus before a ref or call as 0 - x, and nothing else', () => {
    expect(answer('[-input.v, 2 * -input.e, -count([1])]', '{"v": 1e-7, "e": 1e3}')).toBe('[-1e-07,-2000,-1]');
    expect(() => answer('-[1]')).toThrow('expected number');
    expect(() => answer('-true')).toThrow('expected number');
  });
});

describe('arithmetic as OPA computes it', () => {
  it('keeps integers exact, however they are written', () => {
    expect(answer('input.a + 1', '{"a": 123456789012345678901234567890}')).toBe('123456789012345678901234567891');
    expect(answer('input.a - 1', '{"a": 1e3}')).toBe('999');
    expect(answer('sum([input.b, 1])', '{"b": 123456789012345678901234567890}')).toBe('123456789012345678901234567891');
  });

  it('rounds non-integers in a 64-bit float and prints its shortest digits', () => {
    expect(answer('sum([1e-7, 4.35])')).toBe('4.3500000999999999998');
    expect(answer('1 / 3')).toBe('0.33333333333333333334');
    expect(answer('2 / 3')).toBe('0.6666666666666666667');
    expect(answer('input.b + 0.5', '{"b": 123456789012345678901234567890}')).toBe('123456789012345678900000000000');
    expect(answer('sprintf("%v", [[1234567 + 0.5, input.v * 1, 0.00001 * 1]])', '{"v": 1e-7}')).toBe('"[1.2345675e+06, 1e-07, 1e-05]"');
  });

  it('multiplies a product at 53 bits (big.NewFloat(1)) and divides big integers as floats', () => {
    expect(answer('product([0.2, 1e3, 123456789012345678901234567890])')).toBe('24691357802469134000000000000000');
    expect(answer('product([3, 123456789012345678901234567890, 2.5])')).toBe('925925917592592700000000000000');
    expect(answer('123456789012345678901234567890 / 7')).toBe('17636684144620811271000000000');
  });

  it('rounds numbers beyond a double through the float, to the digit', () => {
    const r = answer('round(input.a)', '{"a": 1.5e300}');
    expect(r.startsWith('1500000000000000000049800109861472166362379239118673928551219718248973529929812708792854310575830930686530644')).toBe(true);
    expect(r.endsWith('720512')).toBe(true);
    expect(answer('format_int(input.a, 16)', '{"a": 1.5e300}')).toMatch(/^"23d65acc00b069788(0)+"$/);
    expect(answer('abs(-123456789012345678901234567890)')).toBe('123456789012345678900000000000');
    expect(answer('format_int(123456789012345678901234567890, 10)')).toBe('"123456789012345678901234567890"');
  });

  it("reproduces OPA's ceil/floor of a zero integer part and signed zeros", () => {
    expect(answer('[ceil(-0.5), floor(-0.5), ceil(0.5), floor(0.5), round(-0.5), floor(-1.5)]')).toBe('[1,0,1,0,-1,-2]');
    expect(answer('json.marshal([input.z * 1, input.z * 1.5, input.z * -0.5, input.z / 1, 0 / -1])', '{"z": -0.0}')).toBe('"[0,-0,0,-0,-0]"');
  });
});

describe('bigfloat (Go big.Float emulation)', () => {
  it('parses decimals at 64 bits and prints the shortest digits that read back', () => {
    expect(floatText(floatOfDec({ m: 435n, e: -2 }))).toBe('4.35');
    expect(floatText(addFloat(floatOfDec({ m: 1n, e: -7 }), floatOfDec({ m: 435n, e: -2 })))).toBe('4.3500000999999999998');
    expect(floatText(quoFloat(floatOfDec({ m: 1n, e: 0 }), floatOfDec({ m: 3n, e: 0 })))).toBe('0.33333333333333333334');
  });

  it('uses exponent form below 1e-4 and from 1e6 for non-integers, plain digits for integers', () => {
    expect(floatText(floatOfDec({ m: 1n, e: -5 }))).toBe('1e-05');
    expect(floatText(floatOfDec({ m: 1n, e: -4 }))).toBe('0.0001');
    expect(floatText(floatOfDec({ m: 12345675n, e: -1 }))).toBe('1.2345675e+06');
    expect(floatText(floatOfDec({ m: 15n, e: 20 }))).toBe('1500000000000000000000');
  });

  it('rounds to the precision asked (53 bits gives double digits)', () => {
    const x = mulFloat(floatOfDec({ m: 1n, e: 0 }, 53), floatOfDec({ m: 1n, e: -1 }), 53);
    expect(floatText(x)).toBe('0.1');
    expect(floatText(mulFloat(x, floatOfDec({ m: 3n, e: 0 }), 53))).toBe('0.30000000000000004');
  });
});

// Attack (issue 33): {"amount": 1e100000} held the policy server for seconds while its body was
// parsed (one bigint division per trailing zero of a 100,001-digit integer). A document's numbers
// may now hold 20,000 exact digits together; past that the document is refused.
describe("a document's exact digits", () => {
  it('refuses JSON, Rego text and json.unmarshal text whose numbers hold more than 20,000 digits together', () => {
    expect(() => parseJSON('{"amount": 1e100000}')).toThrow(/numbers too large/);
    expect(() => parseJSON(`[${Array.from({ length: 30 }, () => '1e1000').join(',')}]`)).toThrow(/numbers too large/);
    expect(() => parseJSON(`{"n": 1${'0'.repeat(30_000)}}`)).toThrow(/numbers too large/);
    expect(() => answer('1e100000')).toThrow(/numbers too large/);
    expect(() => answer('json.unmarshal(input.s)', JSON.stringify({ s: `[${Array.from({ length: 30 }, () => '1e1000').join(',')}]` }))).toThrow(
      /json.unmarshal: numbers too large/,
    );
  });

  it('keeps numbers within the allowance exact, a run of zeros included', () => {
    expect(stringifyJSON(parseJSON('{"a": 1e400}'))).toBe('{"a":1e400}');
    expect(answer('input.a + 1', '{"a": 1e400}')).toBe(`1${'0'.repeat(399)}1`);
    expect(answer('input.a < 1000', '{"a": 1e19000}')).toBe('false');
    expect(answer('input.a / 10', `{"a": 1${'0'.repeat(5000)}}`)).toBe(`1${'0'.repeat(4999)}`);
  });
});
