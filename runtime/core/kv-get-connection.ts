import { connect, type Socket } from 'node:net';

/** Where a {@link KvGetConnection} connects: a plain TCP Redis, with optional credentials and database. */
export interface KvGetTarget {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db: number;
}

/**
 * The target of a Redis URL when it is a plain `redis://host[:port][/db]`,
 * with an optional `:password` or `user:password`; `undefined` for anything
 * else (TLS, Unix sockets, query options, a user without a password), which
 * the caller leaves to ioredis rather than read differently from it.
 */
export function kvGetTarget(url: string): KvGetTarget | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'redis:' || parsed.search !== '' || parsed.hash !== '' || parsed.hostname === '' || parsed.port === '0') return undefined;
  const dbText = parsed.pathname.replace(/^\//, '');
  if (dbText !== '' && !/^\d{1,5}$/.test(dbText)) return undefined;
  let username: string;
  let password: string;
  try {
    username = decodeURIComponent(parsed.username);
    password = decodeURIComponent(parsed.password);
  } catch {
    return undefined;
  }
  if (username !== '' && password === '') return undefined;
  return {
    host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: parsed.port === '' ? 6379 : Number(parsed.port),
    ...(username === '' ? {} : { username }),
    ...(password === '' ? {} : { password }),
    db: dbText === '' ? 0 : Number(dbText),
  };
}

export interface KvGetConnectionOptions {
  /** Milliseconds a command (or the connection's set-up) may take before the connection is dropped; default 2000. */
  timeoutMs?: number;
}

type Reply = string | null;

/** The first and the longest wait before retrying after a failed connection, as `createKvClient`'s retry strategy. */
const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 2000;

/** A command written to Redis as one RESP array of bulk strings. */
function encodeCommand(words: readonly string[]): string {
  let command = `*${words.length}\r\n`;
  for (const word of words) command += `$${Buffer.byteLength(word)}\r\n${word}\r\n`;
  return command;
}

const CR = 13;
/** A reply this long is not a session record: the connection is dropped rather than buffer without bound. */
const MAX_REPLY_BYTES = 64 * 1024 * 1024;

/**
 * One Redis connection that only reads string keys (`GET`), for the one
 * command on a hot path: a bearer request's session lookup. ioredis spends
 * more CPU and heap on a command's objects (its `Command`, the auto-pipeline's
 * `Pipeline`, the promise adapters) than the request's lookup is worth; here a
 * `GET` is one string appended to the next write and one promise.
 *
 * Every `GET` reaches Redis (nothing is cached). The commands of one turn of
 * the event loop leave in one write, after the turn's I/O (as ioredis's
 * auto-pipelining). It fails fast as the toolkit's ioredis clients do: while
 * Redis is unreachable a call rejects at once (the connection is retried on
 * the next call, at most every 100 ms-2 s, doubling), a reply later than the
 * timeout drops the connection and rejects what waited on it, and a dropped
 * connection rejects every call in flight. Rejections are plain `Error`s; the
 * caller names the store (`StoreUnavailableError`).
 */
export class KvGetConnection {
  readonly #target: KvGetTarget;
  readonly #timeoutMs: number;
  #socket: Socket | undefined;
  #connected = false;
  #closed = false;
  /** Commands not yet written (the next write). */
  #out = '';
  #flushScheduled = false;
  /** Callers waiting for a reply, oldest first from `#head`: resolve, reject and the instant sent, three slots each. */
  #waiting: Array<((reply: Reply) => void) | ((error: Error) => void) | number> = [];
  #head = 0;
  /** The part of a reply that arrived without its end. */
  #rest: Buffer | undefined;
  #watchdog: NodeJS.Timeout | undefined;
  #retryAt = 0;
  #retryMs = FIRST_RETRY_MS;
  #lastError: Error | undefined;

  constructor(target: KvGetTarget, options: KvGetConnectionOptions = {}) {
    this.#target = target;
    this.#timeoutMs = options.timeoutMs ?? 2000;
  }

  /** The string value of `key`, or `null` when there is none. A key of another type rejects (Redis's `WRONGTYPE` error). */
  get(key: string): Promise<Reply> {
    if (this.#closed) return Promise.reject(new Error('The connection is closed.'));
    if (!this.#socket) {
      if (Date.now() < this.#retryAt) return Promise.reject(this.#lastError ?? new Error('Redis is unreachable.'));
      try {
        this.#connect();
      } catch (error) {
        this.#drop(error instanceof Error ? error : new Error(String(error)), true);
        return Promise.reject(this.#lastError);
      }
    }
    this.#watch();
    return new Promise<Reply>((resolve, reject) => {
      this.#waiting.push(resolve, reject, Date.now());
      this.#send(`*2\r\n$3\r\nGET\r\n$${Buffer.byteLength(key)}\r\n${key}\r\n`);
    });
  }

  /** Drops the connection; calls in flight and later calls reject. */
  close(): void {
    this.#closed = true;
    this.#drop(new Error('The connection is closed.'));
  }

  #connect(): void {
    const target = this.#target;
    const socket = connect({ host: target.host, port: target.port, noDelay: true });
    this.#socket = socket;
    this.#connected = false;
    // Set-up first: its replies come before any GET's, and a refusal drops the connection.
    const handshake: string[] = [];
    if (target.password !== undefined) {
      handshake.push(encodeCommand(target.username === undefined ? ['AUTH', target.password] : ['AUTH', target.username, target.password]));
    }
    if (target.db !== 0) handshake.push(encodeCommand(['SELECT', String(target.db)]));
    for (let i = 0; i < handshake.length; i++) this.#waiting.push(this.#expectOk, this.#onHandshakeError, Date.now());
    this.#out = handshake.join('') + this.#out;
    socket.on('connect', () => {
      if (this.#socket !== socket) return;
      this.#connected = true;
      this.#retryMs = FIRST_RETRY_MS;
      this.#flush();
    });
    socket.on('data', (chunk: Buffer) => {
      if (this.#socket === socket) this.#onData(chunk);
    });
    socket.on('error', (error: Error) => {
      if (this.#socket === socket) this.#drop(error);
    });
    socket.on('close', () => {
      if (this.#socket === socket) this.#drop(new Error('The connection to Redis was closed.'));
    });
  }

  readonly #expectOk = (reply: Reply): void => {
    if (reply !== 'OK') this.#drop(new Error(`Redis refused the connection's set-up: ${String(reply)}`));
  };

  readonly #onHandshakeError = (error: Error): void => {
    // Not a reason to hammer Redis with retries: the next attempt waits as after a refused connection.
    this.#drop(new Error(`Redis refused the connection's set-up: ${error.message}`), true);
  };

  #send(command: string): void {
    this.#out += command;
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(this.#flush);
    }
  }

  readonly #flush = (): void => {
    this.#flushScheduled = false;
    if (!this.#connected || this.#out === '') return;
    const out = this.#out;
    this.#out = '';
    this.#socket?.write(out);
  };

  /** Drops a connection that waits longer than the timeout for its set-up or its oldest reply. */
  #watch(): void {
    if (this.#watchdog) return;
    const every = Math.max(10, Math.min(500, Math.floor(this.#timeoutMs / 4)));
    this.#watchdog = setInterval(() => {
      if (this.#head === this.#waiting.length) {
        if (this.#connected || !this.#socket) {
          clearInterval(this.#watchdog);
          this.#watchdog = undefined;
        }
        return;
      }
      const oldest = this.#waiting[this.#head + 2] as number;
      if (Date.now() - oldest >= this.#timeoutMs) this.#drop(new Error(`Redis did not answer within ${this.#timeoutMs} ms.`), !this.#connected);
    }, every);
    this.#watchdog.unref();
  }

  #onData(chunk: Buffer): void {
    const buffer = this.#rest ? Buffer.concat([this.#rest, chunk]) : chunk;
    let at = 0;
    while (at < buffer.length) {
      const lineEnd = buffer.indexOf(CR, at);
      if (lineEnd < 0 || lineEnd + 1 >= buffer.length) break;
      const type = buffer[at];
      if (type === 0x24 /* $ */) {
        const length = Number(buffer.toString('latin1', at + 1, lineEnd));
        if (!Number.isInteger(length) || length < -1) return this.#protocolError(buffer, at);
        if (length === -1) {
          at = lineEnd + 2;
          this.#answer(null);
          continue;
        }
        const start = lineEnd + 2;
        if (start + length + 2 > buffer.length) break;
        at = start + length + 2;
        this.#answer(buffer.toString('utf8', start, start + length));
      } else if (type === 0x2b /* + */) {
        const text = buffer.toString('latin1', at + 1, lineEnd);
        at = lineEnd + 2;
        this.#answer(text);
      } else if (type === 0x2d /* - */) {
        const text = buffer.toString('utf8', at + 1, lineEnd);
        at = lineEnd + 2;
        this.#answerError(new Error(text));
      } else {
        return this.#protocolError(buffer, at);
      }
      // A reply's own handler may have dropped the connection (a refused set-up).
      if (this.#socket === undefined) return;
    }
    this.#rest = at < buffer.length ? buffer.subarray(at) : undefined;
    if (this.#rest && this.#rest.length > MAX_REPLY_BYTES) this.#drop(new Error('A Redis reply is larger than 64 MiB.'));
  }

  #protocolError(buffer: Buffer, at: number): void {
    this.#drop(new Error(`Unexpected reply from Redis: ${JSON.stringify(buffer.toString('latin1', at, Math.min(buffer.length, at + 40)))}`));
  }

  #answer(reply: Reply): void {
    const resolve = this.#next(0) as ((reply: Reply) => void) | undefined;
    if (resolve) resolve(reply);
    else this.#drop(new Error('Redis sent a reply no command asked for.'));
  }

  #answerError(error: Error): void {
    const reject = this.#next(1) as ((error: Error) => void) | undefined;
    if (reject) reject(error);
    else this.#drop(new Error('Redis sent a reply no command asked for.'));
  }

  /** Takes the oldest waiting caller's slot `which` (0 resolve, 1 reject). */
  #next(which: 0 | 1): unknown {
    const waiting = this.#waiting;
    if (this.#head === waiting.length) return undefined;
    const slot = waiting[this.#head + which];
    this.#head += 3;
    if (this.#head === waiting.length) {
      waiting.length = 0;
      this.#head = 0;
    }
    return slot;
  }

  /** Ends the current connection: everything waiting rejects with `error`; the next call reconnects (after a wait when this one never worked). */
  #drop(error: Error, backOff = !this.#connected): void {
    const socket = this.#socket;
    this.#socket = undefined;
    this.#connected = false;
    this.#out = '';
    this.#rest = undefined;
    this.#lastError = error;
    if (backOff) {
      this.#retryAt = Date.now() + this.#retryMs;
      this.#retryMs = Math.min(LAST_RETRY_MS, this.#retryMs * 2);
    } else {
      this.#retryAt = 0;
      this.#retryMs = FIRST_RETRY_MS;
    }
    socket?.destroy();
    if (this.#watchdog) {
      clearInterval(this.#watchdog);
      this.#watchdog = undefined;
    }
    const waiting = this.#waiting;
    const head = this.#head;
    this.#waiting = [];
    this.#head = 0;
    for (let i = head; i < waiting.length; i += 3) {
      const reject = waiting[i + 1] as (error: Error) => void;
      // A set-up command's own handler would drop the connection again.
      if (reject !== this.#onHandshakeError) reject(error);
    }
  }
}
