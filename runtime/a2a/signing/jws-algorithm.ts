import type { KeyObject } from 'node:crypto';

/**
 * The JWS algorithm we sign with for a key: ES256/ES384/ES512 by EC curve,
 * EdDSA for Ed25519, RS256 for RSA; `undefined` for any other key (the
 * caller says which input was wrong). Shared by card and webhook signing.
 */
export function jwsAlgorithmFor(key: KeyObject): string | undefined {
  const type = key.asymmetricKeyType;
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'rsa' || type === 'rsa-pss') return 'RS256';
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
  }
  return undefined;
}
