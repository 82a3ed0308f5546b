import { describe, expect, it } from 'vitest';
import { uuidBuiltins } from '../../../runtime/policy/builtins/uuid.js';
import { RegoObject, type Value } from '../../../runtime/policy/value.js';
import { toJS } from '../../../runtime/policy/value-json.js';
import { call, callError, fakeContext } from './builtin-test-kit.js';

const parse = (s: Value): unknown => {
  const v = call(uuidBuiltins, 'uuid.parse', [s]);
  return v === undefined ? undefined : toJS(v);
};
const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('uuid.rfc4122', () => {
  it('returns a random version 4 UUID, the same for the same key within a query', () => {
    const ctx = fakeContext();
    const a = call(uuidBuiltins, 'uuid.rfc4122', ['key'], ctx);
    expect(a).toMatch(V4);
    expect(call(uuidBuiltins, 'uuid.rfc4122', ['key'], ctx)).toBe(a);
    expect(call(uuidBuiltins, 'uuid.rfc4122', ['other'], ctx)).not.toBe(a);
    expect(call(uuidBuiltins, 'uuid.rfc4122', ['key'], fakeContext())).not.toBe(a);
    expect(uuidBuiltins.find((d) => d.name === 'uuid.rfc4122')?.nondeterministic).toBe(true);
  });

  it('keys any value by its content', () => {
    const ctx = fakeContext();
    const a = call(uuidBuiltins, 'uuid.rfc4122', [RegoObject.fromEntries([['a', 1]])], ctx);
    expect(call(uuidBuiltins, 'uuid.rfc4122', [RegoObject.fromEntries([['a', 1]])], ctx)).toBe(a);
    expect(call(uuidBuiltins, 'uuid.rfc4122', [1], ctx)).not.toBe(call(uuidBuiltins, 'uuid.rfc4122', ['1'], ctx));
  });
});

describe('uuid.parse', () => {
  it('decodes version 1 and 2 fields', () => {
    const v1 = {
      version: 1,
      variant: 'RFC4122',
      nodeid: '9f-36-19-c7-49-3f',
      macvariables: 'local:multicast',
      time: 1693481847404333000n,
      clocksequence: 13946,
    };
    expect(parse('c2fc67c2-47f2-11ee-b67a-9f3619c7493f')).toEqual(v1);
    expect(parse('urn:uuid:c2fc67c2-47f2-11ee-b67a-9f3619c7493f')).toEqual(v1);
    expect(parse('URN:UUID:C2FC67C2-47F2-11EE-B67A-9F3619C7493F')).toEqual(v1);
    const v2 = {
      version: 2,
      variant: 'RFC4122',
      nodeid: '32-50-96-b3-9f-47',
      macvariables: 'local:unicast',
      time: 1693566990121469600n,
      clocksequence: 12800,
      domain: 'Person',
      id: 1000,
    };
    expect(parse('000003e8-48b9-21ee-b200-325096b39f47')).toEqual(v2);
    expect(parse('{000003e8-48b9-21ee-b200-325096b39f47}')).toEqual(v2);
  });

  it('decodes other versions and variants', () => {
    expect(parse('6bea8ef2-d3d3-3cd1-84e0-9bab06a52ece')).toEqual({ version: 3, variant: 'RFC4122' });
    expect(parse('6bea8ef2d3d33cd184e09bab06a52ece')).toEqual({ version: 3, variant: 'RFC4122' });
    expect(parse('00000000-0000-4000-8000-000000000000')).toEqual({ version: 4, variant: 'RFC4122' });
    expect(parse('00000000-0000-5cd1-84e0-9bab06a52ece')).toEqual({ version: 5, variant: 'RFC4122' });
    expect(parse('00000000-0000-fcd1-f4e0-9bab06a52ece')).toEqual({ version: 15, variant: 'Future' });
    expect(parse('00000000-0000-4000-c000-000000000000')).toEqual({ version: 4, variant: 'Microsoft' });
    expect(parse('00000000-0000-4000-0000-000000000000')).toEqual({ version: 4, variant: 'Reserved' });
    expect(parse('000003e8-48b9-21ee-b207-305096b39f47')).toMatchObject({ domain: 'Domain7', macvariables: 'global:unicast' });
    // Like Go's parser, the characters around a 38-character UUID are not checked.
    expect(parse('x00000000-0000-4000-8000-000000000000y')).toEqual({ version: 4, variant: 'RFC4122' });
  });

  it('is undefined for strings that are not UUIDs', () => {
    for (const s of [
      '',
      'foo',
      '00000000000-123-222-222',
      'HijVnnS1-GGGG-1234-12345678',
      '00000000-0000-4000-8000-00000000000g',
      '00000000+0000-4000-8000-000000000000',
      'urn:uid:c2fc67c2-47f2-11ee-b67a-9f3619c7493f',
    ]) {
      expect(parse(s), s).toBeUndefined();
    }
  });

  it('type-checks the operand', () => {
    const e = callError(uuidBuiltins, 'uuid.parse', [1]);
    expect(e.kind).toBe('type');
    expect(e.message).toBe('operand 1 must be string but got number');
  });
});
