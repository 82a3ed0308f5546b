/**
 * Semantic Layer benchmark of the embedded LanceDB vector store
 * (`LanceVectorStore`), 384-dimensional vectors like all-minilm's:
 *
 * - ingest through `upsert` in batches (docs/s, index maintenance included,
 *   exactly as the store does it: index created at `indexThreshold`, then
 *   updated and retrained as rows arrive);
 * - 200 queries through `search` (limit 10): p50/p99 latency and recall@10
 *   against an exact brute-force cosine (JS dot products over the same
 *   vectors); half are perturbed stored vectors, half fresh samples;
 * - the flat (exact, unindexed) search at 10,000 for comparison.
 *
 *   npm run bench:semantic      (BENCH_SEMANTIC_SIZES=10000,100000 BENCH_SEMANTIC_BATCH=1000 by default)
 *
 * Data: unit vectors around 200 random centroids with Gaussian noise
 * (cosine to their centroid about 0.7), so they cluster a little as real
 * embeddings do; seeded, so runs compare. Prints figures; asserts nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from '@lancedb/lancedb';
import { DEFAULT_INDEX_THRESHOLD } from '../runtime/semantic/lance-index.js';
import { LanceVectorStore } from '../runtime/semantic/lance-vector-store.js';
import type { VectorRecord } from '../runtime/semantic/vector-store.js';
import { clusteredVectors, exactTopK, normalise, percentile } from './support/clustered-vectors.js';

const DIM = 384;
const CENTROIDS = 200;
const QUERIES = 200;
const WARMUP = 20;
const SIZES = (process.env.BENCH_SEMANTIC_SIZES ?? '10000,100000').split(',').map(Number);
const BATCH = Number(process.env.BENCH_SEMANTIC_BATCH ?? 1000);


const { random, gauss, sample } = clusteredVectors({ seed: 20_260_101, dim: DIM, centroids: CENTROIDS });

/** The ids of the 10 nearest stored vectors by cosine (all unit vectors: dot product). */
function exactTop10(data: Float32Array, n: number, query: Float32Array): Set<string> {
  return new Set(exactTopK({ data, n, query, k: 10 }).map((i) => `d${i}`));
}

function records(data: Float32Array, from: number, to: number): VectorRecord[] {
  return Array.from({ length: to - from }, (_, j) => {
    const i = from + j;
    return { id: `d${i}`, vector: Array.from(data.subarray(i * DIM, (i + 1) * DIM)), content: `document ${i}`, metadata: { shard: String(i % 8) }, uri: '' };
  });
}

async function ingest(store: LanceVectorStore, data: Float32Array, n: number): Promise<number> {
  const started = performance.now();
  for (let at = 0; at < n; at += BATCH) await store.upsert('documents', records(data, at, Math.min(n, at + BATCH)));
  return n / ((performance.now() - started) / 1000);
}

async function measure(store: LanceVectorStore, queries: Float32Array[], exact: Array<Set<string>>): Promise<{ p50: number; p99: number; recall: number[] }> {
  for (let i = 0; i < WARMUP; i++) await store.search('documents', Array.from(queries[i % queries.length]!), { limit: 10 });
  const latencies: number[] = [];
  const recall: number[] = [];
  for (let q = 0; q < queries.length; q++) {
    const vector = Array.from(queries[q]!);
    const started = performance.now();
    const hits = await store.search('documents', vector, { limit: 10 });
    latencies.push(performance.now() - started);
    recall.push(hits.filter((hit) => exact[q]!.has(hit.id)).length / 10);
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), recall };
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

async function indexDescription(dir: string): Promise<string> {
  const db = await connect(dir);
  const table = await db.openTable('documents');
  try {
    const [index] = await table.listIndices();
    if (!index) return 'no index (flat search)';
    const stats = await table.indexStats(index.name);
    return `${index.indexType} (${stats?.distanceType}), ${stats?.numIndexedRows.toLocaleString('en')} indexed, ${stats?.numUnindexedRows.toLocaleString('en')} unindexed, ${stats?.numIndices} segment(s)`;
  } finally {
    table.close();
    db.close();
  }
}

async function run(n: number): Promise<void> {
  const data = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) data.set(sample(), i * DIM);
  const perturbed = Array.from({ length: QUERIES / 2 }, () => {
    const i = Math.floor(random() * n);
    return normalise(Float32Array.from(data.subarray(i * DIM, (i + 1) * DIM), (x) => x + (0.3 * gauss()) / Math.sqrt(DIM)));
  });
  const fresh = Array.from({ length: QUERIES / 2 }, sample);
  const queries = [...perturbed, ...fresh];
  const exactStarted = performance.now();
  const exact = queries.map((query) => exactTop10(data, n, query));
  const exactMs = (performance.now() - exactStarted) / queries.length;

  const dir = await mkdtemp(join(tmpdir(), 'bench-semantic-'));
  try {
    const store = await LanceVectorStore.open({ dir });
    const docsPerSecond = await ingest(store, data, n);
    const result = await measure(store, queries, exact);
    console.log(`\nN = ${n.toLocaleString('en')} (${DIM} dims, batches of ${BATCH}, indexThreshold ${DEFAULT_INDEX_THRESHOLD.toLocaleString('en')})`);
    console.log(`  ingest (upsert, index upkeep included)  ${Math.round(docsPerSecond).toLocaleString('en').padStart(8)} docs/s`);
    console.log(`  index                                   ${await indexDescription(dir)}`);
    console.log(`  search limit 10                         p50 ${result.p50.toFixed(2)} ms   p99 ${result.p99.toFixed(2)} ms`);
    console.log(
      `  recall@10 vs exact                      ${mean(result.recall).toFixed(3)}   (perturbed stored ${mean(result.recall.slice(0, QUERIES / 2)).toFixed(3)}, fresh ${mean(result.recall.slice(QUERIES / 2)).toFixed(3)}; min ${Math.min(...result.recall).toFixed(1)})`,
    );
    console.log(`  exact brute force in JS (reference)     ${exactMs.toFixed(2)} ms/query`);
    await store.close();

    if (n <= DEFAULT_INDEX_THRESHOLD) {
      const flatDir = join(dir, 'flat');
      const flat = await LanceVectorStore.open({ dir: flatDir, indexThreshold: Number.MAX_SAFE_INTEGER });
      await ingest(flat, data, n);
      const flatResult = await measure(flat, queries, exact);
      console.log(`  flat search, no index (comparison)      p50 ${flatResult.p50.toFixed(2)} ms   p99 ${flatResult.p99.toFixed(2)} ms   recall@10 ${mean(flatResult.recall).toFixed(3)}`);
      await flat.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

console.log(`LanceDB vector store (node ${process.version}); target: p50 < 10 ms and recall@10 ≥ 0.95 at 100,000`);
for (const n of SIZES) await run(n);
