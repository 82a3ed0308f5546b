/**
 * Keys for the io.jwt builtins: PEM certificates and public keys, JWKs and
 * JWK sets (as OPA reads them with Go's x509 and lestrrat-go/jwx), and the
 * signature algorithms over node:crypto.
 */
import { constants, createHmac, createPrivateKey, createPublicKey, type KeyObject, sign, timingSafeEqual, verify, X509Certificate } from 'node:crypto';

/** The JWS algorithms OPA knows. */
export const JWT_ALGORITHMS = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'HS256', 'HS384', 'HS512', 'EdDSA']);

/** A key to check signatures with; `alg`/`kid` come from a JWK. */
export interface VerificationKey {
  key: KeyObject | Buffer;
  /** A JWK with private parameters (Go hands the private key to the verifier). */
  isPrivate: boolean;
  alg: string;
  kid: string;
}

export class KeyError extends Error {}

interface PemBlock {
  type: string;
  der: Buffer;
  rest: string;
}

/** The first PEM block of `text` and what follows its END line (Go's pem.Decode), or undefined. */
function decodePem(text: string): PemBlock | undefined {
  const m = /(?:^|\n)-----BEGIN ([^\n-]*)-----[ \t]*\r?\n([\s\S]*?)(?:^|\n)-----END \1-----[ \t]*(?:\r?\n|$)/m.exec(text);
  if (m === null) return undefined;
  const body = (m[2] as string)
    .split(/\r?\n/)
    .filter((line) => !line.includes(':'))
    .join('');
  if (!/^[A-Za-z0-9+/=\s]*$/.test(body)) return undefined;
  return { type: m[1] as string, der: Buffer.from(body, 'base64'), rest: text.slice(m.index + m[0].length) };
}

function jwkToKey(jwk: Record<string, unknown>): { key: KeyObject | Buffer; isPrivate: boolean } {
  const kty = jwk['kty'];
  if (kty === 'oct') {
    if (typeof jwk['k'] !== 'string') throw new KeyError('failed to parse a JWK key (set): required field k is missing');
    return { key: Buffer.from(jwk['k'], 'base64url'), isPrivate: false };
  }
  if (kty !== 'RSA' && kty !== 'EC' && kty !== 'OKP') {
    throw new KeyError(`failed to parse a JWK key (set): invalid key type ${JSON.stringify(kty ?? '')}`);
  }
  try {
    if (jwk['d'] !== undefined) return { key: createPrivateKey({ key: jwk as never, format: 'jwk' }), isPrivate: true };
    return { key: createPublicKey({ key: jwk as never, format: 'jwk' }), isPrivate: false };
  } catch (e) {
    throw new KeyError(`failed to parse a JWK key (set): ${(e as Error).message}`);
  }
}

/** JWK objects of a key or a key set. */
function jwkObjects(text: string): Array<Record<string, unknown>> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new KeyError(`failed to parse a JWK key (set): ${(e as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new KeyError('failed to parse a JWK key (set): invalid JWK');
  const keys = (doc as Record<string, unknown>)['keys'];
  if (Array.isArray(keys)) return keys.filter((k): k is Record<string, unknown> => typeof k === 'object' && k !== null);
  return [doc as Record<string, unknown>];
}

/** Public keys from a PEM certificate, a PEM public key, a JWK or a JWK set (OPA's getKeysFromCertOrJWK). */
export function keysFromCertOrJwk(text: string): VerificationKey[] {
  const block = decodePem(text);
  if (block !== undefined) {
    if (block.rest.length > 0) throw new KeyError('extra data after a PEM certificate block');
    if (block.type === 'CERTIFICATE') {
      try {
        return [{ key: new X509Certificate(block.der).publicKey, isPrivate: false, alg: '', kid: '' }];
      } catch (e) {
        throw new KeyError(`failed to parse a PEM certificate: ${(e as Error).message}`);
      }
    }
    if (block.type === 'PUBLIC KEY') {
      try {
        return [{ key: createPublicKey({ key: block.der, format: 'der', type: 'spki' }), isPrivate: false, alg: '', kid: '' }];
      } catch (e) {
        throw new KeyError(`failed to parse a PEM public key: ${(e as Error).message}`);
      }
    }
    throw new KeyError('failed to extract a Key from the PEM certificate');
  }
  const out: VerificationKey[] = [];
  for (const jwk of jwkObjects(text)) {
    const { key, isPrivate } = jwkToKey(jwk);
    const alg = typeof jwk['alg'] === 'string' ? jwk['alg'] : '';
    if (alg !== '' && !JWT_ALGORITHMS.has(alg)) continue;
    out.push({ key, isPrivate, alg, kid: typeof jwk['kid'] === 'string' ? jwk['kid'] : '' });
  }
  return out;
}

/** The first key of a JWK (set), to sign with. */
export function signingKeyFromJwk(text: string): KeyObject | Buffer {
  const jwks = jwkObjects(text);
  const first = jwks[0];
  if (first === undefined) throw new KeyError('no keys found in JWK set');
  return jwkToKey(first).key;
}

const HASHES: Record<string, string> = { '256': 'sha256', '384': 'sha384', '512': 'sha512' };

function hashOf(alg: string): string {
  return HASHES[alg.slice(2)] ?? 'sha256';
}

/** DER ECDSA signature from r||s split in halves (as Go's verifier splits it). */
function ecdsaDer(sig: Buffer): Buffer {
  const n = Math.floor(sig.length / 2);
  const int = (b: Buffer): Buffer => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    let v = b.subarray(i);
    if (v.length === 0) v = Buffer.from([0]);
    if ((v[0] as number) & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
    return Buffer.concat([Buffer.from([0x02]), derLength(v.length), v]);
  };
  const body = Buffer.concat([int(sig.subarray(0, n)), int(sig.subarray(n))]);
  return Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
}

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let x = n; x > 0; x >>= 8) bytes.unshift(x & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function keyType(key: KeyObject | Buffer): string {
  return Buffer.isBuffer(key) ? 'oct' : (key.asymmetricKeyType ?? key.type);
}

/**
 * Checks a JWS signature over `data` with `key` for `alg`. Returns false for
 * a wrong signature, a key of the wrong type, or an unknown algorithm.
 */
export function verifySignature(alg: string, key: KeyObject | Buffer, data: Buffer, sig: Buffer): boolean {
  try {
    const family = alg.slice(0, 2);
    const kt = keyType(key);
    if (alg === 'EdDSA') return kt === 'ed25519' && verify(null, data, key as KeyObject, sig);
    if (!JWT_ALGORITHMS.has(alg)) return false;
    const hash = hashOf(alg);
    switch (family) {
      case 'HS': {
        if (!Buffer.isBuffer(key)) return false;
        const mac = createHmac(hash, key).update(data).digest();
        return mac.length === sig.length && timingSafeEqual(mac, sig);
      }
      case 'RS':
        return (kt === 'rsa' || kt === 'rsa-pss') && verify(hash, data, { key: key as KeyObject, padding: constants.RSA_PKCS1_PADDING }, sig);
      case 'PS':
        return (
          (kt === 'rsa' || kt === 'rsa-pss') &&
          verify(hash, data, { key: key as KeyObject, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, sig)
        );
      case 'ES':
        return kt === 'ec' && verify(hash, data, { key: key as KeyObject, dsaEncoding: 'der' }, ecdsaDer(sig));
      default:
        return false;
    }
  } catch {
    return false;
  }
}

/** Signs `data` with `key` for `alg` (jwx's jwsbb.Sign). */
export function signJws(alg: string, key: KeyObject | Buffer, data: Buffer): Buffer {
  const kt = keyType(key);
  const family = alg.slice(0, 2);
  const hash = hashOf(alg);
  const wrongKey = (): KeyError => new KeyError(`failed to sign payload: invalid key type ${kt} for algorithm ${alg}`);
  if (alg === 'EdDSA') {
    if (kt !== 'ed25519' || Buffer.isBuffer(key) || key.type !== 'private') throw wrongKey();
    return sign(null, data, key);
  }
  if (family === 'HS') {
    if (!Buffer.isBuffer(key)) throw wrongKey();
    return createHmac(hash, key).update(data).digest();
  }
  if (Buffer.isBuffer(key) || key.type !== 'private') throw wrongKey();
  switch (family) {
    case 'RS':
      if (kt !== 'rsa') throw wrongKey();
      return sign(hash, data, { key, padding: constants.RSA_PKCS1_PADDING });
    case 'PS':
      if (kt !== 'rsa' && kt !== 'rsa-pss') throw wrongKey();
      return sign(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST });
    case 'ES':
      if (kt !== 'ec') throw wrongKey();
      return sign(hash, data, { key, dsaEncoding: 'ieee-p1363' });
    default:
      throw new KeyError(`unknown JWS algorithm: ${alg}`);
  }
}

/** The key behind `k` as the verify_* builtins see it: private JWKs are the wrong type there (as in Go). */
export function publicOnly(k: VerificationKey): KeyObject | Buffer | undefined {
  return k.isPrivate ? undefined : k.key;
}

/** A public key for a verifier that accepts private JWKs by deriving their public half. */
export function publicOf(k: VerificationKey): KeyObject | Buffer {
  if (!k.isPrivate || Buffer.isBuffer(k.key)) return k.key;
  return createPublicKey(k.key);
}
