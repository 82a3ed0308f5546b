import { validateHeaderName, validateHeaderValue, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { Context } from 'hono';
import { nodeBindings } from './node-bindings.js';
import { encodeSseComment, encodeSseEvent, SSE_HEADERS, type SseEvent } from './sse.js';
import { gauge } from '../telemetry/service-metrics.js';
import { isCallbackIterator } from '../callback-iterator.js';
import { writeAtEndOfIo, type BatchedWriter } from './write-batch.js';

export interface SseResponseOptions<T> {
  events: AsyncIterable<T>;
  /** Turns one item of `events` into the SSE event sent for it, or into its frame already encoded (`encodeNamedSseEvent`). */
  encode: (item: T) => SseEvent | string;
  /** Aborted when the client goes away, so the work behind `events` stops. */
  abort: { abort(reason?: unknown): void };
  /** A comment line is sent when nothing was written for this long; default 15 s. */
  keepAliveMs?: number;
  headers?: Record<string, string>;
  /** Called with an error that ended the stream abnormally (the client saw the stream end). */
  onError?: (error: unknown) => void;
}

const KEEP_ALIVE = encodeSseComment('keep-alive');

/**
 * A `text/event-stream` answer fed from an async iterable. The next event is
 * produced only once the client has taken the previous ones (backpressure),
 * so a slow client never makes the server buffer without bound. Under
 * @hono/node-server it writes to the Node response directly; elsewhere it
 * returns a Web `ReadableStream` response.
 */
export function sseResponse<T>(c: Context, options: SseResponseOptions<T>): Response {
  const node = nodeBindings(c);
  if (node) {
    streamSseToNode(node.outgoing, options);
    return responseAlreadySent();
  }
  return new Response(webStream(options), { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}

const require = createRequire(import.meta.url);
let alreadySent: Response | undefined;

/**
 * `@hono/node-server`'s `RESPONSE_ALREADY_SENT`, loaded by the first answer
 * that needs it (one served through the adapter, so loaded by then): the
 * module builds a `Response` when imported, and a process's first `Response`
 * loads Node's whole fetch implementation, 4-6 MB of an idle service that
 * answers its health below Hono (see `listen`).
 */
function responseAlreadySent(): Response {
  alreadySent ??= (require('@hono/node-server/utils/response') as typeof import('@hono/node-server/utils/response')).RESPONSE_ALREADY_SENT;
  return alreadySent;
}

/** {@link SSE_HEADERS} as the flat list `writeHead` takes without copying. */
const SSE_HEADER_LIST: readonly string[] = Object.entries(SSE_HEADERS).flat();

/**
 * The Node side of {@link sseResponse}: the events as they come, on Node's
 * own response. What a task produces within one turn of the event loop
 * leaves together at the end of its I/O phase (`writeAtEndOfIo`, with the
 * other answers of that turn): when the task has ended by then (a quick
 * answer), as one response with a `Content-Length` (one write, no chunked
 * framing); otherwise the head and the events so far, and each later
 * turn's events as one chunk.
 */
export function streamSseToNode<T>(res: ServerResponse, options: SseResponseOptions<T>): void {
  let head = SSE_HEADER_LIST;
  if (options.headers) {
    const list = [...SSE_HEADER_LIST];
    for (const name in options.headers) {
      const value = options.headers[name] as string;
      // Checked now, as `writeHead` would have: the head itself is written later, from a callback.
      validateHeaderName(name);
      validateHeaderValue(name, value);
      list.push(name, value);
    }
    head = list;
  }
  new NodePump(res, options, head, head !== SSE_HEADER_LIST).pull();
}

function frameOf<T>(encode: (item: T) => SseEvent | string, item: T): string {
  const encoded = encode(item);
  return typeof encoded === 'string' ? encoded : encodeSseEvent(encoded);
}

/** Event streams open now, on every server of this process (/metrics; 0 until the first). */
const activeStreams = gauge('sse_streams_active', 'Server-sent event streams open now.');

/** An open stream as the keep-alive ticker sees it. */
interface Ticked {
  lastWrite: number;
  /** Sends a keep-alive comment unless the answer has ended. */
  keepAlive(now: number): void;
  /** Where it is in its ticker's list. */
  tickerIndex: number;
}

/** The streams of one keep-alive interval: a list with O(1) removal (a `Set` rehashed as one stream a request came and went). */
interface Ticker {
  timer: NodeJS.Timeout;
  streams: Ticked[];
}

/**
 * One keep-alive timer per interval for every stream of the process, not
 * one per stream: making and clearing a timer per request cost more than
 * writing its events. Each tick sends a comment on the streams silent for
 * `keepAliveMs`; a ticker that finds no stream stops.
 */
const tickers = new Map<number, Ticker>();

function watchKeepAlive(stream: Ticked, keepAliveMs: number): Ticker {
  let ticker = tickers.get(keepAliveMs);
  if (!ticker) {
    const streams: Ticked[] = [];
    const timer = setInterval(
      () => {
        if (streams.length === 0) {
          // Idle for a whole interval: stopped (kept between streams, so back-to-back requests reuse it).
          clearInterval(timer);
          if (tickers.get(keepAliveMs)?.streams === streams) tickers.delete(keepAliveMs);
          return;
        }
        const now = Date.now();
        // From the end: a stream that leaves meanwhile moves the last one into its place.
        for (let i = streams.length - 1; i >= 0; i--) {
          const s = streams[i];
          if (s && now - s.lastWrite >= keepAliveMs) s.keepAlive(now);
        }
      },
      Math.max(1, Math.floor(keepAliveMs / 3)),
    );
    timer.unref();
    ticker = { timer, streams };
    tickers.set(keepAliveMs, ticker);
  }
  stream.tickerIndex = ticker.streams.length;
  ticker.streams.push(stream);
  return ticker;
}

function unwatchKeepAlive(stream: Ticked, ticker: Ticker): void {
  const { streams } = ticker;
  const at = stream.tickerIndex;
  if (streams[at] !== stream) return;
  const last = streams.pop() as Ticked;
  if (last !== stream) {
    streams[at] = last;
    last.tickerIndex = at;
  }
  stream.tickerIndex = -1;
}

/**
 * Text held back within one turn past this many UTF-16 units is written at
 * once (a task yielding a flood of events without ever waiting must not
 * grow the buffer: it then waits for the client like any other).
 */
const HOLD_LIMIT = 16 * 1024;

/**
 * Feeds a Node response from the events, with callbacks: one `then` per
 * event and no async function around it (whose awaits cost a promise and a
 * resumption each, a fair share of a small stream's allocations).
 *
 * The frames of one turn of the event loop are held and written together
 * at the end of its I/O phase (or at once past {@link HOLD_LIMIT}); the
 * head waits for the first write, so a stream that ends within its first
 * turn is answered with a `Content-Length` in one write, and one that does
 * not gets its head at the end of that turn. The next event is asked for
 * only while the client keeps up (backpressure): a slow client never makes
 * the server buffer without bound.
 */
class NodePump<T> implements Ticked, BatchedWriter {
  readonly #res: ServerResponse;
  readonly #options: SseResponseOptions<T>;
  readonly #head: readonly string[];
  /** `#head` is this stream's own list (a `Content-Length` may be added to it). */
  readonly #ownHead: boolean;
  readonly #iterator: AsyncIterator<T>;
  readonly #ticker: Ticker;
  lastWrite: number;
  tickerIndex = -1;
  /** Frames not yet written. */
  #held = '';
  /** Queued to write at the end of this turn's I/O (`writeAtEndOfIo`). */
  #batched = true;
  #headSent = false;
  /** Waiting for the client to take what was written before asking for more. */
  #draining = false;
  /** An `iterator.next()` is under way. */
  #pulling = false;
  #finished = false;

  constructor(res: ServerResponse, options: SseResponseOptions<T>, head: readonly string[], ownHead: boolean) {
    activeStreams.inc();
    this.#res = res;
    this.#options = options;
    this.#head = head;
    this.#ownHead = ownHead;
    this.#iterator = options.events[Symbol.asyncIterator]();
    this.lastWrite = Date.now();
    this.#ticker = watchKeepAlive(this, options.keepAliveMs ?? 15_000);
    // At the end of this turn (every promise job of it): the answer if the task has ended, else its head and first events.
    writeAtEndOfIo(this);
  }

  /**
   * The end of a turn in which this stream was started, produced events or
   * ended: the whole answer when it ended; otherwise the frames held, with
   * the head if it is not out yet. A stream that did not end within its
   * first turn is a long one: its head leaves then even without an event,
   * so a client sees the stream open while the task waits for its first.
   */
  writeBatched(): void {
    this.#batched = false;
    const res = this.#res;
    if (res.destroyed || res.writableEnded) return;
    try {
      if (this.#finished) this.#end();
      else if (this.#held !== '') this.#flush();
      else if (!this.#headSent) {
        this.#headSent = true;
        res.writeHead(200, this.#head as string[]);
        res.flushHeaders();
      }
    } catch (error) {
      this.#options.onError?.(error);
      res.destroy();
    }
  }

  #writeSoon(): void {
    if (this.#batched) return;
    this.#batched = true;
    writeAtEndOfIo(this);
  }

  /** Asks for the next event (the client having taken the previous ones). */
  readonly pull = (): void => {
    if (this.#res.destroyed) {
      this.#finish();
      return;
    }
    const iterator = this.#iterator;
    this.#pulling = true;
    try {
      // A task run's own callbacks when it has them: no promise per event.
      if (isCallbackIterator(iterator)) iterator.nextInto(this.#onNext, this.#fail);
      else iterator.next().then(this.#onNext, this.#fail);
    } catch (error) {
      this.#fail(error);
    }
  };

  readonly #onNext = (next: IteratorResult<T>): void => {
    this.#pulling = false;
    if (next.done || this.#res.destroyed) {
      this.#finish();
      return;
    }
    let frame: string;
    try {
      frame = frameOf(this.#options.encode, next.value);
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.lastWrite = Date.now();
    this.#held += frame;
    // The events the task produces within this turn leave together at its end.
    if (this.#held.length >= HOLD_LIMIT) this.#flush();
    else this.#writeSoon();
    if (!this.#draining) this.pull();
  };

  /** Writes the held frames (the head first, chunked, if not sent yet); past the buffer's limit, waits for the client. */
  #flush(): void {
    const res = this.#res;
    const text = this.#held;
    this.#held = '';
    if (res.destroyed) return;
    if (!this.#headSent) {
      this.#headSent = true;
      res.writeHead(200, this.#head as string[]);
    }
    if (!res.write(text) && !this.#draining) {
      this.#draining = true;
      void drained(res).then(() => this.#drained());
    }
  }

  #drained(): void {
    this.#draining = false;
    if (!this.#pulling && !this.#finished) this.pull();
  }

  keepAlive(now: number): void {
    if (this.#finished || this.#res.writableEnded || this.#res.destroyed) return;
    this.lastWrite = now;
    this.#held += KEEP_ALIVE;
    this.#flush();
  }

  readonly #fail = (error: unknown): void => {
    this.#pulling = false;
    this.#options.onError?.(error);
    this.#finish();
  };

  #finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    unwatchKeepAlive(this, this.#ticker);
    // Counted until the pump stops: the client went (the abort ends the events) or the answer ended.
    activeStreams.dec();
    const res = this.#res;
    if (res.destroyed) {
      this.#options.abort.abort(new Error('client disconnected'));
      void Promise.resolve(this.#iterator.return?.()).catch(() => undefined);
      return;
    }
    // The answer ends with the other writes of this turn.
    this.#writeSoon();
  }

  /** Ends the answer with what is held (from `writeBatched`, once the events have ended). */
  #end(): void {
    const res = this.#res;
    const text = this.#held;
    this.#held = '';
    if (this.#headSent) {
      res.end(text);
      return;
    }
    // Every event is here before anything was written: one answer of known length, in one write.
    this.#headSent = true;
    const head = (this.#ownHead ? this.#head : [...this.#head]) as string[];
    head.push('Content-Length', String(Buffer.byteLength(text)));
    res.writeHead(200, head);
    res.end(text);
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done).off('close', done);
      resolve();
    };
    res.once('drain', done).once('close', done);
  });
}

const encoder = new TextEncoder();

function webStream<T>(options: SseResponseOptions<T>): ReadableStream<Uint8Array> {
  const iterator = options.events[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined;
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        pending ??= iterator.next();
        let timer: NodeJS.Timeout | undefined;
        const keepAlive = new Promise<'keep-alive'>((resolve) => {
          timer = setTimeout(() => resolve('keep-alive'), keepAliveMs);
          timer.unref();
        });
        try {
          const next = await Promise.race([pending, keepAlive]);
          if (next === 'keep-alive') {
            controller.enqueue(encoder.encode(KEEP_ALIVE));
            return;
          }
          pending = undefined;
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(frameOf(options.encode, next.value)));
        } catch (error) {
          options.onError?.(error);
          controller.error(error);
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        options.abort.abort(reason ?? new Error('client disconnected'));
        void Promise.resolve(iterator.return?.()).catch(() => undefined);
      },
    },
    { highWaterMark: 0 },
  );
}
