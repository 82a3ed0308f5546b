import { encodeSseComment, encodeSseEvent, SSE_HEADERS, type SseEvent } from './sse.js';

export interface SseResponseOptions {
  events: AsyncIterable<SseEvent>;
  /** Aborted when the client goes away, so the work behind `events` stops. */
  abort: AbortController;
  /** A comment line is sent after this much silence; default 15 s. */
  keepAliveMs?: number;
  headers?: Record<string, string>;
}

const encoder = new TextEncoder();

/**
 * A `text/event-stream` response fed from an async iterable. The stream is
 * pull-based: the next event is produced only when the client has taken the
 * previous one, so a slow client never makes the server buffer unboundedly.
 */
export function sseResponse(options: SseResponseOptions): Response {
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  const iterator = options.events[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<SseEvent>> | undefined;

  const stream = new ReadableStream<Uint8Array>(
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
            controller.enqueue(encoder.encode(encodeSseComment('keep-alive')));
            return;
          }
          pending = undefined;
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(encodeSseEvent(next.value)));
        } catch (error) {
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

  return new Response(stream, { status: 200, headers: { ...SSE_HEADERS, ...options.headers } });
}
