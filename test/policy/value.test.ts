import { describe, expect, it } from 'vitest';
import { compare, equal, RegoObject, RegoSet, type Value } from '../../runtime/policy/value.js';
import { fromJS, parseJSON, stringifyJSON, toJS } from '../../runtime/policy/value-json.js';
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
