import { expect, it } from 'vitest';
import { randomUuid } from '../../runtime/core/random-uuid.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

it('makes version 4 UUIDs in the form crypto.randomUUID gives, none repeated across many fills of its pool', () => {
  const ids = Array.from({ length: 50_000 }, () => randomUuid());
  for (const id of ids) expect(id).toMatch(V4);
  expect(new Set(ids).size).toBe(ids.length);
  // The same form as Node's (the context ids of anonymous requests were randomUUID's).
  expect(crypto.randomUUID()).toMatch(V4);
});

it('spreads every random hex digit evenly (the 122 random bits are not biased or fixed)', () => {
  const count = 32_000;
  // Positions of the 30 random hex digits besides the version digit and the two variant bits' digit.
  const positions = [...Array(36).keys()].filter((i) => ![8, 13, 14, 18, 19, 23].includes(i));
  const counts = positions.map(() => new Array<number>(16).fill(0));
  for (let n = 0; n < count; n++) {
    const id = randomUuid();
    positions.forEach((at, p) => counts[p]![parseInt(id[at]!, 16)]!++);
  }
  const expected = count / 16;
  for (const digits of counts) {
    // Chi-square with 15 degrees of freedom: above 50 has a chance below 1e-5 for a fair digit.
    const chi = digits.reduce((sum, seen) => sum + (seen - expected) ** 2 / expected, 0);
    expect(chi).toBeLessThan(50);
  }
  // The variant digit takes 8, 9, a or b evenly.
  const variants = new Map<string, number>();
  for (let n = 0; n < count; n++) {
    const digit = randomUuid()[19]!;
    variants.set(digit, (variants.get(digit) ?? 0) + 1);
  }
  expect([...variants.keys()].sort()).toEqual(['8', '9', 'a', 'b']);
  for (const seen of variants.values()) expect(Math.abs(seen - count / 4)).toBeLessThan(count / 40);
});
