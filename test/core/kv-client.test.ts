import { afterAll, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../runtime/core/errors/store-unavailable-error.js';
import { closeKvClient, createKvClient, kvCall } from '../../runtime/core/kv-client.js';
import { freePort } from '../support/net.js';

const clients: ReturnType<typeof createKvClient>[] = [];
afterAll(async () => {
  await Promise.all(clients.map((client) => closeKvClient(client)));
});

it('kvCall blames the store for a connection failure, and rethrows a bug in the caller as it is', async () => {
  const up = createKvClient({ url: 'redis://127.0.0.1:6379' });
  const down = createKvClient({ url: `redis://127.0.0.1:${await freePort()}` });
  clients.push(up, down);

  await expect(kvCall('redis', down, (c) => c.ping())).rejects.toBeInstanceOf(StoreUnavailableError);
  expect(await kvCall('redis', up, (c) => c.ping())).toBe('PONG');
  const bug = kvCall('redis', up, async () => encodeURIComponent('\ud800'));
  await expect(bug).rejects.toBeInstanceOf(URIError);
});
