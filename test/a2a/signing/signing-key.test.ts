import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createSigningKey, decodeSecret, generateSecret } from '../../../runtime/a2a/signing/signing-key.js';

describe('generateSecret / decodeSecret', () => {
  it('makes 32 random bytes in base64url without padding', () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
    expect(decodeSecret(a)?.length).toBe(32);
  });

  it('decodes base64 and base64url, padded or not, and refuses other text', () => {
    const bytes = Buffer.from(Array.from({ length: 40 }, (_, i) => 250 - i));
    expect(decodeSecret(bytes.toString('base64'))).toEqual(bytes);
    expect(decodeSecret(bytes.toString('base64url'))).toEqual(bytes);
    expect(decodeSecret('not base64!')).toBeUndefined();
    expect(decodeSecret('')).toBeUndefined();
  });
});

describe('createSigningKey', () => {
  const secret = Buffer.alloc(32, 7);
  const key = createSigningKey({ id: 'planner-1', agent: 'planner', secret });

  it('keeps the secret usable but out of JSON, strings, inspect and key listings', () => {
    expect(key.secret).toEqual(secret);
    const hex = secret.toString('hex');
    const b64 = secret.toString('base64');
    for (const text of [JSON.stringify(key), String(key), `${key}`, inspect(key), inspect(key, { showHidden: true, depth: 5 }), inspect({ nested: [key] })]) {
      expect(text).toContain('planner-1');
      expect(text).not.toContain(hex);
      expect(text).not.toContain(b64);
      expect(text).not.toMatch(/<Buffer|secret/);
    }
    expect(Object.keys(key)).toEqual(['id', 'agent']);
    expect({ ...key }).toEqual({ id: 'planner-1', agent: 'planner' });
  });

  it('copies the secret, so later changes to the caller buffer do not change the key', () => {
    const mutable = Buffer.alloc(32, 1);
    const copy = createSigningKey({ id: 'k', agent: 'a', secret: mutable });
    mutable.fill(2);
    expect(copy.secret).toEqual(Buffer.alloc(32, 1));
  });

  it('refuses short secrets, bad ids and non-lower-case agents', () => {
    expect(() => createSigningKey({ id: 'k', agent: 'a', secret: Buffer.alloc(31) })).toThrow(TypeError);
    expect(() => createSigningKey({ id: 'bad id', agent: 'a', secret })).toThrow(TypeError);
    expect(() => createSigningKey({ id: 'k', agent: 'Planner', secret })).toThrow(TypeError);
  });
});
