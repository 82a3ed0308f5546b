import { randomUUID } from 'node:crypto';
import type { ChainableCommander, Redis } from 'ioredis';
import { closeKvClient, createKvClient } from '../core/kv-client.js';
import type { Logger } from '../core/logger.js';
import type { MemoryKeys } from './memory-keys.js';

/**
 * How long a read lease lasts in Redis after its renewal ran (Redis's clock).
 * A writer that hears nothing from a replica waits at most this long.
 */
const LEASE_MS = 2000;
/** How often a replica renews its lease. */
const RENEW_MS = 500;
/**
 * A replica trusts a lease this much less than Redis holds it (clock rates
 * and small steps of Redis's wall clock, which measures the lease there).
 */
const LEASE_MARGIN_MS = 300;
/** How long a first write waits for the subscription (see `listening`). */
const FIRST_SUBSCRIBE_WAIT_MS = 2000;
/** Replicas whose last answer a writer remembers before it forgets them all. */
const MAX_REMEMBERED_REPLICAS = 1000;
/** Added to a writer's wait for a silent replica's lease to run out. */
const EXPIRY_GRACE_MS = 20;

/**
 * KEYS: readers, meta. ARGV: replica id, lease ms, the replica's channel, token.
 * Records the lease (its expiry by Redis's clock), drops run-out ones, and
 * sends the replica, on its own channel, the token with the change counter
 * as it is now: received on the subscriber connection, it proves that every
 * notice published before reached that connection too.
 */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if tonumber(all[i + 1]) < now then redis.call('HDEL', KEYS[1], all[i]) end
end
redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2]))
local meta = redis.call('HMGET', KEYS[2], 'epoch', 'ver')
redis.call('PUBLISH', ARGV[3], 'r ' .. ARGV[4] .. ' ' .. (meta[1] or '-') .. ' ' .. (meta[2] or '0'))
return 1
`;

/**
 * KEYS: readers, meta. ARGV: writer id, the store's channel.
 * Queued after a pipeline of writes: tells every replica the change counter
 * now, and answers it with the other replicas holding a lease and the
 * milliseconds each lease has left: `{epoch, ver, id1, left1, …}`.
 */
const NOTIFY = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local meta = redis.call('HMGET', KEYS[2], 'epoch', 'ver')
local epoch = meta[1] or '-'
local ver = meta[2] or '0'
redis.call('PUBLISH', ARGV[2], 'n ' .. ARGV[1] .. ' ' .. epoch .. ' ' .. ver)
local reply = {epoch, ver}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local left = tonumber(all[i + 1]) - now
  if all[i] ~= ARGV[1] and left >= 0 then
    reply[#reply + 1] = all[i]
    reply[#reply + 1] = tostring(left)
  end
end
return reply
`;

const RENEW_COMMAND = 'fwMemoryLeaseRenew';
const NOTIFY_COMMAND = 'fwMemoryNotify';

/** The epoch of a store no write has reached yet (its `meta` has none). */
export const NO_EPOCH = '-';

/** The change counter Redis is known to have reached: its history (`epoch`, '-' before any write) and count (`ver`). */
export interface KnownChange {
  epoch: string;
  ver: number;
}

interface AckWait {
  epoch: string;
  ver: number;
  readers: Set<string>;
  done: () => void;
}

/**
 * Keeps the replicas of one store in step without a Redis round trip per
 * search. Each replica holds a read lease in Redis (`readers`: replica id →
 * expiry), renewed every RENEW_MS, and listens on a subscriber connection to
 * the store's channel and to one of its own.
 *
 * - A writer queues `NOTIFY` after its writes: it publishes the new change
 *   counter and answers with the replicas whose lease is running. The write
 *   is acknowledged to its caller only once each of them has answered the
 *   notice (`a` on the writer's channel, after it has recorded the counter)
 *   or its lease, as Redis held it at the write, has run out.
 * - A replica that hears a notice records the counter, answers it, and its
 *   next search (see SyncedVectorCache) syncs first.
 * - A replica trusts its lease only from its renewal's own message arriving
 *   on the subscriber connection (Redis delivers a connection's messages in
 *   order, so every notice published before has arrived), for LEASE_MS
 *   minus LEASE_MARGIN_MS from when the renewal was sent; the message also
 *   carries the counter, which covers notices lost while disconnected. When
 *   that connection drops, the lease is dropped at once.
 *
 * So a search that starts after a write was acknowledged either finds the
 * notice recorded, or runs without a lease and reads the counter from Redis
 * as before. What this rests on: every writer runs this code (a process of
 * an older version writes without notices; replicas then learn of its writes
 * at their next renewal, within RENEW_MS), and Redis's clock does not jump
 * forward by more than LEASE_MARGIN_MS during a lease.
 *
 * @example
 * const notices = new ChangeNotices({ url, keys, call, client });
 * notices.start();
 * notices.current(); // { epoch, ver } while the lease holds, else undefined
 */
export class ChangeNotices {
  /** This replica's id in `readers` and in its channel's name. */
  readonly id = randomUUID();
  #subscriber: Redis | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  /** performance.now() until which the lease is trusted. */
  #validUntil = 0;
  #known: KnownChange | undefined;
  /** Renewals sent and not yet heard back: token → when sent. */
  readonly #renewals = new Map<string, number>();
  #nextToken = 0;
  /** The highest counter each replica has answered, by history. */
  readonly #acks = new Map<string, KnownChange>();
  readonly #waits = new Set<AckWait>();
  /** Settles once the first subscription is made, or failed, or took too long (see `listening`). */
  #listening: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: {
      url: string;
      keys: MemoryKeys;
      /** The store's command client (with `defineChangeNoticeScripts`), wrapped as its other calls. */
      call: <T>(call: (client: Redis) => Promise<T>) => Promise<T>;
      logger?: Logger | undefined;
    },
  ) {}

  /** The store's channel and this replica's. */
  get #channels(): { store: string; own: string } {
    return { store: this.options.keys.changes, own: this.options.keys.replicaChannel(this.id) };
  }

  /** Opens the subscriber connection and starts renewing (idempotent; nothing after `close`). */
  start(): void {
    if (this.#subscriber || this.#closed) return;
    const subscriber = createKvClient({ url: this.options.url });
    this.#subscriber = subscriber;
    let listened: () => void = () => undefined;
    this.#listening = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, FIRST_SUBSCRIBE_WAIT_MS);
      timer.unref();
      listened = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    subscriber.once('error', () => listened());
    // ioredis subscribes again on its own after a reconnection; what was published meanwhile is lost, so the lease goes.
    subscriber.on('close', () => this.#drop());
    subscriber.on('ready', () => {
      void subscriber.subscribe(this.#channels.store, this.#channels.own).then(
        () => {
          listened();
          this.#renew();
        },
        () => listened(),
      );
    });
    subscriber.on('message', (channel: string, message: string) => this.#heard(channel, message));
    this.#timer = setInterval(() => this.#renew(), RENEW_MS);
    this.#timer.unref();
  }

  /**
   * Settles once this replica listens for the answers to its notices (or
   * could not start to, within a bound): a writer waits for it before its
   * first write, else it would wait out the other replicas' leases.
   */
  listening(): Promise<void> {
    return this.#listening;
  }

  /** The counter Redis is known to hold at least, while the lease holds; undefined when a search must ask Redis. */
  current(): KnownChange | undefined {
    if (this.#known === undefined || performance.now() >= this.#validUntil) return undefined;
    return this.#known;
  }

  /** Records a counter this process learnt itself (its own writes' notify reply). */
  learn(change: KnownChange): void {
    if (this.#known === undefined || this.#known.epoch !== change.epoch || this.#known.ver < change.ver) this.#known = change;
  }

  /** Queues the notice after a pipeline of writes; its reply goes to `settle`. */
  queueNotify(pipeline: ChainableCommander): void {
    (pipeline as unknown as Record<string, (...args: string[]) => unknown>)[NOTIFY_COMMAND]!(
      this.options.keys.readers,
      this.options.keys.meta,
      this.id,
      this.#channels.store,
    );
  }

  /**
   * Waits until every other replica with a lease has heard the notice whose
   * reply this is (or its lease has run out); the write is then visible to
   * any search that starts on any replica. A reply that is not the notice's
   * (its command failed) is an error.
   */
  async settle(reply: [Error | null, unknown] | undefined): Promise<void> {
    const [error, raw] = reply ?? [new Error('no reply to the change notice'), undefined];
    if (error) throw error;
    if (!Array.isArray(raw) || raw.length < 2 || raw.length % 2 !== 0 || raw.some((part) => typeof part !== 'string')) {
      throw new Error(`unexpected reply to the change notice: ${JSON.stringify(raw)}`);
    }
    const [epoch, ver, ...leases] = raw as string[];
    const notice = { epoch: epoch!, ver: Number(ver) };
    this.learn(notice);
    const readers = new Set<string>();
    let longest = 0;
    for (let i = 0; i < leases.length; i += 2) {
      const reader = leases[i]!;
      const answered = this.#acks.get(reader);
      if (answered && answered.epoch === notice.epoch && answered.ver >= notice.ver) continue;
      readers.add(reader);
      longest = Math.max(longest, Number(leases[i + 1]));
    }
    if (readers.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => wait.done(), longest + EXPIRY_GRACE_MS);
      const wait: AckWait = {
        ...notice,
        readers,
        done: () => {
          clearTimeout(timer);
          this.#waits.delete(wait);
          resolve();
        },
      };
      this.#waits.add(wait);
    });
  }

  /** Stops renewing, gives the lease back (so writers need not wait it out) and closes the subscriber connection. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    // Writes still waiting for answers keep waiting (at most a lease): they are not acknowledged early.
    const subscriber = this.#subscriber;
    this.#subscriber = undefined;
    this.#drop();
    if (!subscriber) return;
    await this.options.call((c) => c.hdel(this.options.keys.readers, this.id)).catch(() => undefined);
    await closeKvClient(subscriber);
  }

  #drop(): void {
    this.#validUntil = 0;
    this.#known = undefined;
    this.#renewals.clear();
  }

  #renew(): void {
    if (this.#closed || this.#subscriber?.status !== 'ready') return;
    // Not guessable: a renewal message is trusted only with its token.
    const token = `${this.#nextToken++}.${randomUUID()}`;
    this.#renewals.set(token, performance.now());
    const { keys } = this.options;
    this.options
      .call((c) =>
        (c as unknown as Record<string, (...args: Array<string | number>) => Promise<unknown>>)[RENEW_COMMAND]!(
          keys.readers,
          keys.meta,
          this.id,
          LEASE_MS,
          this.#channels.own,
          token,
        ),
      )
      .catch((error: unknown) => {
        this.#renewals.delete(token);
        this.options.logger?.debug('memory read lease not renewed', { error: (error as Error).message });
      });
  }

  #heard(channel: string, message: string): void {
    const parts = message.split(' ');
    if (channel === this.#channels.own && parts.length === 4 && parts[0] === 'r') this.#renewed(parts[1]!, { epoch: parts[2]!, ver: Number(parts[3]) });
    else if (channel === this.#channels.own && parts.length === 4 && parts[0] === 'a') this.#answered(parts[1]!, { epoch: parts[2]!, ver: Number(parts[3]) });
    else if (channel === this.#channels.store && parts.length === 4 && parts[0] === 'n') this.#noticed(parts[1]!, { epoch: parts[2]!, ver: Number(parts[3]) });
    // Anything else is not ours (nothing is trusted from it).
  }

  #renewed(token: string, change: KnownChange): void {
    const sentAt = this.#renewals.get(token);
    if (sentAt === undefined || !Number.isSafeInteger(change.ver)) return;
    // Earlier renewals lost on the way are not waited for.
    for (const [pending, at] of this.#renewals) if (at <= sentAt) this.#renewals.delete(pending);
    this.learn(change);
    this.#validUntil = Math.max(this.#validUntil, sentAt + LEASE_MS - LEASE_MARGIN_MS);
  }

  #noticed(writer: string, change: KnownChange): void {
    if (!Number.isSafeInteger(change.ver)) return;
    this.learn(change);
    if (writer === this.id) return;
    const answer = `a ${this.id} ${change.epoch} ${change.ver}`;
    void this.options.call((c) => c.publish(this.options.keys.replicaChannel(writer), answer)).catch(() => undefined);
  }

  #answered(reader: string, change: KnownChange): void {
    if (!Number.isSafeInteger(change.ver)) return;
    // The replicas that ever answered, bounded (ids of processes gone since are forgotten).
    if (this.#acks.size >= MAX_REMEMBERED_REPLICAS && !this.#acks.has(reader)) this.#acks.clear();
    const before = this.#acks.get(reader);
    if (!before || before.epoch !== change.epoch || before.ver < change.ver) this.#acks.set(reader, change);
    for (const wait of [...this.#waits]) {
      if (wait.epoch === change.epoch && change.ver >= wait.ver && wait.readers.delete(reader) && wait.readers.size === 0) wait.done();
    }
  }
}

/** Registers the lease and notice scripts on the store's command client. */
export function defineChangeNoticeScripts(client: Redis): void {
  client.defineCommand(RENEW_COMMAND, { numberOfKeys: 2, lua: RENEW });
  client.defineCommand(NOTIFY_COMMAND, { numberOfKeys: 2, lua: NOTIFY });
}
