import { createHash, createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { calculateJwkThumbprint, exportJWK, SignJWT, type JWK } from 'jose';
import { ConfigError } from '../../core/errors/config-error.js';
import { jwsAlgorithmFor } from '../signing/jws-algorithm.js';

/** The header every signed webhook POST carries its JWT in (the config's own `Authorization` is kept as it is). */
export const NOTIFICATION_SIGNATURE_HEADER = 'X-A2A-Notification-Signature';

/** How long a webhook JWT is valid after it is made (each delivery attempt gets a new one). */
export const WEBHOOK_JWT_TTL_SECONDS = 300;

/** What one webhook JWT says: who sends, to which URL, for which task, over which exact body. */
export interface WebhookJwtInput {
  /** The agent's A2A URL (`iss`). */
  issuer: string;
  /** The webhook URL (`aud`), so a token taken from one receiver is worthless at another. */
  webhookUrl: string;
  taskId: string;
  /** The exact request body; its SHA-256 (hex) is the `request_body_sha256` claim. */
  body: string;
}

/**
 * Signs webhook requests with the agent's asymmetric key (the A2A push
 * notification security guidance, "JWT + JWKS"): each POST carries a JWT
 * (header `alg`, `kid`, `typ: JWT`) with `iss` (the agent's URL), `aud` (the
 * webhook URL), `iat`, `exp` (5 minutes on), a random `jti` for replay
 * caches, `taskId` and `request_body_sha256` (hex SHA-256 of the exact body
 * bytes, the claim name of the A2A samples), and the agent publishes the
 * public key as a JWKS (`jwks`) at a well-known path named in its card, so
 * a receiver verifies the sender, the body and the freshness with the
 * agent's public key only. EC P-256/384/521 → ES256/384/512, Ed25519 →
 * EdDSA, RSA → RS256.
 */
export class WebhookSigner {
  readonly keyId: string;
  readonly algorithm: string;
  readonly #privateKey: KeyObject;
  readonly #publicJwk: JWK;
  #previousKeys: JWK[] = [];
  readonly #now: () => number;

  private constructor(options: { privateKey: KeyObject; algorithm: string; keyId: string; publicJwk: JWK; now: () => number }) {
    this.#privateKey = options.privateKey;
    this.algorithm = options.algorithm;
    this.keyId = options.keyId;
    this.#publicJwk = options.publicJwk;
    this.#now = options.now;
  }

  /**
   * A signer for the PEM private key `pem`; `keyId` defaults to the key's
   * RFC 7638 thumbprint. `variable` names the setting in errors. Signs one
   * probe token, so a key jose cannot use fails here, at start.
   */
  static async fromPem(pem: string, options: { keyId?: string; variable?: string; now?: () => number } = {}): Promise<WebhookSigner> {
    const variable = options.variable ?? 'A2A_PUSH_SIGNING_KEY_FILE';
    const refuse = (message: string): never => {
      throw new ConfigError({ issues: [{ variable, message }], context: 'Cannot sign push notifications' });
    };
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(pem);
    } catch (error) {
      return refuse(`is not a PEM private key (${(error as Error).message}); give an EC P-256/384/521, Ed25519 or RSA private key`);
    }
    const algorithm = jwsAlgorithmFor(privateKey);
    if (algorithm === undefined || privateKey.asymmetricKeyType === 'rsa-pss')
      return refuse(`holds a ${privateKey.asymmetricKeyType ?? 'unknown'} key; give an EC P-256/384/521, Ed25519 or RSA private key`);
    const jwk = await exportJWK(createPublicKey(privateKey));
    const keyId = options.keyId ?? (await calculateJwkThumbprint(jwk));
    const signer = new WebhookSigner({
      privateKey,
      algorithm,
      keyId,
      publicJwk: { ...jwk, kid: keyId, alg: algorithm, use: 'sig' },
      now: options.now ?? Date.now,
    });
    try {
      await signer.sign({ issuer: 'urn:probe', webhookUrl: 'urn:probe', taskId: 'probe', body: '' });
    } catch (error) {
      return refuse(`cannot sign ${algorithm} JWTs: ${(error as Error).message}`);
    }
    return signer;
  }

  /** Reads the PEM at `file` (A2A_PUSH_SIGNING_KEY_FILE); a missing or unreadable file is a `ConfigError` naming the variable. */
  static async fromFile(file: string, options: { keyId?: string; now?: () => number } = {}): Promise<WebhookSigner> {
    let pem: string;
    try {
      pem = await readFile(file, 'utf8');
    } catch (error) {
      throw new ConfigError({
        issues: [{ variable: 'A2A_PUSH_SIGNING_KEY_FILE', message: `cannot be read (${(error as Error).message}); give the path of a PEM private key` }],
        context: 'Cannot sign push notifications',
      });
    }
    return WebhookSigner.fromPem(pem, options);
  }

  /**
   * Publishes retired public keys (A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE, see
   * `loadPreviousPushKeys`) in `jwks` after the current one; nothing is
   * signed with them.
   */
  publishPreviousKeys(keys: readonly JWK[]): void {
    this.#previousKeys = keys.map((key) => ({ ...key }));
  }

  /** The public key set receivers verify with (no private fields): the current key first, then the retired ones. */
  get jwks(): { keys: JWK[] } {
    return { keys: [{ ...this.#publicJwk }, ...this.#previousKeys.map((key) => ({ ...key }))] };
  }

  /** The algorithms of the published keys (the current key's first). */
  get algorithms(): string[] {
    return [...new Set([this.algorithm, ...this.#previousKeys.map((key) => key.alg!)])];
  }

  /** A compact JWT for one webhook request. */
  async sign(input: WebhookJwtInput): Promise<string> {
    const issuedAt = Math.floor(this.#now() / 1000);
    return new SignJWT({ taskId: input.taskId, request_body_sha256: createHash('sha256').update(input.body, 'utf8').digest('hex') })
      .setProtectedHeader({ alg: this.algorithm, kid: this.keyId, typ: 'JWT' })
      .setIssuer(input.issuer)
      .setAudience(input.webhookUrl)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + WEBHOOK_JWT_TTL_SECONDS)
      .setJti(randomUUID())
      .sign(this.#privateKey);
  }
}
