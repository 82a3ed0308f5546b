import { describe, expect, it } from 'vitest';
import { JsonNumber, stringifyDeep, stringifyJson } from '../../runtime/core/json-text.js';

// stringifyJson writes a policy's answers (`policy eval`): V8's JSON.stringify recurses and
// threw "Maximum call stack size exceeded" on answers some thousands deep, which OPA prints.

const SHALLOW: unknown[] = [
  null,
  1,
  'x"y',
  [],
  {},
  [1, [2, [3, []]], {}],
  { a: 1, b: [true, null, undefined, () => 1], c: undefined, d: { e: 'f', g: [] } },
  { big: 2n ** 70n, exact: new JsonNumber('1e400'), date: new Date(0), list: [new JsonNumber('0.10'), -0] },
];

describe('stringifyJson', () => {
  it('writes values nested 20,000 deep whole (compact and indented)', () => {
    let deep: unknown = { n: new JsonNumber('1e400'), b: 2n ** 70n, u: undefined, a: [undefined, 'x'] };
    const N = 20_000;
    for (let i = 0; i < N; i++) deep = { k: [deep] };
    const leaf = '{"n":1e400,"b":1180591620717411303424,"a":[null,"x"]}';
    expect(stringifyJson(deep) === '{"k":['.repeat(N) + leaf + ']}'.repeat(N)).toBe(true);
    // Indented text grows with the square of the depth: 4,000 levels of {k: [...]} (8,000 deep).
    let shallower: unknown = 1;
    for (let i = 0; i < 4_000; i++) shallower = { k: [shallower] };
    const pretty = stringifyJson(shallower, 2);
    let expected = '1';
    for (let d = 3_999; d >= 0; d--)
      expected = `{\n${'  '.repeat(2 * d + 1)}"k": [\n${'  '.repeat(2 * d + 2)}${expected}\n${'  '.repeat(2 * d + 1)}]\n${'  '.repeat(2 * d)}}`;
    expect(pretty === expected, pretty.slice(0, 200)).toBe(true);
  });

  it('writes, on its explicit stack, the text JSON.stringify writes', () => {
    for (const indent of [undefined, 0, 2, 4, 12]) {
      for (const value of SHALLOW) expect(stringifyDeep(value, indent), `${String(indent)} ${stringifyJson(value)}`).toBe(stringifyJson(value, indent));
    }
  });
});
