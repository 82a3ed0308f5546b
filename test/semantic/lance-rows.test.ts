import { describe, expect, it } from 'vitest';
import { rowMetadata } from '../../runtime/semantic/lance-rows.js';

describe('rowMetadata', () => {
  it('gives back the JSON metadata of a row when it is an object of strings, keys in order', () => {
    const metadata = rowMetadata({ row: { metadata_json: '{"lang":"en","constructor":"x","":"empty key"}' } });
    expect(Object.entries(metadata)).toEqual([
      ['lang', 'en'],
      ['constructor', 'x'],
      ['', 'empty key'],
    ]);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
  });

  it('leaves out a __proto__ key without touching the prototype, as the schema does', () => {
    const metadata = rowMetadata({ row: { metadata_json: '{"__proto__":"polluted","a":"b"}' } });
    expect(Object.entries(metadata)).toEqual([['a', 'b']]);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('falls back to the tags when the JSON is not an object of strings or not JSON', () => {
    const tags = ['lang=fr', 'kind=note'];
    for (const json of ['{"lang":1}', '["lang","en"]', 'null', '"text"', '{not json', '{"a":{"b":"c"}}'])
      expect(rowMetadata({ row: { metadata_json: json, metadata_tags: tags } })).toEqual({ lang: 'fr', kind: 'note' });
    expect(rowMetadata({ row: { metadata_json: undefined, metadata_tags: tags } })).toEqual({ lang: 'fr', kind: 'note' });
  });
});
