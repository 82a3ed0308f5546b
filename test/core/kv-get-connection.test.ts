import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { closeKvClient, createKvClient, whenFirstConnected } from '../../runtime/core/kv-client.js';
import { KvGetConnection, kvGetTarget } from '../../runtime/core/kv-get-connection.js';
import { freePort, waitFor } from '../support/net.js';
import { RedisProcess } from '../support/redis-process.js';

// Against the shared Redis (keys of this run only, expiring), our own redis-server children, and silent or garbled TCP servers.

const PREFIX = `fwtest:kvget:${process.pid}:`;
const connections: KvGetConnection[] = [];
const clients: ReturnType<typeof createKvClient>[] = [];
const servers: RedisProcess[] = [];
const tcpServers: Server[] = [];

afterAll(async () => {
  for (const connection of connections) connection.close();
  await Promise.all(clients.map((client) => closeKvClient(client)));
  await Promise.allSettled(servers.map((server) => server.kill()));
  await Promise.all(tcpServers.map((server) => new Promise((done) => server.close(done))));
});

function connection(url: string, timeoutMs?: number): KvGetConnection {
  const target = kvGetTarget(url);
  if (!target) throw new Error(`not a plain redis URL: ${url}`);
  const made = new KvGetConnection(target, timeoutMs === undefined ? {} : { timeoutMs });
  connections.push(made);
  return made;
}

/** An ioredis client for the test's own writes, once connected (the toolkit's clients queue nothing while offline). */
async function client(url: string): Promise<ReturnType<typeof createKvClient>> {
  const made = createKvClient({ url });
  clients.push(made);
  await whenFirstConnected(made);
  return made;
}

async function rejection(call: Promise<unknown>): Promise<Error> {
  const outcome = await call.then(
    (value: unknown) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`resolved with ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(Error);
  return outcome.error as Error;
}

/** A TCP server that answers every connection with `reply` (or never, when undefined). */
async function tcpServer(reply: string | undefined): Promise<number> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.on('data', () => {
      if (reply !== undefined) socket.write(reply);
    });
  });
  server.on('close', () => sockets.forEach((s) => s.destroy()));
  tcpServers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as { port: number }).port;
}

describe('kvGetTarget', () => {
  it('reads plain redis:// URLs as ioredis does, and declines every other form', () => {
    expect(kvGetTarget('redis://127.0.0.1:6379')).toEqual({ host: '127.0.0.1', port: 6379, db: 0 });
    expect(kvGetTarget('redis://cache')).toEqual({ host: 'cache', port: 6379, db: 0 });
    expect(kvGetTarget('redis://:s%40cret@cache:7000/3')).toEqual({ host: 'cache', port: 7000, password: 's@cret', db: 3 });
    expect(kvGetTarget('redis://app:pw@[::1]:6380/')).toEqual({ host: '::1', port: 6380, username: 'app', password: 'pw', db: 0 });
    for (const declined of [
      'rediss://cache:6379', // TLS
      'redis://cache:6379?db=2', // options ioredis reads from the query
      'redis://cache/x', // not a database number
      'redis://cache:0', // no port to connect to
      'redis://user@cache', // a user without a password
      'redis://:%E0%A4%A@cache', // a password that does not decode
      'unix:///tmp/redis.sock',
      'not a url',
    ]) {
      expect(kvGetTarget(declined), declined).toBeUndefined();
    }
  });
});

describe('KvGetConnection', () => {
  it('reads strings, missing keys and large or non-ASCII values, each reply to its own call', async () => {
    const writer = await client('redis://127.0.0.1:6379');
    const reader = connection('redis://127.0.0.1:6379');
    const large = 'é'.repeat(200_000); // 400 KB: arrives in several chunks
    await writer.set(`${PREFIX}large`, large, 'EX', 60);
    await writer.set(`${PREFIX}empty`, '', 'EX', 60);
    await writer.set(`${PREFIX}crlf`, 'a\r\nb$-1\r\n', 'EX', 60);
    const keys = Array.from({ length: 500 }, (_, i) => `${PREFIX}k${i}`);
    await Promise.all(keys.map((key, i) => writer.set(key, `value ${i} ✓`, 'EX', 60)));

    // All in one turn: one write, 503 replies matched to their calls in order.
    const [missing, empty, crlf, big, ...values] = await Promise.all([
      reader.get(`${PREFIX}missing`),
      reader.get(`${PREFIX}empty`),
      reader.get(`${PREFIX}crlf`),
      reader.get(`${PREFIX}large`),
      ...keys.map((key) => reader.get(key)),
    ]);
    expect(missing).toBeNull();
    expect(empty).toBe('');
    expect(crlf).toBe('a\r\nb$-1\r\n');
    expect(big).toBe(large);
    expect(values).toEqual(keys.map((_, i) => `value ${i} ✓`));
  });

  it('sees every write at once (nothing is cached): a changed or deleted key reads as it is now', async () => {
    const writer = await client('redis://127.0.0.1:6379');
    const reader = connection('redis://127.0.0.1:6379');
    const key = `${PREFIX}changing`;
    await writer.set(key, 'one', 'EX', 60);
    expect(await reader.get(key)).toBe('one');
    await writer.set(key, 'two', 'EX', 60);
    expect(await reader.get(key)).toBe('two');
    await writer.del(key);
    expect(await reader.get(key)).toBeNull();
  });

  it("rejects a key of another type with Redis's error and keeps the connection", async () => {
    const writer = await client('redis://127.0.0.1:6379');
    const reader = connection('redis://127.0.0.1:6379');
    await writer.hset(`${PREFIX}hash`, 'a', '1');
    await writer.expire(`${PREFIX}hash`, 60);
    await writer.set(`${PREFIX}after`, 'fine', 'EX', 60);
    const [wrong, after] = await Promise.allSettled([reader.get(`${PREFIX}hash`), reader.get(`${PREFIX}after`)]);
    expect(wrong.status === 'rejected' && String(wrong.reason)).toMatch(/WRONGTYPE/);
    expect(after).toEqual({ status: 'fulfilled', value: 'fine' });
  });

  it('authenticates and selects the database of the URL, and fails every call on a wrong password', async () => {
    const server = new RedisProcess(await freePort(), ['--requirepass', 'se cret']);
    servers.push(server);
    await server.start();
    const url = `redis://:${encodeURIComponent('se cret')}@127.0.0.1:${server.port}/3`;
    await (await client(url)).set('k', 'in db 3');
    await (await client(`redis://:${encodeURIComponent('se cret')}@127.0.0.1:${server.port}/0`)).set('k', 'in db 0');
    expect(await connection(url).get('k')).toBe('in db 3');

    const wrong = connection(`redis://:nope@127.0.0.1:${server.port}/3`);
    expect((await rejection(wrong.get('k'))).message).toMatch(/refused the connection's set-up: (WRONGPASS|ERR invalid password)/);
    // The refusal is remembered: the next call fails at once, without a second attempt.
    expect((await rejection(wrong.get('k'))).message).toMatch(/set-up/);
    const anonymous = connection(`redis://127.0.0.1:${server.port}`);
    expect((await rejection(anonymous.get('k'))).message).toMatch(/NOAUTH/);
  });

  it('fails calls while Redis is down, fast, and works again once it is back', async () => {
    const server = new RedisProcess(await freePort());
    servers.push(server);
    const reader = connection(server.url);
    expect((await rejection(reader.get('k'))).message).toMatch(/ECONNREFUSED/);
    await server.start();
    await (await client(server.url)).set('k', 'up');
    await waitFor(async () => (await reader.get('k').catch(() => undefined)) === 'up', 'the reader to reconnect');

    // Killed under a call in flight: the call rejects, it does not hang.
    // Its outcome is taken before the kill: a rejection left unobserved while `kill` is awaited is an unhandled one.
    const inFlight = reader.get('k').then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    await server.kill();
    const outcome = await inFlight;
    if ('value' in outcome)
      expect(outcome.value).toBe('up'); // answered before the kill
    else expect(outcome.error).toBeInstanceOf(Error);
    expect(await rejection(reader.get('k'))).toBeInstanceOf(Error);
    await server.start();
    await (await client(server.url)).set('k', 'again');
    await waitFor(async () => (await reader.get('k').catch(() => undefined)) === 'again', 'the reader to reconnect after a restart');
  });

  it('drops a connection that does not answer within the timeout, and one that answers what Redis never would', async () => {
    const silent = connection(`redis://127.0.0.1:${await tcpServer(undefined)}`, 200);
    expect((await rejection(silent.get('k'))).message).toBe('Redis did not answer within 200 ms.');

    const garbled = connection(`redis://127.0.0.1:${await tcpServer('HTTP/1.1 400 Bad Request\r\n\r\n')}`);
    expect((await rejection(garbled.get('k'))).message).toMatch(/^Unexpected reply from Redis: "HTTP/);

    const unasked = connection(`redis://127.0.0.1:${await tcpServer('$1\r\na\r\n$1\r\nb\r\n')}`);
    const [first] = await Promise.allSettled([unasked.get('k')]);
    expect(first).toEqual({ status: 'fulfilled', value: 'a' });
    // The second reply answered nothing: the connection is dropped, and the next call starts a new one.
    await waitFor(async () => (await unasked.get('k').catch(() => 'rejected')) === 'a', 'a fresh connection');
  });

  it('rejects calls after close()', async () => {
    const reader = connection('redis://127.0.0.1:6379');
    expect(await reader.get(`${PREFIX}missing`)).toBeNull();
    reader.close();
    expect((await rejection(reader.get('k'))).message).toBe('The connection is closed.');
  });
});
