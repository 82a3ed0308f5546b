import { createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { calculateJwkThumbprint, exportJWK, importJWK, type JWK } from 'jose';
import { z } from 'zod';
import { ConfigError } from '../../core/errors/config-error.js';
import { jwsAlgorithmFor } from '../signing/jws-algorithm.js';

const VARIABLE = 'A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE';
const KID = /^[A-Za-z0-9._:-]{1,128}$/;
/** JWK members that only a private or symmetric key has: a published key set must not hold them. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]+?-----END \1-----/g;

const JwkSetSchema = z.object({ keys: z.array(z.record(z.string(), z.unknown())).min(1, 'holds no key') });

/** The JWS algorithm a public JWK verifies: its own `alg`, else the one we would sign with for its key type. */
function algorithmOf(jwk: Record<string, unknown>): string | undefined {
  if (typeof jwk.alg === 'string') return jwk.alg;
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  if (jwk.kty === 'RSA') return 'RS256';
  if (jwk.kty === 'EC') return ({ 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' } as Record<string, string>)[String(jwk.crv)];
  return undefined;
}

async function fromJwkSet(text: string, refuse: (message: string) => never): Promise<JWK[]> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return refuse(`is not JSON (${(error as Error).message}); give a JWKS ({"keys": [...]}) or PEM public keys`);
  }
  const parsed = JwkSetSchema.safeParse(json);
  if (!parsed.success) return refuse(`is not a JWKS: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'keys'} ${i.message}`).join('; ')}`);
  const keys: JWK[] = [];
  for (const [index, jwk] of parsed.data.keys.entries()) {
    const at = `keys[${index}]`;
    const secret = PRIVATE_MEMBERS.filter((member) => member in jwk);
    if (secret.length > 0) return refuse(`${at} has private members (${secret.join(', ')}); publish public keys only`);
    if (!['EC', 'OKP', 'RSA'].includes(String(jwk.kty))) return refuse(`${at} has kty ${String(jwk.kty)}; give EC, OKP (Ed25519) or RSA public keys`);
    const alg = algorithmOf(jwk);
    if (alg === undefined) return refuse(`${at} (${String(jwk.kty)} ${String(jwk.crv)}) has no algorithm we know`);
    try {
      await importJWK(jwk as JWK, alg);
    } catch (error) {
      return refuse(`${at} is not a usable ${alg} public key (${(error as Error).message})`);
    }
    const kid = typeof jwk.kid === 'string' ? jwk.kid : await calculateJwkThumbprint(jwk as JWK);
    keys.push({ ...(jwk as JWK), kid, alg, use: 'sig' });
  }
  return keys;
}

async function fromPem(text: string, refuse: (message: string) => never): Promise<JWK[]> {
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) return refuse('holds no PEM key and is not a JWKS');
  const keys: JWK[] = [];
  for (const [index, block] of blocks.entries()) {
    let key;
    try {
      key = createPublicKey(block);
    } catch (error) {
      return refuse(`PEM block ${index + 1} is not a key (${(error as Error).message})`);
    }
    const alg = jwsAlgorithmFor(key);
    if (alg === undefined || key.asymmetricKeyType === 'rsa-pss') return refuse(`PEM block ${index + 1} holds a ${key.asymmetricKeyType ?? 'unknown'} key`);
    const jwk = await exportJWK(key);
    keys.push({ ...jwk, kid: await calculateJwkThumbprint(jwk), alg, use: 'sig' });
  }
  return keys;
}

/**
 * Retired webhook-signing public keys, served in the JWKS beside the current
 * key for a grace period so receivers that cache the key set (or that get
 * POSTs from replicas not yet restarted) keep verifying across a rotation.
 * `text` is a JWKS (`{"keys": [...]}`, such as the agent's own
 * `/.well-known/jwks.json` saved before the rotation: kids kept) or PEM keys,
 * public or private (only the public half is published; the kid is the RFC
 * 7638 thumbprint, the default of A2A_PUSH_SIGNING_KEY_ID). Fails closed: a
 * private member in a JWKS, an unknown key type, a kid shared by two keys or
 * equal to the current key's, or an empty file is a `ConfigError`.
 */
export async function parsePreviousPushKeys(options: { text: string; currentKeyId: string }): Promise<JWK[]> {
  const refuse = (message: string): never => {
    throw new ConfigError({ issues: [{ variable: VARIABLE, message }], context: 'Cannot publish previous push signing keys' });
  };
  const text = options.text.trim();
  const keys = text.startsWith('{') ? await fromJwkSet(text, refuse) : await fromPem(text, refuse);
  const seen = new Set<string>([options.currentKeyId]);
  for (const key of keys) {
    if (!KID.test(key.kid!)) refuse(`kid "${key.kid}" must be 1-128 characters of A-Z a-z 0-9 . _ : -`);
    if (key.kid === options.currentKeyId) refuse(`kid "${key.kid}" is the current key's (A2A_PUSH_SIGNING_KEY_ID): a receiver could not tell them apart`);
    if (seen.has(key.kid!)) refuse(`kid "${key.kid}" names two keys`);
    seen.add(key.kid!);
  }
  return keys;
}

/** Reads A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE; a missing or unreadable file is a `ConfigError` naming the variable. */
export async function loadPreviousPushKeys(options: { file: string; currentKeyId: string }): Promise<JWK[]> {
  let text: string;
  try {
    text = await readFile(options.file, 'utf8');
  } catch (error) {
    throw new ConfigError({
      issues: [{ variable: VARIABLE, message: `cannot be read (${(error as Error).message}); give a JWKS or PEM public keys` }],
      context: 'Cannot publish previous push signing keys',
    });
  }
  return parsePreviousPushKeys({ text, currentKeyId: options.currentKeyId });
}
