import { describe, expect, it } from 'vitest';
import { compare, equal, RegoObject, RegoSet, type Value } from '../../runtime/policy/value.js';
import { fromJS, needsExactParse, parseJSON, parseJSONExact, stringifyJSON, toJS } from '../../runtime/policy/value-json.js';
import { formatValue } from '../../runtime/policy/value-format.js';

describe('value model', () => {
  it('orders values across types as OPA does', () => {
    const vals: Value[] = [RegoSet.of([1]), new RegoObject(), [1], 'a', 2, true, false, null];
    const sorted = [...vals].sort(compare);
    expect(sorted.map((v) => formatValue(v))).toEqual(['null', 'false', 'true', '2', '"a"', '[1]', '{}', '{1}']);
  });

  it('compares strings by code point', () => {
    expect(compare('\uffff', '\u{1F600}')).toBeLessThan(0);
    expect(compare('a', 'b')).toBeLessThan(0);
  });

  it('uses canonical equality for sets and object keys', () => {
    const s = RegoSet.of([[1, 2], [1, 2], RegoObject.fromEntries([['a', 1]])]);
    expect(s.size).toBe(2);
    const o = new RegoObject();
    o.set([1, 2], 'x');
    o.set(1, 'one');
    o.set('1', 'string one');
    expect(o.get([1, 2])).toBe('x');
    expect(o.get(1)).toBe('one');
    expect(o.size).toBe(3);
    expect(equal(RegoSet.of([1, 2]), RegoSet.of([2, 1]))).toBe(true);
  });

  it('keeps integers beyond 2^53 exact', () => {
    const v = parseJSON('{"n": 123456789012345678901234567890, "f": 1.5, "s": 10}');
    expect(stringifyJSON(v)).toBe('{"f":1.5,"n":123456789012345678901234567890,"s":10}');
    expect(fromJS(2 ** 60)).toBe(2n ** 60n);
    expect(fromJS(5n)).toBe(5);
  });

  it('converts to JSON like OPA (sets sorted, non-string keys as JSON text)', () => {
    const o = new RegoObject();
    o.set(0, true);
    o.set(RegoObject.fromEntries([['a', 'b']]), 1);
    expect(toJS(o)).toEqual({ '0': true, '{"a":"b"}': 1 });
    expect(toJS(RegoSet.of([3, 1, 2]))).toEqual([1, 2, 3]);
  });
});

describe('parseJSON beyond a double', () => {
  it('accepts 1e400 and 2e-400 exactly, as OPA does, instead of rejecting them', () => {
    expect(equal(parseJSON('{"a": 1e400}'), RegoObject.fromEntries([['a', 10n ** 400n]]))).toBe(true);
    expect(String(parseJSON('2e-400'))).toBe('2e-400');
    // The text is kept, as OPA keeps it (json.Number) until arithmetic touches it.
    expect(stringifyJSON(parseJSON('[-1e400]'))).toBe('[-1e400]');
  });
});

describe('parseJSON takes the JSON.parse path only when that changes nothing', () => {
  // Number texts a double or JSON.parse would change, and ones it keeps; inside strings none of them matter.
  const numbers = [
    '0',
    '-0',
    '1',
    '-1',
    '13',
    '1.5',
    '-0.5',
    '1.0',
    '0.50',
    '-0.0',
    '10',
    '1e3',
    '1E3',
    '2e-400',
    '1.5e300',
    '9007199254740993',
    '123456789012345',
    '1234567890123456',
    '1.234567890123456',
    '0.1',
    '100.25',
    '-12345678901234567890',
  ];
  const rng = (() => {
    let x = 0x2545f491;
    return (n: number) => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) % n;
    };
  })();
  const pick = <T>(xs: readonly T[]): T => xs[rng(xs.length)] as T;
  const text = (depth: number): string => {
    switch (depth > 3 ? rng(3) : rng(6)) {
      case 0:
        return pick(numbers);
      case 1:
        return JSON.stringify(`${pick(numbers)} at ${pick(['x', '"q"', '\\', ':', '[', ','])}${pick(numbers)}`);
      case 2:
        return pick(['true', 'false', 'null']);
      case 3:
        return `[${Array.from({ length: rng(4) }, () => text(depth + 1)).join(pick([',', ', ', ' ,\n']))}]`;
      default:
        return `{${Array.from({ length: rng(4) }, (_, i) => `${JSON.stringify(`k${i}${pick(numbers)}`)}:${pick(['', ' '])}${text(depth + 1)}`).join(',')}}`;
    }
  };
  it('agrees with our exact parser on 5,000 generated documents, kept number texts included', () => {
    for (let i = 0; i < 5_000; i++) {
      const t = text(0);
      expect(stringifyJSON(parseJSON(t)), t).toBe(stringifyJSON(parseJSONExact(t)));
    }
  });
  it('sends plain numbers, and number text inside strings, to JSON.parse', () => {
    expect(needsExactParse('{"a":[0,1,-1,13,1.5,-0.5,0.1,100.25,123456789012345],"s":"1e3 1.0 -0 12345678901234567"}')).toBe(false);
    for (const n of ['-0', '1.0', '0.50', '-0.0', '10.0', '1e3', '1E3', '2e-400', '9007199254740993', '1234567890123456', '1.234567890123456']) {
      expect(needsExactParse(`{"a":[${n}]}`), n).toBe(true);
    }
  });
});
