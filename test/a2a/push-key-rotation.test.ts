import { createHash, generateKeyPairSync } from 'node:crypto';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePreviousPushKeys } from '../../runtime/a2a/push/previous-push-keys.js';
import { WebhookSigner } from '../../runtime/a2a/push/webhook-signer.js';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { runAgent, type RunningAgent } from '../../runtime/agent/run-agent.js';
import { probeAgent, scratchDir } from './support.js';

const ecPem = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

/**
 * A webhook receiver that caches the agent's JWKS, as receivers do: it
 * fetches the key set once and again only when a token names a kid it does
 * not hold (never on a schedule), then verifies issuer, audience, expiry and
 * the body hash. Records each verdict.
 */
async function startCachingReceiver(jwksUrl: string, issuer: string) {
  let cached: JSONWebKeySet | undefined;
  let fetches = 0;
  const verdicts: Array<{ path: string; kid: string; ok: boolean; why?: string }> = [];
  const refresh = async () => {
    fetches += 1;
    cached = (await (await fetch(jwksUrl)).json()) as JSONWebKeySet;
  };
  const verify = async (path: string, token: string, raw: string) => {
    const { kid } = decodeProtectedHeader(token);
    if (!cached || !cached.keys.some((key) => key.kid === kid)) await refresh();
    const { payload } = await jwtVerify(token, createLocalJWKSet(cached!), { issuer, audience: url(path), maxTokenAge: 300 });
    if (payload.request_body_sha256 !== createHash('sha256').update(raw, 'utf8').digest('hex')) throw new Error('body hash mismatch');
  };
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const token = String(req.headers['x-a2a-notification-signature'] ?? '');
      const path = req.url ?? '/';
      const kid = token ? String(decodeProtectedHeader(token).kid) : '';
      verify(path, token, raw).then(
        () => {
          verdicts.push({ path, kid, ok: true });
          res.writeHead(200).end();
        },
        (error: unknown) => {
          verdicts.push({ path, kid, ok: false, why: (error as { code?: string }).code ?? (error as Error).message });
          res.writeHead(401).end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  return {
    port,
    url,
    verdicts,
    fetches: () => fetches,
    async waitFor(path: string, count: number) {
      const deadline = Date.now() + 10_000;
      while (verdicts.filter((v) => v.path === path).length < count) {
        if (Date.now() > deadline) throw new Error(`webhook ${path}: ${JSON.stringify(verdicts)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return verdicts.filter((v) => v.path === path);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let port: number;
let receiver: Awaited<ReturnType<typeof startCachingReceiver>>;
let agent: RunningAgent | undefined;
const pems = { one: ecPem(), two: ecPem() };

function start(env: Record<string, string>): Promise<RunningAgent> {
  const built = probeAgent('rotating');
  return runAgent(built.core, built.agent, {
    port,
    host: '127.0.0.1',
    mode: 'a2a',
    env: { LOG_LEVEL: 'error', SESSION_BACKEND: 'memory', A2A_VALIDATION_MODE: 'disabled', A2A_PUSH_ALLOWED_HOSTS: `127.0.0.1:${receiver.port}`, ...env },
  });
}

/** A blocking SendMessage with a push config for `path` (the probe agent completes at once: 1+ signed POSTs). */
async function sendWithPush(path: string): Promise<void> {
  const params = {
    message: { messageId: `m-${Math.random()}`, role: 'ROLE_USER', parts: [{ text: 'hello' }] },
    configuration: { taskPushNotificationConfig: { url: receiver.url(path) } },
  };
  const res = await fetch(agent!.a2aUrl!, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params }),
  });
  expect(((await res.json()) as { result?: unknown }).result).toBeDefined();
}

/** What a replica still on the retired key sends: a POST signed by it, same issuer. */
async function postFromOldReplica(path: string): Promise<number> {
  const old = await WebhookSigner.fromPem(pems.one, { keyId: 'push-2026-01' });
  const body = JSON.stringify({ statusUpdate: { taskId: 't-old' } });
  const token = await old.sign({ issuer: agent!.a2aUrl!, webhookUrl: receiver.url(path), taskId: 't-old', body });
  const res = await fetch(receiver.url(path), { method: 'POST', headers: { 'x-a2a-notification-signature': token }, body });
  return res.status;
}

beforeAll(async () => {
  scratch = await scratchDir();
  port = await freePort();
  await writeFile(join(scratch.dir, 'one.pem'), pems.one);
  await writeFile(join(scratch.dir, 'two.pem'), pems.two);
  const issuer = `http://127.0.0.1:${port}/`;
  receiver = await startCachingReceiver(`http://127.0.0.1:${port}/.well-known/jwks.json`, issuer);
});

afterAll(async () => {
  await agent?.close();
  await receiver?.close();
  await scratch?.remove();
});

describe('webhook signing key rotation (A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE)', () => {
  it('a receiver caching the JWKS keeps verifying across a restart with a new key, and POSTs still signed with the old one', async () => {
    agent = await start({ A2A_PUSH_SIGNING_KEY_FILE: join(scratch.dir, 'one.pem'), A2A_PUSH_SIGNING_KEY_ID: 'push-2026-01' });
    expect(agent.a2aUrl).toBe(`http://127.0.0.1:${port}/`);
    await sendWithPush('/before');
    const before = await receiver.waitFor('/before', 1);
    expect(before.every((v) => v.ok && v.kid === 'push-2026-01')).toBe(true);
    expect(receiver.fetches()).toBe(1);
    // The operator saves the served key set before the rotation: it becomes the previous keys file (kid kept).
    const served = await (await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`)).text();
    await writeFile(join(scratch.dir, 'previous.json'), served);
    await agent.close();

    agent = await start({
      A2A_PUSH_SIGNING_KEY_FILE: join(scratch.dir, 'two.pem'),
      A2A_PUSH_SIGNING_KEY_ID: 'push-2026-02',
      A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE: join(scratch.dir, 'previous.json'),
    });
    const jwks = (await (await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    expect(jwks.keys.map((key) => key.kid)).toEqual(['push-2026-02', 'push-2026-01']);
    expect(jwks.keys.every((key) => !('d' in key))).toBe(true);
    await sendWithPush('/after');
    const after = await receiver.waitFor('/after', 1);
    // Signed with the new key's kid; the receiver fetched the set once more (unknown kid) and verified.
    expect(after.every((v) => v.ok && v.kid === 'push-2026-02')).toBe(true);
    expect(receiver.fetches()).toBe(2);
    // A replica not yet restarted still signs with the old key: the cached set (new + previous) verifies it without a fetch.
    expect(await postFromOldReplica('/old-replica')).toBe(200);
    expect(receiver.fetches()).toBe(2);
    await agent.close();
    agent = undefined;
  });

  it('without the previous key (the grace period over), a POST signed with the retired key is refused', async () => {
    agent = await start({ A2A_PUSH_SIGNING_KEY_FILE: join(scratch.dir, 'two.pem'), A2A_PUSH_SIGNING_KEY_ID: 'push-2026-02' });
    const jwks = (await (await fetch(`http://127.0.0.1:${port}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    expect(jwks.keys.map((key) => key.kid)).toEqual(['push-2026-02']);
    // The receiver's cache still holds the old key; a fresh receiver (or one whose cache expired) would not. Forget it:
    const fresh = await startCachingReceiver(`http://127.0.0.1:${port}/.well-known/jwks.json`, agent.a2aUrl!);
    try {
      const old = await WebhookSigner.fromPem(pems.one, { keyId: 'push-2026-01' });
      const body = '{}';
      const token = await old.sign({ issuer: agent.a2aUrl!, webhookUrl: fresh.url('/late'), taskId: 't', body });
      const res = await fetch(fresh.url('/late'), { method: 'POST', headers: { 'x-a2a-notification-signature': token }, body });
      expect(res.status).toBe(401);
      expect(fresh.verdicts[0]!.why).toBe('ERR_JWKS_NO_MATCHING_KEY');
    } finally {
      await fresh.close();
      await agent.close();
      agent = undefined;
    }
  });

  it('PEM previous keys are published by their public half with the thumbprint as kid', async () => {
    const keys = await parsePreviousPushKeys({ text: `${pems.one}\n${pems.two}`, currentKeyId: 'current' });
    expect(keys).toHaveLength(2);
    const signer = await WebhookSigner.fromPem(pems.one);
    expect(keys[0]!.kid).toBe(signer.keyId);
    expect(keys.every((key) => key.alg === 'ES256' && key.d === undefined && key.use === 'sig')).toBe(true);
  });

  it('refuses what must not be published or would confuse receivers, naming the variable', async () => {
    const current = await WebhookSigner.fromPem(pems.one, { keyId: 'k-now' });
    const privateJwks = JSON.stringify({ keys: [{ ...current.jwks.keys[0], kid: 'k-old', d: 'secret' }] });
    const cases: Array<[string, RegExp]> = [
      [privateJwks, /private members \(d\)/],
      [JSON.stringify({ keys: [{ ...current.jwks.keys[0] }] }), /is the current key's/],
      [
        JSON.stringify({
          keys: [
            { ...current.jwks.keys[0], kid: 'a' },
            { ...current.jwks.keys[0], kid: 'a' },
          ],
        }),
        /names two keys/,
      ],
      [JSON.stringify({ keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 'h' }] }), /private members \(k\)/],
      [JSON.stringify({ keys: [] }), /holds no key/],
      ['{not json', /is not JSON/],
      ['just text', /holds no PEM key/],
    ];
    for (const [text, message] of cases) {
      const error = await parsePreviousPushKeys({ text, currentKeyId: 'k-now' }).catch((e: unknown) => e);
      expect(ConfigError.isInstance(error), text).toBe(true);
      expect(String((error as Error).message) + JSON.stringify((error as ConfigError).issues)).toMatch(message);
      expect(JSON.stringify((error as ConfigError).issues)).toContain('A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE');
    }
  });

  it('a previous keys file without a current key, or unreadable, stops the start', async () => {
    await expect(start({ A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE: join(scratch.dir, 'one.pem') })).rejects.toThrow(/A2A_PUSH_SIGNING_KEY_FILE/);
    await expect(
      start({ A2A_PUSH_SIGNING_KEY_FILE: join(scratch.dir, 'two.pem'), A2A_PUSH_SIGNING_PREVIOUS_KEYS_FILE: join(scratch.dir, 'missing.json') }),
    ).rejects.toThrow(ConfigError);
  });
});
