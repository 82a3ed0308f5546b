/**
 * The vector search core alone, this build against another one in the same
 * run: the Semantic Layer's in-memory mirror (`CollectionMirror`: HNSW index,
 * float slab, `filteredSearch`), with no store around it, on bench/semantic's
 * data (384-dimension unit vectors around 200 centroids, seeded), so the
 * HNSW settings, the metric and the rescoring are what differ.
 *
 * - the time to build each index (one batch of 5,000 after another, two threads);
 * - 200 queries (half perturbed stored vectors, half fresh samples), limit 10,
 *   unfiltered and filtered on pairs held by 1/2 and 1/4 of the records:
 *   recall@10 against an exact search, and CPU time per search
 *   (`process.cpuUsage`), the builds interleaved in rounds (BENCH_ROUNDS,
 *   default 7); the ratio after/before is the median of the per-round ratios.
 *
 *   BENCH_BEFORE_DIST=/work/base-dist node dist/bench/vector-index.js
 *   (BENCH_VECTOR_SIZES=10000,100000 BENCH_VECTOR_BUILDS=1 by default)
 *
 * BENCH_VECTOR_BUILDS=n builds each index n times (the graph of a
 * two-thread build differs from run to run): recall and CPU are printed per
 * build. Without BENCH_BEFORE_DIST only this build is measured. Prints
 * figures and ratios; asserts nothing.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CollectionMirror, type MirroredRecord } from '../runtime/semantic/collection-mirror.js';
import { HnswVectorIndex } from '../runtime/core/vectors/hnsw-vector-index.js';
import { clusteredVectors, exactTopK, normalise } from './support/clustered-vectors.js';
import { median, ratioSummary } from './support/ratios.js';

const DIM = 384;
const QUERIES = 200;
const BATCH = 5000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const SIZES = (process.env.BENCH_VECTOR_SIZES ?? '10000,100000').split(',').map(Number);
const BUILDS = Number(process.env.BENCH_VECTOR_BUILDS ?? 1);
const BEFORE = process.env.BENCH_BEFORE_DIST;

/** What a build offers: its mirror over a new index of unit vectors. */
type MakeMirror = () => Pick<CollectionMirror, 'upsert' | 'search'>;

async function beforeBuild(dist: string): Promise<MakeMirror> {
  const at = (path: string) => pathToFileURL(join(dist, path)).href;
  const mirrors = (await import(at('runtime/semantic/collection-mirror.js'))) as typeof import('../runtime/semantic/collection-mirror.js');
  const hnsw = (await import(at('runtime/core/vectors/hnsw-vector-index.js'))) as typeof import('../runtime/core/vectors/hnsw-vector-index.js');
  return () => new mirrors.CollectionMirror({ index: hnsw.HnswVectorIndex.create({ dimensions: DIM }) });
}

const FILTERS: Array<{ label: string; filter: Record<string, string>; keep: (i: number) => boolean }> = [
  { label: 'unfiltered', filter: {}, keep: () => true },
  { label: '1/2 match', filter: { half: '1' }, keep: (i) => i % 2 === 1 },
  { label: '1/4 match', filter: { quarter: '1' }, keep: (i) => i % 4 === 1 },
];

interface Built {
  label: string;
  mirror: Pick<CollectionMirror, 'upsert' | 'search'>;
  buildS: number;
  recall: number[];
  /** Per filter, CPU µs per search of each round. */
  cpu: number[][];
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

async function run(n: number, builds: Array<{ label: string; make: MakeMirror }>): Promise<void> {
  const { random, gauss, sample } = clusteredVectors({ seed: 20_260_101, dim: DIM, centroids: 200 });
  const data = new Float32Array(n * DIM);
  for (let i = 0; i < n; i++) data.set(sample(), i * DIM);
  const perturbed = Array.from({ length: QUERIES / 2 }, () => {
    const i = Math.floor(random() * n);
    return normalise(Float32Array.from(data.subarray(i * DIM, (i + 1) * DIM), (x) => x + (0.3 * gauss()) / Math.sqrt(DIM)));
  });
  const queries = [...perturbed, ...Array.from({ length: QUERIES / 2 }, sample)];
  const exact = FILTERS.map(({ keep }) => queries.map((query) => new Set(exactTopK({ data, n, query, k: 10, keep }).map((i) => `d${i}`))));
  console.log(`\nN = ${n.toLocaleString('en')} (${DIM} dims), load ${load()}`);
  const measured: Built[] = [];
  for (let copy = 0; copy < BUILDS; copy++) {
    for (const { label, make } of builds) {
      const started = performance.now();
      const mirror = make();
      for (let at = 0; at < n; at += BATCH) {
        const to = Math.min(n, at + BATCH);
        const records: MirroredRecord[] = [];
        for (let i = at; i < to; i++) records.push({ id: `d${i}`, content: '', metadata: { half: String(i % 2), quarter: String(i % 4) }, uri: '' });
        mirror.upsert(records, data.subarray(at * DIM, to * DIM));
      }
      const buildS = (performance.now() - started) / 1000;
      const recall = FILTERS.map(({ filter }, f) => {
        let sum = 0;
        queries.forEach((query, q) => {
          sum += mirror.search(query, { limit: 10, filter }).filter((hit) => exact[f]![q]!.has(hit.id)).length / 10;
        });
        return sum / QUERIES;
      });
      measured.push({ label: BUILDS > 1 ? `${label} #${copy + 1}` : label, mirror, buildS, recall, cpu: FILTERS.map(() => []) });
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const built of measured) {
      FILTERS.forEach(({ filter }, f) => {
        const started = process.cpuUsage();
        for (const query of queries) built.mirror.search(query, { limit: 10, filter });
        const used = process.cpuUsage(started);
        built.cpu[f]!.push((used.user + used.system) / QUERIES);
      });
    }
  }
  for (const built of measured) {
    const cells = FILTERS.map(({ label }, f) => `${label} ${median(built.cpu[f]!).toFixed(0)} µs, recall ${built.recall[f]!.toFixed(4)}`);
    console.log(`  ${built.label.padEnd(12)} build ${built.buildS.toFixed(1).padStart(5)} s   ${cells.join('   ')}`);
  }
  const before = measured.filter((b) => b.label.startsWith('before'));
  const after = measured.filter((b) => b.label.startsWith('after'));
  if (before.length > 0) {
    FILTERS.forEach(({ label }, f) => {
      const ratios = after.flatMap((a, copy) => a.cpu[f]!.map((cpu, round) => cpu / before[copy]!.cpu[f]![round]!));
      console.log(`  CPU per search after/before, ${label.padEnd(10)} ${ratioSummary(ratios)}`);
    });
  }
  console.log(`  load after ${load()}`);
}

console.log(`Vector search core (CollectionMirror over HnswVectorIndex), node ${process.version}${BEFORE ? `; before = ${BEFORE}` : ''}`);
const builds: Array<{ label: string; make: MakeMirror }> = [
  { label: 'after', make: () => new CollectionMirror({ index: HnswVectorIndex.create({ dimensions: DIM }) }) },
];
if (BEFORE) builds.unshift({ label: 'before', make: await beforeBuild(BEFORE) });
for (const n of SIZES) await run(n, builds);
