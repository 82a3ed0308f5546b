import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';

/**
 * A shared HMAC secret bound to ONE agent name. The binding is what protects
 * the receiver: a caller holding the planner's key cannot claim to be the
 * orchestrator, because the receiver checks the key's agent against the
 * `x-framework-agent` header.
 *
 * Keys made by `createSigningKey` (and every key held by a `KeyRing`) keep the
 * secret non-enumerable and leave it out of `toJSON`, `toString` and
 * `util.inspect`.
 */
export interface SigningKey {
  readonly id: string;
  readonly agent: string;
  readonly secret: Buffer;
}

/** Key ids: 1–64 of letters, digits, `.`, `_`, `-`. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** Agent names: lower case, starting with a letter or digit. */
export const AGENT_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;
/** The shortest secret accepted, in bytes (the HMAC-SHA256 block of security). */
export const MIN_SECRET_BYTES = 32;

const SECRET_TEXT = /^[A-Za-z0-9+/_-]+={0,2}$/;

/**
 * A `SigningKey` whose secret never shows in logs: the secret is a copy held
 * in a non-enumerable property, and `toJSON`/`toString`/`util.inspect` show
 * only the id and the agent. Throws `TypeError` for a bad id, agent or secret.
 *
 * @example
 * const key = createSigningKey({ id: 'planner-1', agent: 'planner', secret: decodeSecret(generateSecret()) });
 * JSON.stringify(key); // {"id":"planner-1","agent":"planner"}
 */
export function createSigningKey(options: { id: string; agent: string; secret: Uint8Array }): SigningKey {
  const { id, agent, secret } = options;
  if (typeof id !== 'string' || !KEY_ID_PATTERN.test(id)) {
    throw new TypeError('A signing key id must be 1-64 of letters, digits, ".", "_" or "-".');
  }
  if (typeof agent !== 'string' || !AGENT_NAME_PATTERN.test(agent)) {
    throw new TypeError(`The agent of signing key "${id}" must be a lower-case agent name.`);
  }
  if (!(secret instanceof Uint8Array) || secret.byteLength < MIN_SECRET_BYTES) {
    throw new TypeError(`The secret of signing key "${id}" must be at least ${MIN_SECRET_BYTES} bytes.`);
  }
  const key = { id, agent };
  const describe = (): string => `SigningKey { id: '${id}', agent: '${agent}' }`;
  Object.defineProperties(key, {
    secret: { value: Buffer.from(secret), enumerable: false },
    toJSON: { value: () => ({ id, agent }), enumerable: false },
    toString: { value: describe, enumerable: false },
    [inspect.custom]: { value: describe, enumerable: false },
  });
  return Object.freeze(key) as SigningKey;
}

/**
 * The bytes of a secret written as base64 or base64url (padding optional), or
 * `undefined` when the text is neither. Node's decoder skips bad characters
 * silently, so the alphabet is checked first.
 *
 * @example
 * decodeSecret(generateSecret())?.length; // 32
 */
export function decodeSecret(text: string): Buffer | undefined {
  if (!SECRET_TEXT.test(text)) return undefined;
  return Buffer.from(text, 'base64');
}

/**
 * A fresh secret for a key file: 32 random bytes, base64url without padding.
 *
 * @example
 * const secret = generateSecret(); // e.g. 'q0Xl…' (43 characters)
 */
export function generateSecret(): string {
  return randomBytes(MIN_SECRET_BYTES).toString('base64url');
}
