import { EventSource } from 'eventsource';

export interface ReceivedEvent {
  event: string;
  data: string;
}

export interface StreamOptions {
  body: unknown;
  headers?: Record<string, string>;
  /** Stop after this event name arrives (the stream is closed by us). */
  until?: (event: ReceivedEvent) => boolean;
  /** Event names to listen for besides the default `message`. */
  events?: readonly string[];
  timeoutMs?: number;
}

// `error` is handled below: EventSource uses that name for connection errors too.
const DEFAULT_EVENTS = ['status', 'result', 'text', 'input_required'];

/**
 * POSTs to an SSE endpoint through the real `eventsource` client (its
 * `fetch` option carries the method and body) and collects the events until
 * the server ends the stream. The response status and headers are kept.
 */
export function collectSse(url: string, options: StreamOptions): Promise<{ events: ReceivedEvent[]; status: number; headers: Headers }> {
  return new Promise((resolve, reject) => {
    const events: ReceivedEvent[] = [];
    let status = 0;
    let headers = new Headers();
    let settled = false;
    const source = new EventSource(url, {
      fetch: async (input, init) => {
        const response = await fetch(input, {
          ...init,
          method: 'POST',
          body: JSON.stringify(options.body),
          headers: { ...init.headers, 'Content-Type': 'application/json', ...options.headers },
        });
        status = response.status;
        headers = response.headers;
        return response;
      },
    });
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      source.close();
      if (error) reject(error);
      else resolve({ events, status, headers });
    };
    const timer = setTimeout(() => finish(new Error(`SSE stream from ${url} did not end in time`)), options.timeoutMs ?? 10_000);
    for (const name of [...DEFAULT_EVENTS, ...(options.events ?? []), 'message']) {
      source.addEventListener(name, (message) => {
        const received = { event: name, data: message.data };
        events.push(received);
        if (options.until?.(received)) finish();
      });
    }
    // The server ends the stream when the task is done; EventSource reports
    // that as an error before reconnecting. We do not reconnect.
    source.addEventListener('error', (error) => {
      const data = (error as { data?: unknown }).data;
      if (typeof data === 'string') {
        // A server-sent `event: error` (a MessageEvent with data), not a connection error.
        const received = { event: 'error', data };
        events.push(received);
        if (options.until?.(received)) finish();
        return;
      }
      if (status !== 0 && status !== 200) finish();
      else if (events.length > 0 || status === 200) finish();
      else finish(new Error(`SSE connection failed: ${String((error as { message?: string }).message ?? error)}`));
    });
  });
}
