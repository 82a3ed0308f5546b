/**
 * Decision events uploaded to a service as OPA's decision log plugin uploads
 * them (`plugins/logs`): events wait in a bounded buffer (the oldest dropped
 * past `buffer_size_limit_events` / `buffer_size_limit_bytes`), and every
 * `min_delay_seconds` to `max_delay_seconds` they are POSTed as
 * gzip-compressed JSON arrays (`Content-Encoding: gzip`), each upload at most
 * `upload_size_limit_bytes` compressed. A failed upload puts its events back
 * for the next round; an event too large to upload alone is dropped. On close
 * what is left is uploaded once more.
 */
import { silentLogger, type Logger } from '../../core/logger.js';
import type { DecisionUploadConfig } from './bundle-config.js';
import { gzipText } from './gunzip-within.js';

export interface DecisionUploaderOptions {
  config: DecisionUploadConfig;
  logger?: Logger;
  /** An upload slower than this is abandoned and retried (default 30 s). */
  timeoutMs?: number;
  /** Where `console: true` events go (default standard output). */
  console?: (line: string) => void;
}

/** How long the upload on stop may take. */
const STOP_TIMEOUT_MS = 5000;

export class DecisionUploader {
  readonly #config: DecisionUploadConfig;
  readonly #logger: Logger;
  readonly #timeoutMs: number;
  readonly #console: (line: string) => void;
  /** Events waiting, as JSON text, oldest first. */
  #buffer: string[] = [];
  #bufferBytes = 0;
  #dropped = 0;
  #timer: NodeJS.Timeout | undefined;
  #uploading: Promise<void> | undefined;
  #stopped = false;

  constructor(options: DecisionUploaderOptions) {
    this.#config = options.config;
    this.#logger = options.logger ?? silentLogger;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#console = options.console ?? ((line) => process.stdout.write(`${line}\n`));
  }

  /** Events waiting for an upload. */
  get pending(): number {
    return this.#buffer.length;
  }

  /** Takes one decision event (a JSON object as text). */
  push(event: string): void {
    if (this.#config.console) this.#console(event);
    if (this.#config.url === undefined) return;
    this.#buffer.push(event);
    this.#bufferBytes += Buffer.byteLength(event);
    this.#trim();
  }

  /** Drops the oldest events past the buffer's limits, counting them for the next log line. */
  #trim(): void {
    const maxBytes = this.#config.bufferSizeLimitBytes ?? Infinity;
    while (this.#buffer.length > this.#config.bufferSizeLimitEvents || (this.#bufferBytes > maxBytes && this.#buffer.length > 0)) {
      this.#bufferBytes -= Buffer.byteLength(this.#buffer.shift() as string);
      this.#dropped++;
    }
  }

  /** Uploads every min..max delay until stopped. */
  start(): void {
    if (this.#config.url === undefined) return;
    const next = () => {
      if (this.#stopped) return;
      const { minDelaySeconds: min, maxDelaySeconds: max } = this.#config;
      this.#timer = setTimeout(() => void this.flush().finally(next), (min + Math.random() * (max - min)) * 1000);
      this.#timer.unref();
    };
    next();
  }

  /** Stops the timer and uploads what is left, once. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.flush();
  }

  /** Uploads the buffered events now (one round at a time); resolves when the round is over, uploaded or not. */
  flush(): Promise<void> {
    if (this.#uploading) return this.#uploading;
    this.#uploading = this.#upload().finally(() => (this.#uploading = undefined));
    return this.#uploading;
  }

  async #upload(): Promise<void> {
    if (this.#dropped > 0) {
      this.#logger.warn('decision events dropped: the upload buffer is full (upload more often or raise the buffer limit)', { dropped: this.#dropped });
      this.#dropped = 0;
    }
    const url = this.#config.url;
    if (url === undefined || this.#buffer.length === 0) return;
    const events = this.#buffer;
    this.#buffer = [];
    this.#bufferBytes = 0;
    const chunks = await this.#chunks(events);
    for (const [i, chunk] of chunks.entries()) {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { ...this.#config.headers, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
          body: new Uint8Array(chunk.body),
          // On stop the last upload gets a few seconds, not the whole timeout: a dead service does not hold a shutdown.
          signal: AbortSignal.timeout(this.#stopped ? Math.min(STOP_TIMEOUT_MS, this.#timeoutMs) : this.#timeoutMs),
        });
        await res.body?.cancel();
        if (res.status < 200 || res.status >= 300) throw new Error(`the log service answered ${res.status}`);
      } catch (error) {
        // Not uploaded: this chunk and the ones after it wait for the next round, before newer events.
        const back = chunks.slice(i).flatMap((c) => c.events);
        this.#buffer = [...back, ...this.#buffer];
        this.#bufferBytes = this.#buffer.reduce((n, e) => n + Buffer.byteLength(e), 0);
        this.#trim();
        this.#logger.warn('decision log upload failed; the events wait for the next upload', { url, error: (error as Error).message, events: back.length });
        return;
      }
    }
  }

  /** The events as gzip-compressed JSON arrays of at most `uploadSizeLimitBytes` each, halved until they fit. */
  async #chunks(events: readonly string[]): Promise<Array<{ events: readonly string[]; body: Buffer }>> {
    const limit = this.#config.uploadSizeLimitBytes;
    const body = await gzipText(`[${events.join(',')}]`);
    if (body.length <= limit) return [{ events, body }];
    if (events.length === 1) {
      this.#logger.warn('decision event dropped: larger than the upload size limit on its own', { bytes: body.length, limit });
      return [];
    }
    const half = Math.ceil(events.length / 2);
    return [...(await this.#chunks(events.slice(0, half))), ...(await this.#chunks(events.slice(half)))];
  }
}
