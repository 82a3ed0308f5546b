import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { nodeBindings } from './node-bindings.js';
import { encodeSseComment, encodeSseEvent, SSE_HEADERS, type SseEvent } from './sse.js';
import { gauge } from '../telemetry/service-metrics.js';

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
    return RESPONSE_ALREADY_SENT;
  }
  return new Response(webStream(options), { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}

/** {@link SSE_HEADERS} as the flat list `writeHead` takes without copying. */
const SSE_HEADER_LIST: readonly string[] = Object.entries(SSE_HEADERS).flat();

/** The Node side of {@link sseResponse}: writes the head, then the events as they come, on Node's own response. */
export function streamSseToNode<T>(res: ServerResponse, options: SseResponseOptions<T>): void {
  let head = SSE_HEADER_LIST;
  if (options.headers) {
    const list = [...SSE_HEADER_LIST];
    for (const name in options.headers) list.push(name, options.headers[name] as string);
    head = list;
  }
  res.writeHead(200, head as string[]);
  new NodePump(res, options).pull();
}

function frameOf<T>(encode: (item: T) => SseEvent | string, item: T): string {
  const encoded = encode(item);
  return typeof encoded === 'string' ? encoded : encodeSseEvent(encoded);
}

/** Event streams open now, on every server of this process (/metrics; 0 until the first). */
const activeStreams = gauge('sse_streams_active', 'Server-sent event streams open now.');

/** An open stream as the keep-alive ticker sees it. */
interface Ticked {
  res: ServerResponse;
  lastWrite: number;
}

/**
 * One keep-alive timer per interval for every stream of the process, not
 * one per stream: making and clearing a timer per request cost more than
 * writing its events. Each tick sends a comment on the streams silent for
 * `keepAliveMs`; a ticker that finds no stream stops.
 */
const tickers = new Map<number, { timer: NodeJS.Timeout; streams: Set<Ticked> }>();

function watchKeepAlive(stream: Ticked, keepAliveMs: number): () => void {
  let ticker = tickers.get(keepAliveMs);
  if (!ticker) {
    const streams = new Set<Ticked>();
    const timer = setInterval(
      () => {
        if (streams.size === 0) {
          // Idle for a whole interval: stopped (kept between streams, so back-to-back requests reuse it).
          clearInterval(timer);
          if (tickers.get(keepAliveMs)?.streams === streams) tickers.delete(keepAliveMs);
          return;
        }
        const now = Date.now();
        for (const s of streams) {
          if (now - s.lastWrite >= keepAliveMs && !s.res.writableEnded) {
            s.lastWrite = now;
            s.res.write(KEEP_ALIVE);
          }
        }
      },
      Math.max(1, Math.floor(keepAliveMs / 3)),
    );
    timer.unref();
    ticker = { timer, streams };
    tickers.set(keepAliveMs, ticker);
  }
  const { streams } = ticker;
  streams.add(stream);
  return () => streams.delete(stream);
}

/**
 * Feeds a Node response from the events, with callbacks: one `then` per
 * event and no async function around it (whose awaits cost a promise and a
 * resumption each, a fair share of a small stream's allocations).
 */
class NodePump<T> {
  readonly #res: ServerResponse;
  readonly #options: SseResponseOptions<T>;
  readonly #iterator: AsyncIterator<T>;
  readonly #stream: Ticked;
  readonly #unwatch: () => void;
  #corked = false;

  constructor(res: ServerResponse, options: SseResponseOptions<T>) {
    activeStreams.inc();
    this.#res = res;
    this.#options = options;
    this.#iterator = options.events[Symbol.asyncIterator]();
    this.#stream = { res, lastWrite: Date.now() };
    this.#unwatch = watchKeepAlive(this.#stream, options.keepAliveMs ?? 15_000);
  }

  /** Asks for the next event (the client having taken the previous ones). */
  readonly pull = (): void => {
    if (this.#res.destroyed) {
      this.#finish();
      return;
    }
    let next: Promise<IteratorResult<T>>;
    try {
      next = this.#iterator.next();
    } catch (error) {
      this.#fail(error);
      return;
    }
    next.then(this.#onNext, this.#fail);
  };

  readonly #onNext = (next: IteratorResult<T>): void => {
    const res = this.#res;
    if (next.done || res.destroyed) {
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
    this.#stream.lastWrite = Date.now();
    // Events produced in the same tick leave in one packet.
    if (!this.#corked) {
      this.#corked = true;
      res.cork();
      process.nextTick(this.#uncork);
    }
    if (res.write(frame)) this.pull();
    else void drained(res).then(this.pull);
  };

  readonly #uncork = (): void => {
    this.#corked = false;
    this.#res.uncork();
  };

  readonly #fail = (error: unknown): void => {
    this.#options.onError?.(error);
    this.#finish();
  };

  #finish(): void {
    this.#unwatch();
    // Counted until the pump stops: the client went (the abort ends the events) or the answer ended.
    activeStreams.dec();
    const res = this.#res;
    if (res.destroyed) {
      this.#options.abort.abort(new Error('client disconnected'));
      void Promise.resolve(this.#iterator.return?.()).catch(() => undefined);
    } else {
      res.end();
    }
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
