import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { SignatureError } from '../errors/signature-error.js';
import type { KeyRing } from './key-ring.js';
import type { NonceStore } from './nonce-store.js';
import { randomNonce } from './random-nonce.js';
import { AGENT_NAME_PATTERN, KEY_ID_PATTERN, type SigningKey } from './signing-key.js';

/** The headers of a signed agent-to-agent request (lower case, as HTTP/2 and `Headers` give them). */
export const SIGNATURE_HEADERS = {
  agent: 'x-framework-agent',
  keyId: 'x-framework-key-id',
  timestamp: 'x-framework-timestamp',
  nonce: 'x-framework-nonce',
  signature: 'x-framework-signature',
} as const;

/** How far a request's timestamp may be from the receiver's clock, either way. */
export const MAX_CLOCK_SKEW_SECONDS = 300;

/** First line of the canonical string; names the scheme version. */
export const SIGNATURE_SCHEME = 'FW1-HMAC-SHA256';

const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
const TIMESTAMP_PATTERN = /^(0|[1-9][0-9]{0,14})$/;
/** HMAC-SHA256 (32 bytes) as base64url without padding. */
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface CanonicalRequestFields {
  method: string;
  /** Path plus query string exactly as sent, e.g. `/a2a/tasks?x=1`. */
  path: string;
  /** Unix seconds as a decimal integer string. */
  timestamp: string;
  nonce: string;
  /** The calling agent's name. */
  source: string;
  /** The receiving agent's name. */
  target: string;
  /** Lower-case hex SHA-256 of the exact body bytes. */
  bodySha256: string;
}

/**
 * The string that is signed: the scheme name, upper-case method, path with
 * query, timestamp, nonce, source, target and body hash, joined by `\n`.
 * Throws `TypeError` when a field holds a line break (it would make two
 * requests sign alike).
 *
 * @example
 * canonicalRequest({ method: 'post', path: '/a2a', timestamp: '1700000000', nonce, source: 'planner', target: 'orchestrator', bodySha256 });
 * // 'FW1-HMAC-SHA256\nPOST\n/a2a\n1700000000\n…'
 */
export function canonicalRequest(f: CanonicalRequestFields): string {
  const lines = [SIGNATURE_SCHEME, f.method.toUpperCase(), f.path, f.timestamp, f.nonce, f.source, f.target, f.bodySha256];
  if (lines.some((line) => /[\r\n]/.test(line))) throw new TypeError('A signed request field must not contain a line break.');
  return lines.join('\n');
}

export interface SignRequestOptions {
  method: string;
  /** Path plus query string exactly as it will be sent. */
  path: string;
  /** The exact body bytes that will be sent (a string is taken as UTF-8). */
  body: string | Uint8Array;
  /** The calling agent's name; must be the key's agent. */
  source: string;
  /** The receiving agent's name. */
  target: string;
  key: SigningKey;
  /** Clock in milliseconds; default `Date.now()`. */
  now?: number;
  /** Default: 16 random bytes, base64url. */
  nonce?: string;
}

/**
 * The five signature headers for a request from `source` to `target`.
 * Throws `TypeError` when `source` is not the key's agent or the nonce is malformed.
 *
 * @example
 * const key = ring.signingKeyFor('planner');
 * const headers = signRequest({ method: 'POST', path: '/a2a', body, source: 'planner', target: 'orchestrator', key });
 * await fetch(`${url}/a2a`, { method: 'POST', body, headers: { ...headers, 'content-type': 'application/json' } });
 */
export function signRequest(o: SignRequestOptions): Record<string, string> {
  if (o.source !== o.key.agent) {
    throw new TypeError(`The key "${o.key.id}" belongs to the agent "${o.key.agent}" and cannot sign for "${o.source}".`);
  }
  const nonce = o.nonce ?? randomNonce();
  if (!NONCE_PATTERN.test(nonce)) throw new TypeError('A nonce must be 16-128 base64url characters.');
  const timestamp = String(Math.floor((o.now ?? Date.now()) / 1000));
  const canonical = canonicalRequest({
    method: o.method,
    path: o.path,
    timestamp,
    nonce,
    source: o.source,
    target: o.target,
    bodySha256: sha256Hex(o.body),
  });
  return {
    [SIGNATURE_HEADERS.agent]: o.source,
    [SIGNATURE_HEADERS.keyId]: o.key.id,
    [SIGNATURE_HEADERS.timestamp]: timestamp,
    [SIGNATURE_HEADERS.nonce]: nonce,
    [SIGNATURE_HEADERS.signature]: hmac(o.key, canonical),
  };
}

/** Who sent a request whose signature verified. */
export interface VerifiedCaller {
  agent: string;
  keyId: string;
}

export interface VerifyRequestOptions {
  method: string;
  /** Path plus query string exactly as received. */
  path: string;
  /** The exact body bytes received. */
  body: string | Uint8Array;
  /** A request header by lower-case name (case-insensitive lookups are the caller's, as `Headers.get` does). */
  header: (name: string) => string | undefined;
  /** The receiving agent's own name: the target the caller must have signed. */
  self: string;
  keys: KeyRing;
  nonces: NonceStore;
  /** Clock in milliseconds; default `Date.now()`. */
  now?: number;
  /** Default `MAX_CLOCK_SKEW_SECONDS`. */
  maxSkewSeconds?: number;
}

/**
 * Checks a signed request and returns the verified caller. Throws
 * `SignatureError` with `failure` set, checking in order: `unsigned`,
 * `malformed`, `stale_timestamp`, `unknown_key`, `agent_mismatch`,
 * `bad_signature`, then `replayed_nonce` (the nonce is claimed, for twice the
 * allowed skew, only once the signature verified, so forged requests cannot
 * burn nonces). Nonce-store failures reject as they are
 * (`StoreUnavailableError`): the request is refused, not let through.
 *
 * @example
 * const caller = await verifyRequest({
 *   method: c.req.method, path: url.pathname + url.search, body: rawBody,
 *   header: (name) => c.req.header(name), self: 'orchestrator', keys: ring, nonces,
 * });
 * caller.agent; // 'planner'
 */
export async function verifyRequest(o: VerifyRequestOptions): Promise<VerifiedCaller> {
  const maxSkewSeconds = o.maxSkewSeconds ?? MAX_CLOCK_SKEW_SECONDS;
  const values = {
    agent: o.header(SIGNATURE_HEADERS.agent),
    keyId: o.header(SIGNATURE_HEADERS.keyId),
    timestamp: o.header(SIGNATURE_HEADERS.timestamp),
    nonce: o.header(SIGNATURE_HEADERS.nonce),
    signature: o.header(SIGNATURE_HEADERS.signature),
  };
  const { agent, keyId, timestamp, nonce, signature } = values;
  if (Object.values(values).every((value) => value === undefined)) {
    throw fail('unsigned', `This agent accepts only signed agent-to-agent requests; sign the request with signRequest (the ${allHeaders()} headers).`);
  }
  if (agent === undefined || keyId === undefined || timestamp === undefined || nonce === undefined || signature === undefined) {
    const missing = Object.entries(values)
      .filter(([, value]) => value === undefined)
      .map(([name]) => headerOf(name));
    throw fail('malformed', `The request is missing the signature header(s) ${missing.join(', ')}; send all of ${allHeaders()}.`);
  }
  const bad = [
    !AGENT_NAME_PATTERN.test(agent) && `${SIGNATURE_HEADERS.agent} must be a lower-case agent name`,
    !KEY_ID_PATTERN.test(keyId) && `${SIGNATURE_HEADERS.keyId} must be 1-64 of letters, digits, ".", "_" or "-"`,
    !TIMESTAMP_PATTERN.test(timestamp) && `${SIGNATURE_HEADERS.timestamp} must be Unix seconds as a decimal integer`,
    !NONCE_PATTERN.test(nonce) && `${SIGNATURE_HEADERS.nonce} must be 16-128 base64url characters`,
    !SIGNATURE_PATTERN.test(signature) && `${SIGNATURE_HEADERS.signature} must be an HMAC-SHA256 in base64url without padding`,
  ].filter((problem): problem is string => problem !== false);
  if (bad.length > 0) throw fail('malformed', `The request signature headers are malformed: ${bad.join('; ')}.`);

  const nowMs = o.now ?? Date.now();
  const offsetSeconds = Number(timestamp) - nowMs / 1000;
  if (Math.abs(offsetSeconds) > maxSkewSeconds) {
    const direction = offsetSeconds < 0 ? 'behind' : 'ahead of';
    throw fail(
      'stale_timestamp',
      `The request timestamp is ${Math.round(Math.abs(offsetSeconds))} s ${direction} this agent's clock; at most ±${maxSkewSeconds} s is allowed. ` +
        'The clocks of both agents must agree (use NTP); sign each request when it is sent.',
    );
  }
  const key = o.keys.get(keyId);
  if (key === undefined) {
    throw fail('unknown_key', `The key id "${keyId}" is not in this agent's key ring; add the caller's key to A2A_KEYS or A2A_KEYS_FILE.`);
  }
  if (key.agent !== agent) {
    throw fail(
      'agent_mismatch',
      `The key "${keyId}" belongs to the agent "${key.agent}", but the request claims to come from "${agent}"; an agent must sign with its own key.`,
    );
  }
  const canonical = canonicalRequest({
    method: o.method,
    path: o.path,
    timestamp,
    nonce,
    source: agent,
    target: o.self,
    bodySha256: sha256Hex(o.body),
  });
  const expected = Buffer.from(hmac(key, canonical), 'latin1');
  const given = Buffer.from(signature, 'latin1');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw fail(
      'bad_signature',
      `The signature does not match the request; sign the exact method, path with query, body bytes and the target agent "${o.self}" with the secret of key "${keyId}".`,
    );
  }
  if (!(await o.nonces.claim(keyId, nonce, 2 * maxSkewSeconds))) {
    throw fail('replayed_nonce', 'The nonce of this request was already used; sign every request (and every retry) afresh with a new nonce.');
  }
  return { agent, keyId };
}

function fail(failure: SignatureError['failure'], message: string): SignatureError {
  return new SignatureError({ failure, message });
}

function headerOf(name: string): string {
  return SIGNATURE_HEADERS[name as keyof typeof SIGNATURE_HEADERS];
}

function allHeaders(): string {
  return Object.values(SIGNATURE_HEADERS).join(', ');
}

function sha256Hex(body: string | Uint8Array): string {
  // One-shot: about a third of createHash().update().digest() for a request-sized body.
  return hash('sha256', body, 'hex');
}

function hmac(key: SigningKey, canonical: string): string {
  return createHmac('sha256', key.secret).update(canonical, 'utf8').digest('base64url');
}
