import { describe, expect, it } from 'vitest';
import { unitsBuiltins } from '../../../runtime/policy/builtins/units.js';
import { RegoDecimal, type Value } from '../../../runtime/policy/value.js';
import { call, callError } from './builtin-test-kit.js';

const parse = (s: Value): Value | undefined => call(unitsBuiltins, 'units.parse', [s]);
const bytes = (s: Value): Value | undefined => call(unitsBuiltins, 'units.parse_bytes', [s]);
const err = (name: string, s: Value): string => callError(unitsBuiltins, name, [s]).message;

describe('units.parse_bytes', () => {
  it('parses decimal and binary units, case-insensitively', () => {
    const cases: Array<[string, number | bigint]> = [
      ['0', 0],
      ['0.0', 0],
      ['.0', 0],
      ['12345', 12345],
      ['10KB', 10000],
      ['10KIB', 10240],
      ['10kb', 10000],
      ['10Kib', 10240],
      ['200mb', 200000000],
      ['300GiB', 322122547200],
      ['1.1KB', 1100],
      ['1.1KiB', 1126],
      ['.5KB', 500],
      ['100k', 100000],
      ['100ki', 102400],
      ['100m', 100000000],
      ['100mi', 104857600],
      ['100g', 100000000000],
      ['100gi', 107374182400],
      ['100t', 100000000000000],
      ['100ti', 109951162777600],
      ['100p', 100000000000000000n],
      ['100pib', 112589990684262400n],
      ['10e', 10000000000000000000n],
      ['10eib', 11529215046068469760n],
      ['"100TIB"', 109951162777600],
      ['1e3KB', 1000000],
      ['3.2E2MiB', 335544320],
      ['4.5e1GiB', 48318382080],
      ['5e6', 5000000],
      ['1e-2KB', 10],
      ['6.4E1GB', 64000000000],
      ['7.5e1TiB', 82463372083200],
      ['2e2GiB', 214748364800],
      ['5E', 5000000000000000000n],
      ['-1KB', -1000],
      ['1.5', 1],
      ['1.9999999999999999999', 1],
      ['1.99999999999999999999', 2], // rounded to 64 bits first, as big.Float does
      ['0.1e-30', 0],
    ];
    for (const [input, want] of cases) expect(bytes(input), input).toBe(want);
  });

  it('handles huge exponents', () => {
    const v = bytes('10000000000e10000EiB');
    expect(typeof v).toBe('bigint');
    expect(String(v)).toHaveLength(10029);
  });

  it("reports OPA's errors", () => {
    expect(err('units.parse_bytes', '')).toBe('units.parse_bytes: no byte amount provided');
    expect(err('units.parse_bytes', 'foo')).toBe('units.parse_bytes: no byte amount provided');
    expect(err('units.parse_bytes', '10 kb')).toBe('units.parse_bytes: spaces not allowed in resource strings');
    expect(err('units.parse_bytes', '10xb')).toBe('units.parse_bytes: byte unit xb not recognized');
    expect(err('units.parse_bytes', '1.2.3')).toBe('units.parse_bytes: could not parse byte amount to a number');
    expect(err('units.parse_bytes', '1-2')).toBe('units.parse_bytes: could not parse byte amount to a number');
    expect(err('units.parse_bytes', '1e1234567kb')).toBe('units.parse_bytes: exponent too large');
    const e = callError(unitsBuiltins, 'units.parse_bytes', [1]);
    expect(e.kind).toBe('type');
    expect(e.message).toBe('operand 1 must be string but got number');
  });
});

describe('units.parse', () => {
  it('parses SI and binary units with exact results', () => {
    const cases: Array<[string, Value]> = [
      ['"100TI"', 109951162777600],
      ['0', 0],
      ['.0', 0],
      ['12345', 12345],
      ['10K', 10000],
      ['10KI', 10240],
      ['10k', 10000],
      ['10Ki', 10240],
      ['200M', 200000000],
      ['300Gi', 322122547200],
      ['1.1K', 1100],
      ['1.1Ki', 1126.4],
      ['.5K', 500],
      ['100mi', 104857600],
      ['100Pi', 112589990684262400n],
      ['10e', 10000000000000000000n],
      ['10Ei', 11529215046068469760n],
      ['1e10', 10000000000],
      ['3.2E4', 32000],
      ['2.5e3K', 2500000],
      ['5e1Gi', 53687091200],
      ['1e-2', 0.01],
      ['7.8E-1', 0.78],
      ['6e3Mi', 6291456000],
      ['42', 42],
      ['-3.5E2m', -0.35],
      ['500m', 0.5],
      ['1m', 0.001],
      ['0.0005K', 0.5],
      ['0.0000005M', 0.5],
      ['1000m', 1],
      ['1e-11', 0], // rounded to 10 decimal places
      ['5E', 5000000000000000000n],
    ];
    for (const [input, want] of cases) expect(parse(input), input).toEqual(want);
  });

  it('keeps 10 decimal places exactly', () => {
    const v = parse('123456789.123456789');
    expect(v).toBeInstanceOf(RegoDecimal);
    expect(String(v)).toBe('123456789.123456789');
  });

  it("reports OPA's errors", () => {
    expect(err('units.parse', '')).toBe('units.parse: no amount provided');
    expect(err('units.parse', 'G')).toBe('units.parse: no amount provided');
    expect(err('units.parse', 'foo')).toBe('units.parse: no amount provided');
    expect(err('units.parse', '0.0.0')).toBe('units.parse: could not parse amount to a number');
    expect(err('units.parse', '.5.2')).toBe('units.parse: could not parse amount to a number');
    expect(err('units.parse', '100 k')).toBe('units.parse: spaces not allowed in resource strings');
    expect(err('units.parse', ' 327Mi ')).toBe('units.parse: spaces not allowed in resource strings');
    expect(err('units.parse', '10e10000000Ei')).toBe('units.parse: exponent too large');
    expect(err('units.parse', '10KB')).toBe('units.parse: unit Kb not recognized');
    expect(err('units.parse', '10x')).toBe('units.parse: unit x not recognized');
    expect(callError(unitsBuiltins, 'units.parse', [null]).message).toBe('operand 1 must be string but got null');
  });
});
