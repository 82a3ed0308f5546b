import type { Hono } from 'hono';
import { afterAll, beforeAll } from 'vitest';
import type { Logger } from '../../runtime/core/logger.js';
import { createMemoryService } from '../../runtime/memory/create-memory-service.js';
import { KvMemoryStore } from '../../runtime/memory/kv-memory-store.js';
import { SystemMemory } from '../../runtime/memory/system-memory.js';
import type { RunningModelServer } from '../../runtime/model/start-model-server.js';
import { OllamaEmbedder } from '../../runtime/llm/embedder.js';
import { startMemoryService, type RunningMemoryService } from '../../runtime/memory/start-memory-service.js';
import { startEmbeddings } from '../support/embeddings.js';
import { RedisProcess, freePort } from '../support/redis-process.js';
import { REDIS_URL } from '../support/redis-scope.js';

/** The real model runtime with all-minilm for one test file. */
export function modelRuntime(): { url: () => string } {
  let models: RunningModelServer | undefined;
  beforeAll(async () => {
    models = await startEmbeddings();
  });
  afterAll(async () => models?.close());
  return {
    url: () => {
      if (!models) throw new Error('modelRuntime: the model runtime exists only inside tests');
      return models.url;
    },
  };
}

/** A private redis-server for one test file, on a free port, which its tests may kill and start again. */
export function privateRedis(): () => RedisProcess {
  let redis: RedisProcess | undefined;
  beforeAll(async () => {
    redis = new RedisProcess(await freePort());
    await redis.start();
  });
  afterAll(async () => redis?.kill());
  return () => {
    if (!redis) throw new Error('privateRedis: the server exists only inside tests');
    return redis;
  };
}

/** The memory service listening on a free port for one test file, over the real Redis under `keyPrefix`. */
export function listeningMemoryService(options: { keyPrefix: string; models: { url: () => string } }): () => RunningMemoryService {
  let service: RunningMemoryService | undefined;
  beforeAll(async () => {
    service = await startMemoryService({ port: 0, kvUrl: REDIS_URL, keyPrefix: options.keyPrefix, ollamaHost: options.models.url(), env: {} });
  });
  afterAll(async () => service?.close());
  return () => {
    if (!service) throw new Error('listeningMemoryService: the service exists only inside tests');
    return service;
  };
}

/** One memory service (the Hono app, no socket) over a Redis key prefix. */
export interface MemoryUnderTest {
  app: Hono;
  memory: SystemMemory;
  store: KvMemoryStore;
  close(): Promise<void>;
}

export function openMemory(options: { keyPrefix: string; ollamaHost: string; kvUrl?: string; logger?: Logger; maxBodyBytes?: number }): MemoryUnderTest {
  const embedder = new OllamaEmbedder({ host: options.ollamaHost, model: 'all-minilm' });
  const store = new KvMemoryStore({
    url: options.kvUrl ?? REDIS_URL,
    keyPrefix: options.keyPrefix,
    embeddingModel: embedder.model,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const memory = new SystemMemory({ store, embedder, ...(options.logger ? { logger: options.logger } : {}) });
  const app = createMemoryService({ memory, ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}) });
  return { app, memory, store, close: () => store.close() };
}

/** A request to the app with a JSON body; the status and parsed JSON answer. */
export async function call(app: Hono, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await app.request(path, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** Creates long-term memories; fails the test on anything but 200. */
export async function remember(app: Hono, memories: Array<Record<string, unknown>>, deduplicate = true): Promise<{ ids: string[]; deduplicated: boolean[] }> {
  const res = await call(app, 'POST', '/v1/long-term-memory/', { memories, deduplicate });
  if (res.status !== 200) throw new Error(`create answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Searches; fails the test on anything but 200. */
export async function search(
  app: Hono,
  request: Record<string, unknown>,
): Promise<{ memories: Array<Record<string, any>>; total: number; next_offset: number | null }> {
  const res = await call(app, 'POST', '/v1/long-term-memory/search', request);
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
