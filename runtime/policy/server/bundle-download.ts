/**
 * Bundles downloaded from a bundle server, as OPA's bundle plugin polls
 * them: every `min_delay_seconds` to `max_delay_seconds` (a random delay
 * between, so servers are not hit in step), with `If-None-Match` and the
 * last ETag (a 304 changes nothing). A download is activated only whole:
 * read within bounds, verified when signing is configured, free of root
 * problems, and compiled with everything else; otherwise the active bundle
 * keeps serving and the error is kept for /v1/status and /health?bundles.
 * A delta bundle (`patch.json`) patches the active bundle's data instead.
 *
 * Long polling (`polling.long_polling_timeout_seconds`), as OPA's downloader:
 * every request says `Prefer: modes=snapshot,delta` and, while long polling,
 * `;wait=N`; a server that long-polls holds the request until the bundle
 * changes or N seconds pass (then 304) and answers bundles with the content
 * type `application/vnd.openpolicyagent.bundles`. After such an answer the
 * next request goes out at once; an answer with another content type turns
 * long polling off (periodic polling from then on), a failure waits the
 * polling delay. A held request is bounded (N seconds plus the download
 * timeout) and `stop` aborts it.
 *
 * With `persist: true` the last snapshot activated is kept on disk and read
 * at start (`loadPersisted`), verified as a download (see bundle-persistence.ts).
 */
import { silentLogger, type Logger } from '../../core/logger.js';
import { BundleReadError, DEFAULT_BUNDLE_LIMITS, readBundleArchive, type BundleLimits } from './bundle-archive.js';
import type { RemoteBundleConfig } from './bundle-config.js';
import { BundleSignatureError, verificationKey, type VerificationKey } from './bundle-signature.js';
import { bundleFromEntries, type LoadedBundle } from './bundle.js';
import { DeltaBundleError } from './bundle-delta.js';
import { applyDelta } from './delta-activation.js';
import { PersistedBundle, PersistedBundleError } from './bundle-persistence.js';

/** Where the policy store finds a bundle to serve. */
export interface BundleSource {
  readonly name: string;
  /** The bundle to serve now; undefined while none was activated (the first download has not arrived). */
  load(): Promise<LoadedBundle | undefined>;
  /** The latest download or activation that failed, kept until one succeeds. */
  readonly lastError?: { at: Date; message: string } | undefined;
}

export interface BundleDownloaderOptions {
  /**
   * Compiles the served set again (with this bundle's new candidate); resolves to whether it now serves,
   * or to why not (a string: the refusal's message).
   */
  activate: () => Promise<boolean | string>;
  v0Compatible?: boolean;
  limits?: BundleLimits;
  logger?: Logger;
  /** A download slower than this is abandoned (default 30 s). */
  timeoutMs?: number;
  /** Called after a download was activated or refused (not after a 304): the status changed. */
  onStatusChange?: () => void;
}

/** OPA's content type for bundles from a server that long-polls. */
export const LONG_POLL_CONTENT_TYPE = 'application/vnd.openpolicyagent.bundles';

/** Between two long-poll requests (OPA sends the next at once; this keeps a server answering 304 at once from spinning us). */
const LONG_POLL_GAP_MS = 100;

export class BundleDownloader implements BundleSource {
  readonly name: string;
  readonly #config: RemoteBundleConfig;
  readonly #options: BundleDownloaderOptions;
  readonly #verification: VerificationKey | undefined;
  readonly #limits: BundleLimits;
  readonly #logger: Logger;
  #active: LoadedBundle | undefined;
  #etag: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** Whether the next request asks the server to wait (OPA's `longPollingEnabled`). */
  #longPoll: boolean;
  /** Whether the last poll failed (it then waits the polling delay even while long polling). */
  #failed = false;
  #inFlight: AbortController | undefined;
  readonly #persisted: PersistedBundle | undefined;
  /** Whether the active bundle is the persisted one read at start (no download activated since). */
  #fromDisk = false;
  lastError: { at: Date; message: string } | undefined;
  lastSuccessfulDownload: Date | undefined;

  constructor(config: RemoteBundleConfig, options: BundleDownloaderOptions) {
    this.name = config.name;
    this.#config = config;
    this.#options = options;
    // A key that cannot be used is a start-up error, not a refusal of every download.
    this.#verification = config.verification ? verificationKey(config.verification) : undefined;
    this.#limits = options.limits ?? DEFAULT_BUNDLE_LIMITS;
    this.#logger = options.logger ?? silentLogger;
    this.#longPoll = config.longPollingTimeoutSeconds !== undefined;
    this.#persisted =
      config.persistDirectory === undefined
        ? undefined
        : new PersistedBundle({ directory: config.persistDirectory, name: config.name, maxBytes: this.#limits.maxArchiveBytes });
  }

  load(): Promise<LoadedBundle | undefined> {
    return Promise.resolve(this.#active);
  }

  /** Polls now and then every min..max delay (at once after a long-poll answer) until stopped. */
  start(): void {
    const next = () => {
      if (this.#stopped) return;
      const { minDelaySeconds: min, maxDelaySeconds: max } = this.#config;
      const delayMs = this.#longPoll && !this.#failed ? LONG_POLL_GAP_MS : (min + Math.random() * (max - min)) * 1000;
      this.#timer = setTimeout(() => void this.poll().finally(next), delayMs);
      this.#timer.unref();
    };
    void this.poll().finally(next);
  }

  /** Stops polling and aborts a request in flight (a held long poll included). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#inFlight?.abort(new Error('the bundle downloader stopped'));
  }

  /** One download: true when a new bundle was activated, false when nothing changed or it was refused (see `lastError`). */
  async poll(): Promise<boolean> {
    if (this.#stopped) return false;
    let bytes: Buffer;
    let etag: string | null;
    const wait = this.#longPoll ? this.#config.longPollingTimeoutSeconds : undefined;
    const controller = new AbortController();
    this.#inFlight = controller;
    try {
      // A held request may take the whole wait before its answer starts; the download timeout comes on top.
      const timeoutMs = (this.#options.timeoutMs ?? 30_000) + (wait ?? 0) * 1000;
      const res = await fetch(this.#config.url, {
        headers: {
          ...this.#config.headers,
          ...(this.#etag === undefined ? {} : { 'If-None-Match': this.#etag }),
          Prefer: wait === undefined ? 'modes=snapshot,delta' : `modes=snapshot,delta;wait=${wait}`,
        },
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)]),
        redirect: 'follow',
      });
      if (res.status === 304) {
        await res.body?.cancel();
        this.#failed = false;
        return false;
      }
      if (res.status !== 200) {
        await res.body?.cancel();
        return this.#refuse(`bundle server answered ${res.status} for ${this.#config.url}`);
      }
      // As OPA: long polling goes on while the server answers with its bundle content type.
      const contentType = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
      this.#longPoll = this.#config.longPollingTimeoutSeconds !== undefined && contentType === LONG_POLL_CONTENT_TYPE;
      etag = res.headers.get('etag');
      bytes = await readLimited(res, this.#limits.maxArchiveBytes);
    } catch (error) {
      if (this.#stopped) return false;
      return this.#refuse(`bundle download from ${this.#config.url} failed: ${(error as Error).message}`);
    } finally {
      if (this.#inFlight === controller) this.#inFlight = undefined;
    }
    if (this.#stopped) return false;
    let candidate: LoadedBundle;
    try {
      candidate = await this.#read(bytes);
    } catch (error) {
      if (error instanceof BundleReadError || error instanceof BundleSignatureError) return this.#refuse(error.message);
      throw error;
    }
    if (candidate.files.problems.length > 0) return this.#refuse(problemsOf(candidate));
    const previous = this.#active;
    const snapshot = candidate.delta === undefined;
    if (candidate.delta !== undefined) {
      // A delta bundle patches the active bundle's data (a copy: the active one serves until the result compiles).
      try {
        candidate = applyDelta(this.name, previous, candidate, candidate.delta);
      } catch (error) {
        if (error instanceof DeltaBundleError) return this.#refuse(error.message);
        throw error;
      }
    }
    this.#active = candidate;
    const activated = await this.#options.activate();
    if (activated !== true) {
      // The set did not compile with it: the active bundle stays (the store keeps serving the last good set meanwhile).
      this.#active = previous;
      await this.#options.activate();
      return this.#refuse(
        typeof activated === 'string' ? activated : 'the downloaded bundle does not compile with the other policies; see the policy server log',
      );
    }
    this.#fromDisk = false;
    this.#failed = false;
    this.lastError = undefined;
    this.lastSuccessfulDownload = new Date();
    this.#logger.info('bundle activated', { bundle: this.name, revision: candidate.info.revision, type: candidate.info.type ?? 'snapshot' });
    // As OPA: only a snapshot is persisted (after a delta the file keeps the snapshot it patched). A write that
    // fails is an error in the status and keeps the old ETag, so the next poll downloads (and persists) again.
    if (this.#persisted !== undefined && snapshot) {
      try {
        await this.#persisted.write(bytes);
      } catch (error) {
        if (!(error instanceof PersistedBundleError)) throw error;
        this.lastError = { at: new Date(), message: `persisting the bundle failed: ${error.message}` };
        this.#logger.warn('bundle activated but not persisted', { bundle: this.name, error: error.message });
        this.#options.onStatusChange?.();
        return true;
      }
    }
    this.#etag = etag ?? undefined;
    this.#options.onStatusChange?.();
    return true;
  }

  /**
   * Reads the persisted bundle (`persist: true`), read and verified as a download is, so it serves from the
   * start (call before the first compile). Refused (forged, unsigned while `signing` is set, unreadable, a
   * link, too large), it is not served and the reason is in `lastError`. True when it is to be served.
   */
  async loadPersisted(): Promise<boolean> {
    const persisted = this.#persisted;
    if (persisted === undefined) return false;
    let candidate: LoadedBundle;
    try {
      const bytes = await persisted.read();
      if (bytes === undefined) return false;
      candidate = await this.#read(bytes);
    } catch (error) {
      if (error instanceof PersistedBundleError || error instanceof BundleReadError || error instanceof BundleSignatureError) {
        return this.#refuse(`persisted bundle ${persisted.path}: ${error.message}`, { notify: false });
      }
      throw error;
    }
    const refusal =
      candidate.files.problems.length > 0 ? problemsOf(candidate) : candidate.delta !== undefined ? 'a delta bundle (only snapshots are persisted)' : undefined;
    if (refusal !== undefined) return this.#refuse(`persisted bundle ${persisted.path}: ${refusal}`, { notify: false });
    this.#active = candidate;
    this.#fromDisk = true;
    this.#logger.info('persisted bundle loaded', { bundle: this.name, revision: candidate.info.revision, path: persisted.path });
    return true;
  }

  /** Stops serving the persisted bundle loaded at start (it did not compile with the other policies, or `reason`). */
  dropPersisted(reason = 'it does not compile with the other policies; see the policy server log'): void {
    if (!this.#fromDisk) return;
    this.#active = undefined;
    this.#fromDisk = false;
    this.#refuse(`persisted bundle ${this.#persisted?.path ?? ''}: ${reason}`, { notify: false });
  }

  /** The bundle served now (as `load`). */
  get active(): LoadedBundle | undefined {
    return this.#active;
  }

  /** The configuration it downloads with. */
  get config(): RemoteBundleConfig {
    return this.#config;
  }

  /** A downloaded or persisted archive read within the bounds and verified when signing is configured. */
  #read(bytes: Buffer): Promise<LoadedBundle> {
    return readBundleArchive(bytes, this.#limits).then((entries) =>
      bundleFromEntries(this.name, entries, {
        ...(this.#verification ? { verification: this.#verification } : {}),
        v0Compatible: this.#options.v0Compatible === true,
      }),
    );
  }

  /** Records why a bundle was not activated; `notify: false` before the server runs (the first status report has it). */
  #refuse(message: string, { notify = true }: { notify?: boolean } = {}): false {
    this.#failed = true;
    this.lastError = { at: new Date(), message };
    this.#logger.warn('bundle not activated; the active one keeps serving', { bundle: this.name, error: message });
    if (notify) this.#options.onStatusChange?.();
    return false;
  }
}

function problemsOf(bundle: LoadedBundle): string {
  return bundle.files.problems.map((p) => `${p.file}: ${p.message}`).join('; ');
}

/** A response body read whole within `maxBytes` (a larger one is abandoned as it arrives, not after). */
async function readLimited(res: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (declared > maxBytes) {
    await res.body?.cancel();
    throw new Error(`the bundle is ${declared} bytes, more than the limit of ${maxBytes}`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  if (res.body === null) return Buffer.alloc(0);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.length;
    if (total > maxBytes) throw new Error(`the bundle is more than the limit of ${maxBytes} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}
