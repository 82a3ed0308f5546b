import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { nodeBindings } from './node-bindings.js';
import { encodeSseComment, encodeSseEvent, SSE_HEADERS, type SseEvent } from './sse.js';
import { gauge } from '../telemetry/service-metrics.js';

export interface SseResponseOptions<T> {
  events: AsyncIterable<T>;
  /** Turns one item of `events` into the SSE event sent for it. */
  encode: (item: T) => SseEvent;
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

/** The Node side of {@link sseResponse}: writes the head, then the events as they come, on Node's own response. */
export function streamSseToNode<T>(res: ServerResponse, options: SseResponseOptions<T>): void {
  res.writeHead(200, options.headers ? { ...SSE_HEADERS, ...options.headers } : SSE_HEADERS);
  void pumpToNode(res, options);
}

/** Event streams open now, on every server of this process (/metrics; 0 until the first). */
const activeStreams = gauge('sse_streams_active', 'Server-sent event streams open now.');

async function pumpToNode<T>(res: ServerResponse, options: SseResponseOptions<T>): Promise<void> {
  activeStreams.inc();
  res.once('close', () => activeStreams.dec());
  const iterator = options.events[Symbol.asyncIterator]();
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  let lastWrite = Date.now();
  // One timer per stream (not per event): a comment goes out after keepAliveMs of silence.
  const keepAlive = setInterval(
    () => {
      if (Date.now() - lastWrite >= keepAliveMs && !res.writableEnded) {
        lastWrite = Date.now();
        res.write(KEEP_ALIVE);
      }
    },
    Math.max(1, Math.floor(keepAliveMs / 3)),
  );
  keepAlive.unref();
  let corked = false;
  try {
    while (!res.destroyed) {
      const next = await iterator.next();
      if (next.done || res.destroyed) break;
      lastWrite = Date.now();
      // Events produced in the same tick leave in one packet.
      if (!corked) {
        corked = true;
        res.cork();
        process.nextTick(() => {
          corked = false;
          res.uncork();
        });
      }
      if (!res.write(encodeSseEvent(options.encode(next.value)))) await drained(res);
    }
  } catch (error) {
    options.onError?.(error);
  } finally {
    clearInterval(keepAlive);
    if (res.destroyed) {
      options.abort.abort(new Error('client disconnected'));
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
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
          else controller.enqueue(encoder.encode(encodeSseEvent(options.encode(next.value))));
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
