import type { Hono } from 'hono';
import { isPlainObject } from '../../core/json.js';
import type { WebhookSigner } from './webhook-signer.js';

/** Where an agent that signs its webhooks publishes its public keys (RFC 8615 well-known path, the name the A2A samples use). */
export const PUSH_JWKS_PATH = '/.well-known/jwks.json';

/**
 * The card extension that tells receivers how this agent's webhooks are
 * signed. The A2A spec recommends JWT + JWKS for webhook authenticity but
 * defines no card field for the key set, so the card names it the way the
 * spec lets agents declare anything extra: an `AgentExtension` in
 * `capabilities.extensions` (not required: a client that ignores it still
 * gets the config's own credentials and token).
 */
export const PUSH_SIGNATURE_EXTENSION_URI = 'urn:framework-core:a2a:push-notification-jwt:v1';

/** The served card JSON (1.0 or 0.3 shape) with the push-signature extension naming `jwksUrl`. */
export function withPushSignatureExtension(card: unknown, signer: WebhookSigner, jwksUrl: string): unknown {
  if (!isPlainObject(card)) return card;
  const capabilities = isPlainObject(card.capabilities) ? card.capabilities : {};
  const extensions = Array.isArray(capabilities.extensions) ? capabilities.extensions : [];
  const extension = {
    uri: PUSH_SIGNATURE_EXTENSION_URI,
    description:
      'Push-notification webhook POSTs carry a JWT in X-A2A-Notification-Signature (iss: the agent URL, aud: the webhook URL, iat, exp, jti, taskId, ' +
      'request_body_sha256: hex SHA-256 of the body), signed with a key of the JWKS at jwksUrl.',
    required: false,
    params: { jwksUrl, algorithms: signer.algorithms, header: 'X-A2A-Notification-Signature' },
  };
  return { ...card, capabilities: { ...capabilities, extensions: [...extensions, extension] } };
}

/** Serves the signer's public key set at `PUSH_JWKS_PATH` (cacheable for 5 minutes: retired keys stay in it for a grace period, A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE). */
export function mountPushJwks(app: Hono, signer: WebhookSigner): void {
  const body = JSON.stringify(signer.jwks);
  app.get(
    PUSH_JWKS_PATH,
    () => new Response(body, { status: 200, headers: { 'content-type': 'application/jwk-set+json', 'cache-control': 'public, max-age=300' } }),
  );
}
