import { ModelRequestError } from './model-request-error.js';

/** Ollama's default: a model stays loaded 5 minutes after its last request. */
export const DEFAULT_KEEP_ALIVE_MS = 5 * 60_000;

const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const DURATION = /^[-+]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;

/**
 * A `keep_alive` as Ollama reads it, in milliseconds: a number is seconds, a
 * string is a Go duration (`"10m"`, `"1h30m"`, `"30s"`, `"0"`); a negative value
 * keeps the model loaded forever (`Infinity`); 0 unloads it right after the request.
 * `undefined` gives `fallback`. Anything else is a 400.
 *
 * @example
 * parseKeepAlive('10m', DEFAULT_KEEP_ALIVE_MS); // 600000
 * parseKeepAlive(-1, DEFAULT_KEEP_ALIVE_MS);    // Infinity
 */
export function parseKeepAlive(value: string | number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalid(String(value));
    return value < 0 ? Infinity : value * 1000;
  }
  const text = value.trim();
  if (/^[-+]?0+$/.test(text)) return 0;
  if (!DURATION.test(text)) throw invalid(value);
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(PART)) ms += Number(amount) * UNITS[unit!]!;
  return text.startsWith('-') ? Infinity : ms;
}

function invalid(value: string): ModelRequestError {
  return new ModelRequestError({
    status: 400,
    message: `invalid keep_alive ${JSON.stringify(value)}: use seconds (a number) or a duration such as "5m", "1h", "30s"`,
  });
}

interface Entry {
  active: number;
  ms: number;
  expiresAt: Date;
  timer?: NodeJS.Timeout;
}

/** The furthest `expires_at` shown for a model kept forever. */
const FOREVER = new Date('9999-12-31T23:59:59Z');

/**
 * Unloads each model when its keep-alive runs out after its last request.
 * A request calls `begin` when it starts and `end` when it settles; the timer
 * starts once no request is running and is reset by the next one. Timers are
 * `unref()`'d, so they never keep the process alive.
 *
 * @example
 * const keepAlive = new KeepAliveTimers({ onExpire: (name) => void engines.get(name)?.unload() });
 * keepAlive.begin('smollm2', 60_000); await work(); keepAlive.end('smollm2', 60_000);
 */
export class KeepAliveTimers {
  readonly #entries = new Map<string, Entry>();
  readonly #onExpire: (name: string) => void;

  constructor(options: { onExpire: (name: string) => void }) {
    this.#onExpire = options.onExpire;
  }

  /** A request for `name` started; it holds the model until `end`. */
  begin(name: string, ms: number): void {
    const entry = this.#entries.get(name) ?? { active: 0, ms, expiresAt: expiry(ms) };
    clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.active += 1;
    entry.ms = ms;
    entry.expiresAt = expiry(ms);
    this.#entries.set(name, entry);
  }

  /** A request for `name` settled; with none left, the model unloads `ms` from now (0: the caller unloads it). */
  end(name: string, ms: number): void {
    const entry = this.#entries.get(name);
    if (!entry) return;
    entry.active = Math.max(0, entry.active - 1);
    entry.ms = ms;
    entry.expiresAt = expiry(ms);
    if (entry.active > 0) return;
    if (ms === 0) {
      this.#entries.delete(name);
      return;
    }
    if (ms === Infinity) return;
    entry.timer = setTimeout(
      () => {
        this.#entries.delete(name);
        this.#onExpire(name);
      },
      Math.min(ms, 2 ** 31 - 1),
    );
    entry.timer.unref();
  }

  /** When the model unloads, as Ollama's `expires_at`; undefined when no keep-alive is known. */
  expiresAt(name: string): string | undefined {
    return this.#entries.get(name)?.expiresAt.toISOString();
  }

  /** Forgets `name` (it was unloaded some other way). */
  clear(name: string): void {
    clearTimeout(this.#entries.get(name)?.timer);
    this.#entries.delete(name);
  }

  /** Stops every timer. */
  close(): void {
    for (const name of [...this.#entries.keys()]) this.clear(name);
  }
}

function expiry(ms: number): Date {
  return ms === Infinity ? FOREVER : new Date(Date.now() + ms);
}
