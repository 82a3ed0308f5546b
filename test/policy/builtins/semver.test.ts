import { describe, expect, it } from 'vitest';
import { semverBuiltins } from '../../../runtime/policy/builtins/semver.js';
import type { Value } from '../../../runtime/policy/value.js';
import { call, callError } from './builtin-test-kit.js';

const s = (name: string, ...args: Value[]): Value | undefined => call(semverBuiltins, name, args);

describe('semver.is_valid', () => {
  it('accepts versions as OPA 1.x parses them', () => {
    for (const v of ['1.1.12-rc1+foo', '1.1.12-rc.1+foo', '0.0.0', '1.2.3-rc.1-1-1hash', '1.0.0+build.1-2']) {
      expect(s('semver.is_valid', v), v).toBe(true);
    }
    // OPA's parser drops one leading "v" and allows leading zeros and empty suffixes.
    for (const v of ['v1.1.12-rc1+foo', '01.2.3', '1.2.3-', '1.2.3+']) expect(s('semver.is_valid', v), v).toBe(true);
  });

  it('rejects everything else, including non-strings', () => {
    for (const v of [
      '1.2',
      '1.2.3x',
      '0x1.3.4',
      '-1.2.3',
      '1.2.3.4',
      '0.88.0-11_e4e5dcabb',
      '0.88.0+11_e4e5dcabb',
      'vv1.2.3',
      'V1.2.3',
      '1.2.3-a..b',
      '99999999999999999999.0.0',
      '',
    ]) {
      expect(s('semver.is_valid', v), v).toBe(false);
    }
    expect(s('semver.is_valid', 1)).toBe(false);
    expect(s('semver.is_valid', ['1.1.12-rc1+foo'])).toBe(false);
  });
});

describe('semver.compare', () => {
  const ordered: Array<[string, string]> = [
    ['0.0.0', '0.0.0-foo'],
    ['0.0.1', '0.0.0'],
    ['1.0.0', '0.9.9'],
    ['0.10.0', '0.9.0'],
    ['0.99.0', '0.10.0'],
    ['2.0.0', '1.2.3'],
    ['1.2.3', '1.2.3-asdf'],
    ['1.2.3', '1.2.3-4'],
    ['1.2.3-5-foo', '1.2.3-5'],
    ['1.2.3-5', '1.2.3-4'],
    ['1.2.3-5-foo', '1.2.3-5-Foo'],
    ['3.0.0', '2.7.2+asdf'],
    ['1.2.3-a.10', '1.2.3-a.5'],
    ['1.2.3-a.b', '1.2.3-a.5'],
    ['1.2.3-a.b', '1.2.3-a'],
    ['1.2.3-a.b.c.10.d.5', '1.2.3-a.b.c.5.d.100'],
    ['1.0.0-rc.1', '1.0.0-beta.11'],
    ['1.0.0-beta.11', '1.0.0-beta.2'],
    ['1.0.0-beta', '1.0.0-alpha.beta'],
    ['1.0.0-alpha.beta', '1.0.0-alpha.1'],
    ['1.0.0-alpha.1', '1.0.0-alpha'],
    ['1.2.3-rc.1-1-1hash', '1.2.3-rc.2'],
    ['v2.0.0', '1.9.9'],
  ];
  it('orders by SemVer precedence', () => {
    for (const [hi, lo] of ordered) {
      expect(s('semver.compare', hi, lo), `${hi} > ${lo}`).toBe(1);
      expect(s('semver.compare', lo, hi), `${lo} < ${hi}`).toBe(-1);
    }
    expect(s('semver.compare', '1.1.12-rc1+foo', '1.1.12-rc1+foo')).toBe(0);
    expect(s('semver.compare', '1.0.0+a', '1.0.0+b')).toBe(0);
    expect(s('semver.compare', '01.0.0', '1.0.0')).toBe(0);
  });

  it('fails on invalid versions and non-strings', () => {
    expect(callError(semverBuiltins, 'semver.compare', ['1.1.12', 'foo']).message).toBe('operand 2: string "foo" is not a valid SemVer');
    const e = callError(semverBuiltins, 'semver.compare', ['foo', '1.1.12']);
    expect(e.kind).toBe('builtin');
    expect(e.message).toBe('operand 1: string "foo" is not a valid SemVer');
    const t = callError(semverBuiltins, 'semver.compare', [1, '1.0.0']);
    expect(t.kind).toBe('type');
    expect(t.message).toBe('operand 1 must be string but got number');
    expect(callError(semverBuiltins, 'semver.compare', ['1.0.0', null]).message).toBe('operand 2 must be string but got null');
  });
});
