/**
 * upper/lower and sprintf as OPA v1.20.2 (Go) answers them; each expectation
 * was checked against a real OPA through the differential oracle.
 */
import { describe, expect, it } from 'vitest';
import { run } from '../helpers.js';

const x = (expr: string) => run('package p', `x := ${expr}`, { strictBuiltinErrors: true })[0]?.x;

describe("upper / lower with Go's per-character case mapping", () => {
  it('lowers every Σ to σ (no final sigma) and İ to i', () => {
    expect(x('lower("ΣΑΣ")')).toBe('σασ');
    expect(x('lower("İI")')).toBe('ii');
  });

  it('keeps characters whose uppercase is several characters (ß, ﬀ, ŉ)', () => {
    expect(x('upper("straße ﬀ ŉ")')).toBe('STRAßE ﬀ ŉ');
    expect(x('upper("ǆ abc")')).toBe('Ǆ ABC');
  });
});

describe('sprintf', () => {
  it('prints %T as Go type names (integers are int64)', () => {
    expect(x('sprintf("%T %T %T %T", [2, 1.5, 12345678901234567890123, "s"])')).toBe('int64 float64 *big.Int string');
  });

  it('applies the precision to the value of a wrong verb, as Go does', () => {
    expect(x('sprintf("%.2f", [2])')).toBe('%!f(int64=02)');
    expect(x('sprintf("%.2f", ["database"])')).toBe('%!f(string=da)');
  });

  it("prints %x / %X of a float as Go's hex float", () => {
    expect(x('sprintf("%x %x %X", [4.35, 0.3, 0.2])')).toBe('0x1.1666666666666p+02 0x1.3333333333333p-02 0X1.999999999999AP-03');
    expect(x('sprintf("%x %x %.3x", [1.5, -1.5, 1.1])')).toBe('0x1.8p+00 -0x1.8p+00 0x1.19ap+00');
  });

  it('prints a number no double holds as its scientific text', () => {
    expect(x('sprintf("hi %v", [2e308])')).toBe('hi 2e308');
    expect(x('sprintf("%v", [-1.5e400])')).toBe('-1.5e400');
  });
});

// Attack (issue 33): sprintf("%0100000000d") built a 100 MB string and held the policy server for 16 s.
// Go's fmt gives up on a width or precision past a million (parsenum, intFromArg), and so does OPA.
describe('sprintf widths and precisions past a million', () => {
  it('prints %!(NOVERB) for a written one and %!(BADWIDTH) / %!(BADPREC) for one from an argument, as Go does', () => {
    expect(x('sprintf("%0100000000d", [1])')).toBe('%!(NOVERB)%!(EXTRA int64=1)');
    expect(x('sprintf("%.100000000f", [1.5])')).toBe('%!(NOVERB)%!(EXTRA float64=1.5)');
    expect(x('sprintf("%*d", [100000000, 7])')).toBe('%!(BADWIDTH)7');
    expect(x('sprintf("%.*d", [100000000, 7])')).toBe('%!(BADPREC)7');
    expect(x('sprintf("%5d|%.3d", [7, 7])')).toBe('    7|007');
    expect((x('sprintf("%1000000d", [7])') as string).length).toBe(1_000_000);
  });
});
