import { metadataTags } from '../../runtime/semantic/metadata-tags.js';
import { describe, expect, it } from 'vitest';
import { idWhere, sqlString, tagWhere } from '../../runtime/semantic/lance-filter.js';

describe('lance filters', () => {
  it('encodes metadata as key=value tags, percent-encoding = and % in keys', () => {
    expect(metadataTags({ metadata: { lang: 'en', 'a=b': 'c=d', '50%': 'x' } })).toEqual(['lang=en', 'a%3Db=c=d', '50%25=x']);
  });

  it('doubles single quotes in SQL literals', () => {
    expect(sqlString({ value: "it's" })).toBe("'it''s'");
    expect(sqlString({ value: "x' OR '1'='1" })).toBe("'x'' OR ''1''=''1'");
  });

  it('ANDs one array_has per pair, and nothing for an empty filter', () => {
    expect(tagWhere({ filter: { lang: 'en', kind: "o'k" } })).toBe("array_has(metadata_tags, 'lang=en') AND array_has(metadata_tags, 'kind=o''k')");
    expect(tagWhere({ filter: {} })).toBeUndefined();
    expect(tagWhere({ filter: undefined })).toBeUndefined();
  });

  it('selects ids with IN', () => {
    expect(idWhere({ ids: ['a', "b'c"] })).toBe("id IN ('a', 'b''c')");
  });
});
