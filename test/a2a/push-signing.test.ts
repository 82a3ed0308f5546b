import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUSH_SIGNATURE_EXTENSION_URI } from '../../runtime/a2a/push/push-jwks.js';
import { WebhookSigner } from '../../runtime/a2a/push/webhook-signer.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { probeAgent, runProbe, scratchDir } from './support.js';
import { startVerifyingReceiver, type SignedDelivery } from './verifying-webhook-receiver.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let receiver: Awaited<ReturnType<typeof startVerifyingReceiver>>;
let running: RunningAgent;
let keyFile: string;
let jwksUrl: string;

const pem = (type: 'ec' | 'ed25519' | 'x25519') =>
  (type === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync(type as 'ed25519')).privateKey
    .export({ type: 'pkcs8', format: 'pem' })
    .toString();

function startAgent(env: Record<string, string>): Promise<RunningAgent> {
  const built = probeAgent('probe');
  // Unsigned calls accepted: what is tested is the agent signing its own webhook POSTs.
  return runProbe(built.core, built.agent, { A2A_VALIDATION_MODE: 'disabled', A2A_PUSH_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`, ...env });
}

/** A blocking SendMessage over raw JSON-RPC with a push config for `path`; the task id. */
async function sendWithPush(text: string, path: string, config: Record<string, unknown> = {}): Promise<string> {
  const params = {
    message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text }] },
    configuration: { taskPushNotificationConfig: { url: receiver.url(path), ...config } },
  };
  const res = await fetch(running.a2aUrl!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }),
  });
  const json = (await res.json()) as { result?: { task: { id: string } }; error?: unknown };
  if (!json.result) throw new Error(`SendMessage failed: ${JSON.stringify(json.error)}`);
  return json.result.task.id;
}

const completed = (got: SignedDelivery[]) => got.some((d) => d.raw.includes('TASK_STATE_COMPLETED'));

/** The headers of a delivery as a client would resend them. */
function resend(delivery: SignedDelivery): Record<string, string> {
  return { 'content-type': 'application/a2a+json', 'x-a2a-notification-signature': String(delivery.headers['x-a2a-notification-signature']) };
}

beforeAll(async () => {
  scratch = await scratchDir();
  receiver = await startVerifyingReceiver();
  keyFile = join(scratch.dir, 'push-key.pem');
  await writeFile(keyFile, pem('ec'));
  running = await startAgent({ A2A_PUSH_SIGNING_KEY_FILE: keyFile, A2A_PUSH_SIGNING_KEY_ID: 'push-1' });
  const card = (await (await fetch(new URL('/.well-known/agent-card.json', running.a2aUrl!))).json()) as {
    capabilities: { pushNotifications?: boolean; extensions?: Array<{ uri: string; params?: { jwksUrl?: string } }> };
  };
  expect(card.capabilities.pushNotifications).toBe(true);
  jwksUrl = card.capabilities.extensions?.find((e) => e.uri === PUSH_SIGNATURE_EXTENSION_URI)?.params?.jwksUrl ?? '';
  receiver.trust(jwksUrl, running.a2aUrl!);
});

afterAll(async () => {
  await running?.close();
  await receiver?.close();
  await scratch?.remove();
});

describe('signed webhook POSTs (JWT, public keys as a JWKS named in the card)', () => {
  it('the card names the JWKS, which holds the public key only', async () => {
    expect(jwksUrl).toBe(new URL('/.well-known/jwks.json', running.a2aUrl!).toString());
    const res = await fetch(jwksUrl);
    expect(res.status).toBe(200);
    const { keys } = (await res.json()) as { keys: Array<Record<string, unknown>> };
    expect(keys).toHaveLength(1);
    expect([keys[0]!.kid, keys[0]!.alg, keys[0]!.kty, keys[0]!.crv]).toEqual(['push-1', 'ES256', 'EC', 'P-256']);
    expect(keys[0]!.d).toBeUndefined();
  });

  it('every update of a task reaches a receiver that verifies it with that JWKS; the config credentials and token are kept', async () => {
    const taskId = await sendWithPush('stream please', '/hook', { token: 'tok-1', authentication: { scheme: 'Bearer', credentials: 'hook-secret' } });
    const got = await receiver.waitFor('/hook', completed);
    expect(got.filter((d) => d.refused)).toEqual([]);
    expect(got.length).toBeGreaterThan(2);
    for (const delivery of got) {
      expect(delivery.headers.authorization).toBe('Bearer hook-secret');
      expect(delivery.headers['x-a2a-notification-token']).toBe('tok-1');
      expect(delivery.claims?.taskId).toBe(taskId);
      expect(delivery.claims!.exp! - delivery.claims!.iat!).toBe(300);
    }
    expect(new Set(got.map((d) => d.claims?.jti)).size).toBe(got.length);
  });

  it('a config asking for a Bearer token without credentials gets the JWT as its bearer token', async () => {
    await sendWithPush('result please', '/bearer', { authentication: { scheme: 'Bearer' } });
    const got = await receiver.waitFor('/bearer', completed);
    expect(got.filter((d) => d.refused)).toEqual([]);
    for (const delivery of got) expect(delivery.headers.authorization).toBe(`Bearer ${String(delivery.headers['x-a2a-notification-signature'])}`);
  });

  it('the receiver refuses a tampered body, a replay, a token meant for another webhook, another key and an expired token', async () => {
    await sendWithPush('result again', '/source');
    const [original] = await receiver.waitFor('/source', completed);
    const before = receiver.deliveries.length;
    expect(await receiver.post('/source', resend(original!), original!.raw.replace('TASK_STATE', 'TASK_STATE_X'))).toBe(401);
    expect(await receiver.post('/source', resend(original!), original!.raw)).toBe(401);
    expect(await receiver.post('/elsewhere', resend(original!), original!.raw)).toBe(401);

    const claims = { taskId: 'x', request_body_sha256: 'x' };
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const forged = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid: 'push-1', typ: 'JWT' })
      .setIssuer(running.a2aUrl!)
      .setAudience(receiver.url('/forged'))
      .setIssuedAt()
      .setExpirationTime('5m')
      .setJti('forged-1')
      .sign(other);
    expect(await receiver.post('/forged', { 'x-a2a-notification-signature': forged }, '{}')).toBe(401);

    // The agent's own key, but a token made ten minutes ago.
    const stale = await WebhookSigner.fromFile(keyFile, { keyId: 'push-1', now: () => Date.now() - 600_000 });
    const body = '{"statusUpdate":{}}';
    const expired = await stale.sign({ issuer: running.a2aUrl!, webhookUrl: receiver.url('/stale'), taskId: 't', body });
    expect(await receiver.post('/stale', { 'x-a2a-notification-signature': expired }, body)).toBe(401);
    // The same token made now is taken: the refusal above is the expiry.
    const fresh = await (
      await WebhookSigner.fromFile(keyFile, { keyId: 'push-1' })
    ).sign({ issuer: running.a2aUrl!, webhookUrl: receiver.url('/stale'), taskId: 't', body });
    expect(await receiver.post('/stale', { 'x-a2a-notification-signature': fresh }, body)).toBe(200);

    expect(receiver.deliveries.slice(before).map((d) => d.refused ?? 'accepted')).toEqual([
      'body hash mismatch',
      'replayed jti',
      'ERR_JWT_CLAIM_VALIDATION_FAILED',
      'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
      'ERR_JWT_EXPIRED',
      'accepted',
    ]);
  });

  it('an agent without a signing key serves no JWKS and sends no signature', async () => {
    const plain = await startAgent({});
    try {
      expect((await fetch(new URL('/.well-known/jwks.json', plain.a2aUrl!))).status).toBe(404);
      const card = (await (await fetch(new URL('/.well-known/agent-card.json', plain.a2aUrl!))).json()) as { capabilities: { extensions?: unknown[] } };
      expect(card.capabilities.extensions ?? []).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it.each([
    ['a missing file', () => join(scratch.dir, 'nope.pem'), /A2A_PUSH_SIGNING_KEY_FILE: cannot be read/],
    [
      'a public key',
      () => writeKey('pub.pem', generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString()),
      /A2A_PUSH_SIGNING_KEY_FILE: is not a PEM private key/,
    ],
    ['garbage', () => writeKey('junk.pem', 'not a key'), /A2A_PUSH_SIGNING_KEY_FILE: is not a PEM private key/],
    ['an X25519 key (cannot sign)', () => writeKey('x.pem', pem('x25519')), /A2A_PUSH_SIGNING_KEY_FILE: holds a x25519 key/],
  ])('refuses to start with %s as A2A_PUSH_SIGNING_KEY_FILE, naming the variable', async (_name, file, message) => {
    const path = await file();
    await expect(startAgent({ A2A_PUSH_SIGNING_KEY_FILE: path })).rejects.toThrow(message);
  });

  it('signs with an Ed25519 key as EdDSA', async () => {
    const signer = await WebhookSigner.fromPem(pem('ed25519'));
    expect(signer.algorithm).toBe('EdDSA');
    expect(signer.keyId).toBe(signer.jwks.keys[0]!.kid);
    expect(signer.keyId).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

async function writeKey(name: string, text: string): Promise<string> {
  const path = join(scratch.dir, name);
  await writeFile(path, text);
  return path;
}
