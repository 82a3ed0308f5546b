import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../runtime/core/errors/config-error.js';
import { StoreUnavailableError } from '../../../runtime/core/errors/store-unavailable-error.js';
import { clientLocation, createKvClient } from '../../../runtime/core/kv-client.js';
import { createNonceStore } from '../../../runtime/a2a/signing/create-nonce-store.js';
import { KeyRing } from '../../../runtime/a2a/signing/key-ring.js';
import { KvNonceStore } from '../../../runtime/a2a/signing/kv-nonce-store.js';
import { InProcessNonceStore } from '../../../runtime/a2a/signing/in-process-nonce-store.js';
import { signRequest, verifyRequest } from '../../../runtime/a2a/signing/request-signature.js';
import { createSigningKey } from '../../../runtime/a2a/signing/signing-key.js';
import { SignatureError } from '../../../runtime/a2a/errors/signature-error.js';
import { redisScope, REDIS_URL } from '../../support/redis-scope.js';

const { prefix, admin, track } = redisScope();

function open(): KvNonceStore {
  const client = createKvClient({ url: REDIS_URL });
  return track(new KvNonceStore({ client, keyPrefix: prefix, location: clientLocation(client, REDIS_URL), ownsClient: true }));
}

describe('KvNonceStore', () => {
  it('claims a nonce once, under <prefix>a2a:nonce:<keyId>:<nonce> with a TTL', async () => {
    const store = open();
    expect(await store.claim('planner-1', 'nonce-0123456789ab', 600)).toBe(true);
    expect(await store.claim('planner-1', 'nonce-0123456789ab', 600)).toBe(false);
    expect(await store.claim('planner-2', 'nonce-0123456789ab', 600)).toBe(true);
    const key = `${prefix}a2a:nonce:planner-1:nonce-0123456789ab`;
    expect(await admin().get(key)).toBe('1');
    const ttl = await admin().ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
  });

  it('catches a replay sent to another replica sharing the Redis', async () => {
    const key = createSigningKey({ id: 'planner-1', agent: 'planner', secret: Buffer.alloc(32, 5) });
    const keys = new KeyRing([key]);
    const body = '{"hello":"world"}';
    const headers = signRequest({ method: 'POST', path: '/a2a', body, source: 'planner', target: 'orchestrator', key });
    const request = { method: 'POST', path: '/a2a', body, header: (name: string) => headers[name], self: 'orchestrator', keys };
    await expect(verifyRequest({ ...request, nonces: open() })).resolves.toEqual({ agent: 'planner', keyId: 'planner-1' });
    const replay = await verifyRequest({ ...request, nonces: open() }).catch((e: unknown) => e);
    expect(replay).toBeInstanceOf(SignatureError);
    expect((replay as SignatureError).failure).toBe('replayed_nonce');
  });

  it('does not close a client it does not own', async () => {
    const client = createKvClient({ url: REDIS_URL });
    const store = new KvNonceStore({ client, keyPrefix: prefix, location: REDIS_URL });
    await store.claim('k', 'shared-client-nonce-1', 5);
    await store.close();
    expect(await client.ping()).toBe('PONG');
    await client.quit();
  });
});

describe('KvNonceStore with Redis unreachable', () => {
  it('fails closed with StoreUnavailableError naming the address', async () => {
    const client = createKvClient({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 500 });
    const store = new KvNonceStore({ client, keyPrefix: prefix, location: 'redis://127.0.0.1:1', ownsClient: true });
    track(store);
    const error = await store.claim('planner-1', 'nonce-0123456789ab', 600).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).code).toBe('store_unavailable');
    expect((error as Error).message).toContain('redis://127.0.0.1:1');
  });

  it('makes verifyRequest refuse the request rather than let it through', async () => {
    const key = createSigningKey({ id: 'planner-1', agent: 'planner', secret: Buffer.alloc(32, 5) });
    const headers = signRequest({ method: 'GET', path: '/x', body: '', source: 'planner', target: 'orchestrator', key });
    const nonces = createNonceStore({ sessionBackend: 'kv', sessionKvUrl: 'redis://user:hunter2@127.0.0.1:1', kvKeyPrefix: prefix });
    track(nonces);
    const error = await verifyRequest({
      method: 'GET',
      path: '/x',
      body: '',
      header: (name) => headers[name],
      self: 'orchestrator',
      keys: new KeyRing([key]),
      nonces,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).not.toContain('hunter2');
  });
});

describe('createNonceStore', () => {
  it('makes a memory store or a kv store from the session settings', async () => {
    const memory = createNonceStore({ sessionBackend: 'memory', kvKeyPrefix: 'fw:' });
    track(memory);
    expect(memory).toBeInstanceOf(InProcessNonceStore);
    const kv = createNonceStore({ sessionBackend: 'kv', sessionKvUrl: REDIS_URL, kvKeyPrefix: prefix });
    track(kv);
    expect(kv).toBeInstanceOf(KvNonceStore);
    expect(await kv.claim('k', 'created-store-nonce-1', 30)).toBe(true);
    expect(await admin().exists(`${prefix}a2a:nonce:k:created-store-nonce-1`)).toBe(1);
  });

  it('requires a URL for the kv backend, naming SESSION_KV_URL', () => {
    expect(() => createNonceStore({ sessionBackend: 'kv', kvKeyPrefix: 'fw:' })).toThrow(ConfigError);
    expect(() => createNonceStore({ sessionBackend: 'kv', kvKeyPrefix: 'fw:' })).toThrow(/SESSION_KV_URL/);
  });
});
