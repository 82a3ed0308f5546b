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

it('kvCall on a ready client sends the command before it returns, so a caller can work while the reply travels', async () => {
  const client = createKvClient({ url: 'redis://127.0.0.1:6379' });
  clients.push(client);
  expect(await kvCall('redis', client, (c) => c.ping())).toBe('PONG');
  expect(client.status).toBe('ready');
  let sent = false;
  const reply = kvCall('redis', client, (c) => {
    sent = true;
    return c.ping();
  });
  expect(sent).toBe(true);
  expect(await reply).toBe('PONG');
});
