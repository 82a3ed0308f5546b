import type { Env } from '../core/config.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import { eitherDirect, listen } from '../core/server/listen.js';
import { OllamaEmbedder, type Embedder } from '../llm/embedder.js';
import { createLanguageModel } from '../llm/create-language-model.js';
import { createMemoryService } from './create-memory-service.js';
import { directMemoryHealth, directMemorySearch } from './direct-search.js';
import { memoryTokenCheck } from './memory-auth.js';
import type { MemoryLanguageModel } from './memory-model.js';
import { KvMemoryStore } from './kv-memory-store.js';
import { countMemoryRecords, tracedMemoryStore } from './traced-memory-store.js';
import { checkMemoryAuth, loadMemoryConfig } from './memory-config.js';
import { SystemMemory } from './system-memory.js';

export interface StartMemoryServiceOptions {
  /** Address to bind; default MEMORY_HOST, else 127.0.0.1. */
  host?: string;
  /** Default MEMORY_PORT, else 8000; 0 picks a free one. */
  port?: number;
  /** Redis; default KV_URL, else redis://127.0.0.1:6379. */
  kvUrl?: string;
  /** Keys go under `<keyPrefix>mem:`; default KV_PREFIX, else `fw:`. */
  keyPrefix?: string;
  /** The model runtime (Ollama API); default OLLAMA_HOST, else http://127.0.0.1:11434. */
  ollamaHost?: string;
  /** Default EMBEDDING_MODEL, else all-minilm. */
  embeddingModel?: string;
  /** Embeds instead of the model runtime at `ollamaHost` (a benchmark's fixed vectors). */
  embedder?: Embedder;
  /** Summarises, extracts and optimises queries (a scripted model in tests); default MEMORY_GENERATION_MODEL at `ollamaHost`, else none. */
  languageModel?: MemoryLanguageModel;
  /** Where the copy of the long-term memories is saved for a fast restart; default MEMORY_INDEX_DIR, else none. */
  indexDir?: string;
  /** Milliseconds one Redis command may take (default 2000); a benchmark on a loaded machine raises it. */
  kvCommandTimeoutMs?: number;
  /** Largest request body; default MEMORY_MAX_BODY_BYTES, else 1 MiB. */
  maxBodyBytes?: number;
  /** Where unset options are read from; default `process.env`, read now. */
  env?: Env;
  logger?: Logger;
}

export interface RunningMemoryService {
  readonly url: string;
  readonly port: number;
  readonly memory: SystemMemory;
  /** Settles once the first load of the long-term memories into the process is over (it never rejects: a failed load is retried by the next search). */
  readonly loaded: Promise<void>;
  /** Resolves once the HNSW index of the in-process copy holds every memory loaded or written so far (built in the background; searches are exact until then). */
  indexed(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves the memory service on `host:port`. It starts whether or not Redis
 * and the model runtime are up: `/v1/health` tells about Redis, requests get
 * 503 while either is missing and work once it is back. The long-term
 * memories are loaded into the process in the background right away.
 *
 * @example
 * const service = await startMemoryService({ port: 0, kvUrl: 'redis://127.0.0.1:6379' });
 * await fetch(`${service.url}/v1/health`);
 * await service.close();
 */
export async function startMemoryService(options: StartMemoryServiceOptions = {}): Promise<RunningMemoryService> {
  const overrides: Record<string, string> = {};
  if (options.kvUrl !== undefined) overrides.KV_URL = options.kvUrl;
  if (options.keyPrefix !== undefined) overrides.KV_PREFIX = options.keyPrefix;
  if (options.ollamaHost !== undefined) overrides.OLLAMA_HOST = options.ollamaHost;
  if (options.embeddingModel !== undefined) overrides.EMBEDDING_MODEL = options.embeddingModel;
  const config = loadMemoryConfig({ env: options.env ?? process.env, overrides });
  const logger = options.logger ?? silentLogger;
  const embedder = options.embedder ?? new OllamaEmbedder({ host: config.ollamaHost, model: config.embeddingModel });
  const indexDir = options.indexDir ?? config.indexDir;
  const store = new KvMemoryStore({
    url: config.kvUrl,
    keyPrefix: config.keyPrefix,
    embeddingModel: embedder.model,
    logger,
    ...(indexDir !== undefined ? { snapshotDir: indexDir } : {}),
    ...(options.kvCommandTimeoutMs !== undefined ? { commandTimeoutMs: options.kvCommandTimeoutMs } : {}),
  });
  try {
    const host = options.host ?? config.host;
    checkMemoryAuth(config, host);
    const languageModel =
      options.languageModel ??
      (config.generationModel === undefined
        ? undefined
        : {
            model: createLanguageModel({ provider: 'ollama', model: config.generationModel, base_url: config.ollamaHost }),
            name: config.generationModel,
            contextTokens: config.generationContextTokens,
          });
    // Record operations traced, the record count on /metrics.
    const memory = new SystemMemory({ store: tracedMemoryStore(store), embedder, logger, ...(languageModel ? { languageModel } : {}) });
    const maxBodyBytes = options.maxBodyBytes ?? config.maxBodyBytes;
    const app = createMemoryService({ memory, logger, maxBodyBytes, authTokens: config.authTokens });
    const listening = await listen(app, {
      host,
      port: options.port ?? config.port,
      portHint: 'pass --addr 127.0.0.1:<port> or set MEMORY_PORT',
      // Searches and health are answered below Hono (see directMemorySearch, directMemoryHealth).
      direct: eitherDirect(
        directMemoryHealth(memory, logger),
        directMemorySearch({ memory, tokens: memoryTokenCheck(config.authTokens), logger, maxBytes: maxBodyBytes }),
      ),
    });
    const uncount = countMemoryRecords(store);
    const loaded = store.load().then(
      () => logger.info('long-term memories loaded', { count: store.cachedRecords }),
      (error: unknown) => logger.warn('long-term memories not loaded yet; the next search retries', errorFields(error)),
    );
    return {
      url: listening.url,
      port: listening.port,
      memory,
      loaded,
      indexed: () => store.indexed(),
      close: async () => {
        await listening.close();
        await memory.settled();
        uncount();
        await store.close();
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
