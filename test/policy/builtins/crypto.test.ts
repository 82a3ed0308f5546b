import { describe, expect, it } from 'vitest';
import { cryptoBuiltins } from '../../../runtime/policy/builtins/crypto.js';
import type { Value } from '../../../runtime/policy/value.js';
import { call, callError } from './builtin-test-kit.js';

const c = (name: string, ...args: Value[]): Value | undefined => call(cryptoBuiltins, name, args);
const FOX = 'The quick brown fox jumps over the lazy dog';

describe('crypto digests', () => {
  it('hashes strings as UTF-8 to lower-case hex', () => {
    expect(c('crypto.md5', '')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(c('crypto.md5', 'hello')).toBe('5d41402abc4b2a76b9719d911017c592');
    expect(c('crypto.sha1', 'hello')).toBe('aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d');
    expect(c('crypto.sha256', 'hello')).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
    expect(c('crypto.md5', 'é')).toBe(c('crypto.md5', '\u00e9'));
    expect(c('crypto.md5', 'é')).not.toBe(c('crypto.md5', '\u00c3\u00a9'));
  });

  it('has no crypto.sha512, as OPA', () => {
    expect(cryptoBuiltins.map((d) => d.name)).not.toContain('crypto.sha512');
  });

  it('type-checks the operand', () => {
    const e = callError(cryptoBuiltins, 'crypto.sha256', [1]);
    expect(e.kind).toBe('type');
    expect(e.message).toBe('operand 1 must be string but got number');
  });
});

describe('crypto.hmac', () => {
  it('computes HMACs of (message, key)', () => {
    expect(c('crypto.hmac.md5', FOX, 'key')).toBe('80070713463e7749b90c2dc24911e275');
    expect(c('crypto.hmac.sha1', FOX, 'key')).toBe('de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9');
    expect(c('crypto.hmac.sha256', FOX, 'key')).toBe('f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8');
    expect(c('crypto.hmac.sha512', FOX, 'key')).toBe(
      'b42af09057bac1e2d41708e48a902e09b5ff7f12ab428a4fe86653c73dd248fb82f948a549f7b791a5b41915ee4d1ec3935357e4e2317250d0372afa2ebeeb3a',
    );
  });

  it('type-checks both operands', () => {
    expect(callError(cryptoBuiltins, 'crypto.hmac.sha256', [FOX, 1]).message).toBe('operand 2 must be string but got number');
    expect(callError(cryptoBuiltins, 'crypto.hmac.md5', [null, 'k']).message).toBe('operand 1 must be string but got null');
  });

  it('compares MACs', () => {
    const mac = c('crypto.hmac.sha256', FOX, 'key') as string;
    expect(c('crypto.hmac.equal', mac, mac)).toBe(true);
    expect(c('crypto.hmac.equal', mac, mac.slice(0, -1) + '0')).toBe(false);
    expect(c('crypto.hmac.equal', mac, mac.slice(0, -1))).toBe(false);
    expect(c('crypto.hmac.equal', '', '')).toBe(true);
    expect(callError(cryptoBuiltins, 'crypto.hmac.equal', ['a', 1]).message).toBe('operand 2 must be string but got number');
  });
});
