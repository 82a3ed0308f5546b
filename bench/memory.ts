/**
 * System memory benchmark: the memory service (`framework-cli serve memory`)
 * over the real Redis at KV_URL (default redis://127.0.0.1:6379), on a key
 * prefix of its own that is deleted afterwards (also on Ctrl-C / SIGTERM, and
 * when the run passes its deadline, BENCH_MEMORY_DEADLINE_S, default 1800).
 *
 * - writes through `POST /v1/long-term-memory/` in batches (writes/s, dedup
 *   check and change-log upkeep included), and until the HNSW index holds them;
 * - 200 searches through `POST /v1/long-term-memory/search` (limit 10) over
 *   HTTP: p50/p99 latency and recall@10 against an exact brute-force cosine;
 *   with a namespace filter (a tenth of the memories, recall against the exact
 *   answer within the namespace; measured once the per-namespace indexes its
 *   first searches start are built, the time that took printed); and
 *   in-process (`SystemMemory.search`, no HTTP);
 * - a bare node:http server reading the same JSON body and writing a search's
 *   answer, in rounds interleaved with the HTTP searches (BENCH_MEMORY_ROUNDS,
 *   default 5): the HTTP target is FAISS + 1.2× that round trip, printed as the
 *   median of the per-round ratios;
 * - FAISS HNSW on the same vectors and queries, in the same run, at equal
 *   recall (the smallest efSearch reaching ours, see support/faiss.ts), when
 *   a Python with faiss-cpu is there (`.ci/faiss.sh`, or
 *   FRAMEWORK_FAISS_PYTHON), and the ratios of our p50s to its p50, each
 *   size's with its target and met / MISSED;
 * - baselines measured in the same run: the in-process flat scan of the
 *   same vectors in plain JS, and the HTTP round trip of `GET /v1/health`;
 * - the time a new replica takes to load every memory into its cache (it
 *   answers, by exact scoring, from then on), and until its HNSW index is built;
 *   the time it takes to save its snapshot on close, and a restart that reads
 *   that snapshot (MEMORY_INDEX_DIR) until its index is ready;
 * - the process's RSS growth per 100k memories.
 *
 *   npm run bench:memory      (BENCH_MEMORY_SIZES=10000,100000 BENCH_MEMORY_QUERIES=200 by default)
 *
 * The store part embeds through a fixed embedder: each text maps to a
 * seeded synthetic 384-d vector (clustered, as in bench/semantic.ts), so the
 * figures are the service's and Redis's, not the model's. When the model
 * store has all-minilm (or OLLAMA_HOST answers), one more line measures the
 * same calls with the real model. Prints figures; asserts nothing.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../runtime/core/logger.js';
import { KvMemoryStore } from '../runtime/memory/kv-memory-store.js';
import { startMemoryService, type RunningMemoryService } from '../runtime/memory/start-memory-service.js';
import { SearchRequestSchema } from '../runtime/memory/memory-search.js';
import { ModelStore, resolveModelsDir } from '../runtime/model/model-store.js';
import { startModelServer, type RunningModelServer } from '../runtime/model/start-model-server.js';
import type { Embedder } from '../runtime/llm/embedder.js';
import { clusteredVectors, exactTopK, normalise, percentile } from './support/clustered-vectors.js';
import { faissFigures, faissSetting } from './support/faiss.js';
import { median, ratioSummary, targetMark } from './support/ratios.js';
import { deletePrefix } from './support/redis-prefix.js';

const DIM = 384;
const CENTROIDS = 200;
const QUERIES = Number(process.env.BENCH_MEMORY_QUERIES ?? 200);
const WARMUP = 20;
/** Interleaved rounds of the HTTP search and its bare baseline (BENCH_MEMORY_ROUNDS). */
const ROUNDS = Number(process.env.BENCH_MEMORY_ROUNDS ?? 5);
const SIZES = (process.env.BENCH_MEMORY_SIZES ?? '10000,100000').split(',').map(Number);
const WRITE_BATCH = 500;
const NAMESPACES = 10;
const KV_URL = process.env.KV_URL ?? 'redis://127.0.0.1:6379';
const DEADLINE_S = Number(process.env.BENCH_MEMORY_DEADLINE_S ?? 1800);

/** What to remove if the run is cut short: key prefixes in Redis and temporary folders. */
const prefixes = new Set<string>();
const tempDirs = new Set<string>();
async function cleanUpAndExit(code: number, why: string): Promise<never> {
  console.log(`\n${why}: removing the bench's keys and files`);
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  await Promise.race([Promise.all([...prefixes].map((prefix) => deletePrefix(KV_URL, prefix))), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanUpAndExit(130, signal));
setTimeout(() => void cleanUpAndExit(1, `deadline of ${DEADLINE_S} s reached (BENCH_MEMORY_DEADLINE_S)`), DEADLINE_S * 1000).unref();

const { random, gauss, sample } = clusteredVectors({ seed: 20_260_215, dim: DIM, centroids: CENTROIDS });

/** Embeds a known text to its synthetic vector: the model is out of the measurement. */
class FixedEmbedder implements Embedder {
  readonly model = 'bench-fixed-384';
  readonly #vectors = new Map<string, Float32Array>();

  set(text: string, vector: Float32Array): void {
    this.#vectors.set(text, vector);
  }

  async embed(texts: readonly string[]): Promise<number[][]> {
    return texts.map((text) => {
      const vector = this.#vectors.get(text);
      if (!vector) throw new Error(`FixedEmbedder: no vector for ${JSON.stringify(text)}`);
      return Array.from(vector);
    });
  }
}

interface Latency {
  p50: number;
  p99: number;
}

/** Runs `call` WARMUP times, then `times` times one after another; latencies in ms. */
async function measure(times: number, call: (i: number) => Promise<void>): Promise<Latency> {
  for (let i = 0; i < WARMUP; i++) await call(i % times);
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await call(i);
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

/**
 * POSTs `body` (the bench's writes and searches are idempotent). A request
 * sent on a kept-alive connection the server is closing at that moment (its
 * keep-alive timeout met after a long pause, e.g. a busy machine building
 * the index) fails with `UND_ERR_SOCKET` before the server read it: it is
 * sent once more on a new connection.
 */
async function post(url: string, body: unknown): Promise<any> {
  const send = () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const res = await send().catch((error: unknown) => {
    if ((error as { cause?: { code?: string } }).cause?.code !== 'UND_ERR_SOCKET') throw error;
    return send();
  });
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/** A bare node:http server that reads a JSON body, parses it and writes `answer` as JSON: the HTTP row's baseline. */
async function serveBareJson(answer: unknown): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const text = JSON.stringify(answer);
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const recallOf = (found: Array<{ id: string }>, expected: number[]) => {
  const ids = new Set(expected.map((i) => `m${i}`));
  return found.filter((m) => ids.has(m.id)).length / Math.min(10, ids.size);
};
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

const fmt = (l: Latency) => `p50 ${l.p50.toFixed(2).padStart(7)} ms   p99 ${l.p99.toFixed(2).padStart(7)} ms`;
const line = (label: string, value: string) => console.log(`  ${label.padEnd(46)} ${value}`);

async function run(n: number): Promise<void> {
  const embedder = new FixedEmbedder();
  const data = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) {
    const v = sample();
    data.set(v, i * DIM);
    embedder.set(`memory ${i}`, v);
  }
  const queries = Array.from({ length: QUERIES }, (_, q) => {
    const near = q < QUERIES / 2;
    const i = Math.floor(random() * n);
    const v = near ? normalise(Float32Array.from(data.subarray(i * DIM, (i + 1) * DIM), (x) => x + (0.3 * gauss()) / Math.sqrt(DIM))) : sample();
    embedder.set(`query ${q}`, v);
    return v;
  });
  // Before the service starts: a long pause between requests would meet the server's keep-alive timeout.
  const exactStarted = performance.now();
  const exact = queries.map((query) => exactTopK({ data, n, query, k: 10 }));
  const flatMs = (performance.now() - exactStarted) / queries.length;
  const inNamespace = queries.map((query, q) => exactTopK({ data, n, query, k: 10, keep: (i) => i % NAMESPACES === q % NAMESPACES }));
  const dir = await mkdtemp(join(tmpdir(), 'bench-memory-'));
  tempDirs.add(dir);
  const prefix = `bench:memory:${randomUUID()}:`;
  prefixes.add(prefix);
  const rssBefore = process.memoryUsage().rss;
  // A long Redis command timeout: on a loaded machine the busy event loop (background indexing) would trip the default 2 s.
  const service = await startMemoryService({ port: 0, kvUrl: KV_URL, keyPrefix: prefix, embedder, env: {}, logger: silentLogger, kvCommandTimeoutMs: 30_000 });
  try {
    const writeStarted = performance.now();
    for (let at = 0; at < n; at += WRITE_BATCH) {
      const memories = Array.from({ length: Math.min(WRITE_BATCH, n - at) }, (_, j) => ({
        id: `m${at + j}`,
        text: `memory ${at + j}`,
        namespace: `ns${(at + j) % NAMESPACES}`,
      }));
      await post(`${service.url}/v1/long-term-memory/`, { memories });
    }
    const writesPerSecond = n / ((performance.now() - writeStarted) / 1000);
    await service.indexed();
    const indexedPerSecond = n / ((performance.now() - writeStarted) / 1000);
    const rssPer100k = ((process.memoryUsage().rss - rssBefore) / 1024 / 1024) * (100_000 / n);

    const health = await measure(QUERIES, async () => {
      await (await fetch(`${service.url}/v1/health`)).arrayBuffer();
    });
    // The HTTP row's baseline: a bare node:http server reading the same JSON body and writing a search's answer.
    const bare = await serveBareJson(await post(`${service.url}/v1/long-term-memory/search`, { text: 'query 0', limit: 10 }));
    const recall: number[] = [];
    const bareRounds: Latency[] = [];
    const httpRounds: Latency[] = [];
    const perRound = Math.max(1, Math.floor(QUERIES / ROUNDS));
    for (let round = 0; round < ROUNDS; round++) {
      const first = round * perRound;
      bareRounds.push(await measure(perRound, (i) => post(bare.url, { text: `query ${first + i}`, limit: 10 })));
      httpRounds.push(
        await measure(perRound, async (i) => {
          const q = first + i;
          const found = (await post(`${service.url}/v1/long-term-memory/search`, { text: `query ${q}`, limit: 10 })) as { memories: Array<{ id: string }> };
          recall.push(recallOf(found.memories, exact[q]!));
        }),
      );
    }
    await bare.close();
    const http: Latency = { p50: median(httpRounds.map((r) => r.p50)), p99: median(httpRounds.map((r) => r.p99)) };
    const bareTrip: Latency = { p50: median(bareRounds.map((r) => r.p50)), p99: median(bareRounds.map((r) => r.p99)) };
    // The steady state of a service: the first search filtered on a namespace starts that namespace's own index
    // (built in small steps between requests); the figures below are taken once they are built (the time it took is printed).
    for (let q = 0; q < NAMESPACES; q++)
      await post(`${service.url}/v1/long-term-memory/search`, { text: `query ${q}`, limit: 10, namespace: { eq: `ns${q}` } });
    const settleStarted = performance.now();
    await service.indexed();
    const namespaceIndexesS = (performance.now() - settleStarted) / 1000;
    const filteredRecall: number[] = [];
    const filtered = await measure(QUERIES, async (q) => {
      const found = (await post(`${service.url}/v1/long-term-memory/search`, {
        text: `query ${q}`,
        limit: 10,
        namespace: { eq: `ns${q % NAMESPACES}` },
      })) as { memories: Array<{ id: string }> };
      filteredRecall[q] = recallOf(found.memories, inNamespace[q]!);
    });
    const inProcess = await measure(QUERIES, async (q) => {
      await service.memory.search(SearchRequestSchema.parse({ text: `query ${q}`, limit: 10 }));
    });
    const inProcessFiltered = await measure(QUERIES, async (q) => {
      await service.memory.search(SearchRequestSchema.parse({ text: `query ${q}`, limit: 10, namespace: { eq: `ns${q % NAMESPACES}` } }));
    });
    // A new process without a snapshot (loads from Redis, builds its index), which saves one on close;
    // then a restart that reads it (MEMORY_INDEX_DIR) and checks Redis for changes since.
    const snapshotDir = join(dir, 'index');
    const replica = new KvMemoryStore({ url: KV_URL, keyPrefix: prefix, embeddingModel: embedder.model, snapshotDir, commandTimeoutMs: 30_000 });
    const loadStarted = performance.now();
    await replica.load();
    const loadMs = performance.now() - loadStarted;
    await replica.indexed();
    const replicaIndexedMs = performance.now() - loadStarted;
    const saveStarted = performance.now();
    await replica.close();
    const saveMs = performance.now() - saveStarted;
    const restarted = new KvMemoryStore({ url: KV_URL, keyPrefix: prefix, embeddingModel: embedder.model, snapshotDir, commandTimeoutMs: 30_000 });
    const restartStarted = performance.now();
    await restarted.load();
    await restarted.indexed();
    const restartMs = performance.now() - restartStarted;
    const restartedCount = restarted.cachedRecords;
    await restarted.close();
    const ourRecall = mean(recall);
    const faiss = await faissFigures({ dir, dim: DIM, data, queries, exactIds: exact, targetRecall: ourRecall });
    const ratio = (ours: number) => (faiss ? `   ${(ours / faiss.p50_ms).toFixed(2)}× FAISS` : '');

    console.log(`\nN = ${n.toLocaleString('en')} memories (${DIM} dims, fixed synthetic embedder, ${NAMESPACES} namespaces)`);
    line(`write, POST batches of ${WRITE_BATCH}`, `${Math.round(writesPerSecond).toLocaleString('en').padStart(8)} memories/s`);
    line('  ... until the HNSW index holds them', `${Math.round(indexedPerSecond).toLocaleString('en').padStart(8)} memories/s   target ≥ 5,000`);
    line(
      'search in-process (SystemMemory, no HTTP)',
      `${fmt(inProcess)}${ratio(inProcess.p50)}${faiss ? `   ${targetMark(inProcess.p50 / faiss.p50_ms, 2, 'at most')}` : ''}`,
    );
    line(`  with a namespace filter (1/${NAMESPACES})`, `${fmt(inProcessFiltered)}${ratio(inProcessFiltered.p50)}`);
    line("    (the namespaces' own indexes, built first in", `${namespaceIndexesS.toFixed(2).padStart(8)} s after their first searches)`);
    if (faiss) {
      line(
        faissSetting(faiss, ourRecall),
        `p50 ${faiss.p50_ms.toFixed(2).padStart(7)} ms   p99 ${faiss.p99_ms.toFixed(2).padStart(7)} ms   recall@10 ${faiss.recall.toFixed(3)}   index ${(faiss.index_bytes / 1024 / 1024 / (n / 100_000)).toFixed(0)} MB per 100k`,
      );
    }
    line('search over HTTP, limit 10', `${fmt(http)}${ratio(http.p50)}`);
    line(
      'baseline: bare node:http JSON round trip',
      `${fmt(bareTrip)}   (same body in, a search's answer out; ${ROUNDS} rounds interleaved with the row above)`,
    );
    if (faiss) {
      // The issue's target: FAISS's search plus 1.2× the bare round trip, per round; the median of the rounds' ratios.
      const ratios = httpRounds.map((r, round) => r.p50 / (faiss.p50_ms + 1.2 * bareRounds[round]!.p50));
      line(
        '  HTTP p50 / (FAISS + 1.2× bare JSON round trip)',
        `${(faiss.p50_ms + 1.2 * bareTrip.p50).toFixed(2)} ms allowed (FAISS ${faiss.p50_ms.toFixed(2)} + 1.2 × ${bareTrip.p50.toFixed(2)}): ${ratioSummary(ratios)}   ${targetMark(median(ratios), 1, 'at most')}`,
      );
    }
    line('  recall@10 vs exact', mean(recall).toFixed(3));
    line(`search over HTTP, namespace filter (1/${NAMESPACES})`, `${fmt(filtered)}${ratio(filtered.p50)}`);
    line('  recall@10 vs exact within the namespace', mean(filteredRecall).toFixed(3));
    line('baseline: flat scan in JS, same vectors', `${flatMs.toFixed(2).padStart(11)} ms/query`);
    line('baseline: GET /v1/health round trip', fmt(health));
    line('ratio search p50 / flat scan', `${(http.p50 / flatMs).toFixed(2)}x`);
    line('ratio search p50 / health round trip p50', `${(http.p50 / health.p50).toFixed(1)}x`);
    line(
      'new replica loads every memory from Redis',
      `${(loadMs / 1000).toFixed(2).padStart(8)} s (${Math.round(n / (loadMs / 1000)).toLocaleString('en')} memories/s; searches answer from then on, exactly)`,
    );
    line('  ... until its HNSW index is built', `${(replicaIndexedMs / 1000).toFixed(2).padStart(8)} s`);
    line('  ... saving its snapshot on close', `${(saveMs / 1000).toFixed(2).padStart(8)} s`);
    line(
      'restart from the snapshot, index ready',
      `${(restartMs / 1000).toFixed(2).padStart(8)} s (${restartedCount.toLocaleString('en')} memories)   target ≤ 3 s at 100k`,
    );
    line('RSS growth of the service process', `${rssPer100k.toFixed(0).padStart(8)} MB per 100k memories (records, vectors, HNSW graph)`);
  } finally {
    await service.close();
    await deletePrefix(KV_URL, prefix);
    prefixes.delete(prefix);
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  }
}

/** The real all-minilm: from the model store in this process, else OLLAMA_HOST; undefined when neither is there. */
async function realModel(): Promise<{ url: string; close(): Promise<void> } | undefined> {
  const store = new ModelStore({ dir: resolveModelsDir() });
  if (await store.get('all-minilm')) {
    const server: RunningModelServer = await startModelServer({ store, host: '127.0.0.1', port: 0 });
    return server;
  }
  const host = process.env.OLLAMA_HOST ?? 'http://127.0.0.1:11434';
  try {
    if ((await fetch(`${host}/api/version`)).ok) return { url: host, close: async () => undefined };
  } catch {
    // no model runtime
  }
  return undefined;
}

async function runRealModel(): Promise<void> {
  const model = await realModel();
  if (!model) {
    console.log('\nReal model: skipped (all-minilm not in the model store and no model runtime at OLLAMA_HOST)');
    return;
  }
  const prefix = `bench:memory:${randomUUID()}:`;
  prefixes.add(prefix);
  let service: RunningMemoryService | undefined;
  try {
    service = await startMemoryService({ port: 0, kvUrl: KV_URL, keyPrefix: prefix, ollamaHost: model.url, env: {}, logger: silentLogger });
    const topics = ['tea', 'trains', 'chess', 'gardening', 'jazz', 'cycling', 'sushi', 'astronomy', 'pottery', 'sailing'];
    const texts = Array.from({ length: 200 }, (_, i) => `Fact ${i}: the user enjoys ${topics[i % topics.length]} on day ${i % 7}`);
    const writeStarted = performance.now();
    for (let at = 0; at < texts.length; at += 50) {
      await post(`${service.url}/v1/long-term-memory/`, { memories: texts.slice(at, at + 50).map((text, j) => ({ id: `r${at + j}`, text })) });
    }
    const writesPerSecond = texts.length / ((performance.now() - writeStarted) / 1000);
    const url = service.url;
    const search = await measure(50, async (q) => {
      await post(`${url}/v1/long-term-memory/search`, { text: `What does the user like about ${topics[q % topics.length]}?`, limit: 10 });
    });
    console.log(`\nReal model (all-minilm at ${model.url}), 200 memories`);
    line('write, POST batches of 50 (embedding included)', `${Math.round(writesPerSecond).toLocaleString('en').padStart(8)} memories/s`);
    line('search over HTTP (query embedding included)', fmt(search));
  } finally {
    await service?.close();
    await model.close();
    await deletePrefix(KV_URL, prefix);
    prefixes.delete(prefix);
  }
}

console.log(
  `System memory service over Redis at ${KV_URL} (node ${process.version}); HNSW search over an in-process copy; targets: in process p50 ≤ 2× FAISS HNSW at equal recall, over HTTP ≤ FAISS + 1.2× a bare node:http JSON round trip`,
);
for (const n of SIZES) await run(n);
await runRealModel();
