import { silentLogger, type Logger } from '../core/logger.js';
import { createBaseApp } from '../core/server/base-app.js';
import { listen, type Listening } from '../core/server/listen.js';
import { checkLoopbackListen } from '../core/server/loopback.js';
import { readJsonBody } from '../core/server/read-json-body.js';
import { spansFromOtlpJson } from './otlp-json.js';
import type { TraceStore } from './trace-store.js';

/** Largest export accepted; the SDK's batches (512 spans) stay well under it. */
const MAX_EXPORT_BYTES = 8 * 1024 * 1024;

/**
 * The stack's own OTLP/HTTP receiver (JSON encoding), run by the supervisor on
 * a loopback port (or, in a containers stack, by `serve traces` on the
 * Compose network): `POST /v1/traces` appends the spans to the trace store.
 * Loopback unless `allowRemote`, since whoever can post here can write into the store.
 *
 * @example
 * const receiver = await startTraceReceiver({ store: new TraceStore({ root }) });
 * // children get FRAMEWORK_TRACES_URL=receiver.tracesUrl
 */
export async function startTraceReceiver(options: {
  store: TraceStore;
  logger?: Logger;
  /** Default 127.0.0.1 and a free port. */
  host?: string;
  port?: number;
  allowRemote?: boolean;
}): Promise<Listening & { tracesUrl: string }> {
  const host = options.host ?? '127.0.0.1';
  checkLoopbackListen({ service: 'The trace receiver', host, allowRemote: options.allowRemote ?? false, option: '--allow-remote' });
  const logger = options.logger ?? silentLogger;
  const app = createBaseApp({ logger });
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.post('/v1/traces', async (c) => {
    // OTLP/HTTP JSON only (the exporter the services use for it); protobuf is refused with a 415 saying so.
    const body = await readJsonBody(c, { maxBytes: MAX_EXPORT_BYTES });
    const spans = spansFromOtlpJson(body);
    options.store.append(spans);
    return c.json({});
  });
  const listening = await listen(app, { host, port: options.port ?? 0 });
  return { ...listening, tracesUrl: `${listening.url}/v1/traces`, close: () => listening.close() };
}
