/**
 * Status reports uploaded as OPA's status plugin sends them (`plugins/status`):
 * a JSON `POST <service>/status` of what `/v1/status` answers (labels,
 * bundles, plugins, metrics) when the server starts and after every bundle
 * download that activated or was refused. Reports asked for while one is on
 * its way are sent as one, with the latest status; a failed report is logged
 * and the next change sends the status again.
 */
import { silentLogger, type Logger } from '../../core/logger.js';
import type { StatusUploadConfig } from './bundle-config.js';

export interface StatusUploaderOptions {
  config: StatusUploadConfig;
  /** The status as `/v1/status` answers it (its `result`). */
  report: () => Record<string, unknown>;
  logger?: Logger;
  timeoutMs?: number;
  /** Where `console: true` reports go (default standard output). */
  console?: (line: string) => void;
}

export class StatusUploader {
  readonly #options: StatusUploaderOptions;
  readonly #logger: Logger;
  #sending: Promise<void> | undefined;
  #again = false;

  constructor(options: StatusUploaderOptions) {
    this.#options = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Sends the current status (coalesced with a report already on its way); resolves when it is sent or failed. */
  update(): Promise<void> {
    if (this.#sending) {
      this.#again = true;
      return this.#sending;
    }
    this.#sending = this.#send().finally(() => {
      this.#sending = undefined;
      if (this.#again) {
        this.#again = false;
        void this.update();
      }
    });
    return this.#sending;
  }

  async #send(): Promise<void> {
    const { config } = this.#options;
    const text = JSON.stringify(this.#options.report());
    if (config.console) (this.#options.console ?? ((line) => process.stdout.write(`${line}\n`)))(text);
    if (config.url === undefined) return;
    try {
      const res = await fetch(config.url, {
        method: 'POST',
        headers: { ...config.headers, 'Content-Type': 'application/json' },
        body: text,
        signal: AbortSignal.timeout(this.#options.timeoutMs ?? 30_000),
      });
      await res.body?.cancel();
      if (res.status < 200 || res.status >= 300) throw new Error(`the status service answered ${res.status}`);
    } catch (error) {
      this.#logger.warn('status upload failed', { url: config.url, error: (error as Error).message });
    }
  }
}
