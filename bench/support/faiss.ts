import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FaissFigures {
  /** HNSW graph degree, and the smallest efSearch reaching the target recall (null: none up to 1024 did). */
  M: number;
  ef: number | null;
  build_s: number;
  p50_ms: number;
  p99_ms: number;
  recall: number;
  index_bytes: number;
  /** p50 of searches each made after the thread slept `gapMs` (when asked for). */
  p50_gap_ms?: number;
}

/** FAISS graph degrees tried (FAISS_M, default 16 like ours, and 32); the fastest at equal recall is compared. */
const FAISS_M = process.env.FAISS_M ?? '16,32';

const SCRIPT = fileURLToPath(new URL('../../../bench/support/faiss_hnsw.py', import.meta.url));

/** The Python with faiss-cpu: FRAMEWORK_FAISS_PYTHON, else `.venv-faiss` (made by `.ci/faiss.sh`); undefined when neither exists. */
export function faissPython(): string | undefined {
  const candidates = [process.env.FRAMEWORK_FAISS_PYTHON, fileURLToPath(new URL('../../../.venv-faiss/bin/python', import.meta.url))];
  return candidates.find((path): path is string => typeof path === 'string' && path !== '' && existsSync(path));
}

/**
 * FAISS HNSW on the same data, queries and exact answers, in a child Python,
 * at equal recall: for each M of FAISS_M, the smallest efSearch whose
 * recall@10 reaches `targetRecall` (ours); the fastest of those settings is
 * returned (the one a FAISS user would pick for that recall). Undefined (with
 * the reason printed) when no Python with faiss-cpu is available or it fails.
 */
export async function faissFigures(options: {
  dir: string;
  dim: number;
  data: Float32Array;
  queries: Float32Array[];
  exactIds: number[][];
  targetRecall: number;
  /** Also time each search after this long asleep (p50_gap_ms): a search behind HTTP follows an idle pause, with caches gone cold. */
  gapMs?: number;
}): Promise<FaissFigures | undefined> {
  const python = faissPython();
  if (!python) {
    console.log('  FAISS: not measured (run .ci/faiss.sh, or set FRAMEWORK_FAISS_PYTHON to a Python with faiss-cpu)');
    return undefined;
  }
  const queries = new Float32Array(options.queries.length * options.dim);
  options.queries.forEach((q, i) => queries.set(q, i * options.dim));
  await writeFile(join(options.dir, 'data.f32'), options.data);
  await writeFile(join(options.dir, 'queries.f32'), queries);
  await writeFile(join(options.dir, 'exact.i32'), Int32Array.from(options.exactIds.flat()));
  const run = spawnSync(python, [SCRIPT, options.dir, String(options.dim), String(options.targetRecall), FAISS_M], {
    encoding: 'utf8',
    timeout: 600_000,
    env: { ...process.env, OMP_NUM_THREADS: '2', ...(options.gapMs ? { FAISS_GAP_MS: String(options.gapMs) } : {}) },
  });
  if (run.status !== 0) {
    console.log(`  FAISS: failed (${(run.stderr || run.error?.message || '').trim().split('\n').at(-1)})`);
    return undefined;
  }
  const { configs } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { configs: FaissFigures[] };
  const reaching = configs.filter((c) => c.ef !== null);
  return [...(reaching.length > 0 ? reaching : configs)].sort((a, b) => a.p50_ms - b.p50_ms)[0];
}

/** `FAISS HNSW M16 ef24 (smallest efSearch reaching recall 0.990)`. */
export function faissSetting(faiss: FaissFigures, targetRecall: number): string {
  return faiss.ef === null
    ? `FAISS HNSW M${faiss.M} ef1024 (no efSearch reached recall ${targetRecall.toFixed(3)})`
    : `FAISS HNSW M${faiss.M} ef${faiss.ef} (smallest efSearch reaching recall ${targetRecall.toFixed(3)})`;
}
