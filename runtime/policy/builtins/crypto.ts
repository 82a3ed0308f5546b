/**
 * Hashing builtins: crypto.md5, crypto.sha1, crypto.sha256 and
 * crypto.hmac.{md5,sha1,sha256,sha512,equal}. Strings are hashed as their Go bytes (UTF-8, a raw byte as itself);
 * digests are lower-case hex, as in OPA. (OPA has no crypto.sha512; the
 * x509 and JWT builtins are not implemented here.)
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { asString, type BuiltinDefinition } from './registry.js';
import { goBytes } from '../go-bytes.js';

function digest(name: string, algorithm: string): BuiltinDefinition {
  return {
    name,
    args: ['string'],
    result: 'string',
    impl: ([x]) =>
      createHash(algorithm)
        .update(goBytes(asString(x, 1)))
        .digest('hex'),
  };
}

function hmac(name: string, algorithm: string): BuiltinDefinition {
  return {
    name,
    args: ['string', 'string'],
    result: 'string',
    impl: ([message, key]) => {
      const m = asString(message, 1);
      const k = asString(key, 2);
      return createHmac(algorithm, goBytes(k)).update(goBytes(m)).digest('hex');
    },
  };
}

/** Compares two MACs in time that depends only on their lengths (Go's hmac.Equal). */
function macEqual(a: string, b: string): boolean {
  const x = goBytes(a);
  const y = goBytes(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export const cryptoBuiltins: BuiltinDefinition[] = [
  digest('crypto.md5', 'md5'),
  digest('crypto.sha1', 'sha1'),
  digest('crypto.sha256', 'sha256'),
  hmac('crypto.hmac.md5', 'md5'),
  hmac('crypto.hmac.sha1', 'sha1'),
  hmac('crypto.hmac.sha256', 'sha256'),
  hmac('crypto.hmac.sha512', 'sha512'),
  {
    name: 'crypto.hmac.equal',
    args: ['string', 'string'],
    result: 'boolean',
    impl: ([a, b]) => macEqual(asString(a, 1), asString(b, 2)),
  },
];
