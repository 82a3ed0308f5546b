import { describe, expect, it } from 'vitest';
import { plainSearchRequest, SearchRequestSchema } from '../../runtime/memory/memory-search.js';

// plainSearchRequest is the search route's shortcut past zod: every body it
// accepts must be one the schema accepts, with the same output (keys, order,
// values, -0 included); everything else is left to the schema.

const ABSENT = Symbol('absent');
const pools: Record<string, unknown[]> = {
  text: [ABSENT, 'tea', '', '  tea  ', null, 5, [], {}, true],
  limit: [ABSENT, 1, 10, 100, 0, 101, -0, 2.5, '10', null, 1e21, -1],
  offset: [ABSENT, 0, -0, 7, 100_000, 100_001, -1, 1.5, null, '0'],
  search_mode: [ABSENT, 'semantic', 'keyword', 'hybrid', 'fuzzy', null, ''],
};
const extras: Array<Record<string, unknown> | string> = [
  {},
  { namespace: { eq: 'crm' } },
  { recency_boost: false },
  { distance_threshold: 0.5 },
  { limits: 10 },
  // As JSON.parse makes it: an own "__proto__" key.
  '{"__proto__": {"text": "x"}}',
];

function* bodies(): Generator<unknown> {
  for (const text of pools.text!)
    for (const limit of pools.limit!)
      for (const offset of pools.offset!)
        for (const mode of pools.search_mode!)
          for (const extra of extras) {
            const base = typeof extra === 'string' ? (JSON.parse(extra) as Record<string, unknown>) : { ...extra };
            const body: Record<string, unknown> = {};
            if (text !== ABSENT) body.text = text;
            if (limit !== ABSENT) body.limit = limit;
            if (offset !== ABSENT) body.offset = offset;
            if (mode !== ABSENT) body.search_mode = mode;
            yield Object.assign(base, body);
          }
  yield* [null, [], 'tea', 5, true, [{ text: 'tea' }], Object.create(null) as unknown];
}

describe('plainSearchRequest', () => {
  it('accepts only what SearchRequestSchema accepts, with its output, and takes every valid body of text, limit, offset and search_mode', () => {
    let taken = 0;
    let valid = 0;
    for (const raw of bodies()) {
      const schema = SearchRequestSchema.safeParse(raw);
      const plain = plainSearchRequest(raw);
      const keys = typeof raw === 'object' && raw !== null ? Object.keys(raw) : ['not an object'];
      const usual = keys.every((key) => ['text', 'limit', 'offset', 'search_mode'].includes(key)) && Object.getPrototypeOf(raw) === Object.prototype;
      if (schema.success && usual) valid++;
      if (plain === undefined) {
        // The shortcut may only leave a usual body to the schema when the schema refuses it.
        if (usual) expect({ raw, accepted: schema.success }).toEqual({ raw, accepted: false });
        continue;
      }
      taken++;
      expect(schema.success, JSON.stringify(raw)).toBe(true);
      expect(plain).toStrictEqual(schema.data);
      expect(Object.keys(plain)).toEqual(Object.keys(schema.data!));
      expect(Object.is(plain.limit, schema.data!.limit) && Object.is(plain.offset, schema.data!.offset)).toBe(true);
    }
    expect(valid).toBeGreaterThan(100);
    expect(taken).toBe(valid);
  });
});
