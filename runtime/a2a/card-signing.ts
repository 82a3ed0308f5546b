import { createPrivateKey, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { AgentCard, canonicalizeAgentCard, generateAgentCardSignature } from '@a2a-js/sdk';
import { AgentCardError } from './errors/agent-card-error.js';
import { callFailureDetail, wholeText } from './http-fetch.js';
import { jwsAlgorithmFor } from './signing/jws-algorithm.js';

/** The JWS algorithm for a card-signing key; a key of another type is refused naming the types that work. */
function algorithmFor(key: KeyObject): string {
  const alg = jwsAlgorithmFor(key);
  if (alg !== undefined) return alg;
  throw new AgentCardError({
    file: 'key',
    message: `Cannot sign agent cards with a ${key.asymmetricKeyType ?? 'unknown'} key: use EC P-256/384/521, Ed25519 or RSA.`,
  });
}

/** Parses an A2A agent card document (the 1.0 JSON form, as served at the well-known path); `where` names it in errors. */
export function agentCardFromJson(json: unknown, where: string): AgentCard {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new AgentCardError({ file: where, message: `${where} is not a JSON object.` });
  const card = AgentCard.fromJSON(json);
  if (!card.name || card.supportedInterfaces.length === 0)
    throw new AgentCardError({ file: where, message: `${where} is not an A2A 1.0 agent card (it needs "name" and "supportedInterfaces").` });
  return card;
}

/**
 * Signs `card` (A2A spec "Agent Card signing": a detached JWS over the
 * card's RFC 8785 canonical JSON without `signatures`, appended to
 * `signatures`) with the SDK's signer. `keyId` is the JWS `kid`, `jku` where
 * verifiers fetch the key set. The private key is a PEM (EC, Ed25519 or RSA).
 *
 * @example
 * const signed = await signAgentCard(card, { privateKeyPem: await readFile('card-key.pem', 'utf8'), keyId: 'planner-2026' });
 */
export async function signAgentCard(card: AgentCard, options: { privateKeyPem: string; keyId: string; jku?: string }): Promise<AgentCard> {
  let key: KeyObject;
  try {
    key = createPrivateKey(options.privateKeyPem);
  } catch (cause) {
    throw new AgentCardError({ file: 'key', message: `The signing key is not a PEM private key: ${(cause as Error).message}`, cause });
  }
  const header = { alg: algorithmFor(key), kid: options.keyId, typ: 'JOSE', ...(options.jku ? { jku: options.jku } : {}) };
  return generateAgentCardSignature(key, header)(card);
}

/**
 * Verifies that at least one of `card.signatures` is a valid JWS by
 * `publicKeyPem` over the card as it is now: any change to a signed field
 * fails. Resolves to the `kid`s of the signatures that verified; throws
 * `AgentCardError` (`invalid_agent_card`) when the card has no signature or
 * none verifies.
 */
export async function verifyAgentCard(card: AgentCard, options: { publicKeyPem: string }): Promise<{ keyIds: string[] }> {
  let key: KeyObject;
  try {
    key = createPublicKey(options.publicKeyPem);
  } catch (cause) {
    throw new AgentCardError({ file: 'key', message: `The verification key is not a PEM public key: ${(cause as Error).message}`, cause });
  }
  if (card.signatures.length === 0) throw new AgentCardError({ file: card.name, field: 'signatures', message: `Agent card "${card.name}" is not signed.` });
  // The JWS signing input over the canonical card (the SDK's canonicalization), checked with node:crypto: the SDK's
  // verifier logs every failed entry on the console, which would corrupt a command's JSON output.
  const payload = Buffer.from(canonicalizeAgentCard(card), 'utf8').toString('base64url');
  const keyIds: string[] = [];
  for (const entry of card.signatures) {
    let header: { alg?: unknown; kid?: unknown };
    try {
      header = JSON.parse(Buffer.from(entry.protected, 'base64url').toString('utf8')) as { alg?: unknown; kid?: unknown };
    } catch {
      continue;
    }
    const hash = JWS_HASHES[String(header.alg)];
    if (hash === undefined) continue;
    let ok = false;
    try {
      ok = verify(hash, Buffer.from(`${entry.protected}.${payload}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(entry.signature, 'base64url'));
    } catch {
      // A key of another type than the signature's algorithm: this entry does not verify.
    }
    if (ok) keyIds.push(String(header.kid ?? ''));
  }
  if (keyIds.length === 0)
    throw new AgentCardError({
      file: card.name,
      field: 'signatures',
      message: `Agent card "${card.name}": no signature verifies with this key over the card as it is.`,
    });
  return { keyIds };
}

/** The hash of each JWS algorithm we verify (null: EdDSA hashes inside). */
const JWS_HASHES: Readonly<Record<string, string | null>> = { ES256: 'sha256', ES384: 'sha384', ES512: 'sha512', RS256: 'sha256', EdDSA: null };

/** The largest agent card read from a URL: a larger answer is refused as it arrives, not held. */
const MAX_AGENT_CARD_BYTES = 4 * 1024 * 1024;

/** Reads a card document from a file or from an agent's well-known URL (`http(s)://…`); a URL's answer is bounded by 4 MiB and 10 s. */
export async function readAgentCardDocument(source: string): Promise<AgentCard> {
  let text: string;
  if (/^https?:\/\//.test(source)) {
    const url = source.includes('/.well-known/') ? source : new URL('/.well-known/agent-card.json', source).toString();
    try {
      const response = await fetch(url, { headers: { 'A2A-Version': '1.0' }, signal: AbortSignal.timeout(10_000) });
      if (!response.ok) {
        await response.body?.cancel();
        throw new AgentCardError({ file: url, message: `GET ${url} answered ${response.status}.` });
      }
      text = await wholeText(response, MAX_AGENT_CARD_BYTES);
    } catch (cause) {
      if (cause instanceof AgentCardError) throw cause;
      throw new AgentCardError({ file: url, message: `GET ${url} failed: ${callFailureDetail(cause)}.`, cause });
    }
  } else {
    try {
      text = await readFile(source, 'utf8');
    } catch (cause) {
      throw new AgentCardError({ file: source, message: `Agent card ${source} cannot be read: ${(cause as Error).message}`, cause });
    }
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new AgentCardError({ file: source, message: `Agent card ${source} is not valid JSON.`, cause });
  }
  return agentCardFromJson(json, source);
}
