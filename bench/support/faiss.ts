import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface FaissFigures {
  build_s: number;
  p50_ms: number;
  p99_ms: number;
  recall: number;
  index_bytes: number;
}

const SCRIPT = fileURLToPath(new URL('../../../bench/support/faiss_hnsw.py', import.meta.url));

/** The Python with faiss-cpu: FRAMEWORK_FAISS_PYTHON, else `.venv-faiss` (made by `.ci/faiss.sh`); undefined when neither exists. */
export function faissPython(): string | undefined {
  const candidates = [process.env.FRAMEWORK_FAISS_PYTHON, fileURLToPath(new URL('../../../.venv-faiss/bin/python', import.meta.url))];
  return candidates.find((path): path is string => typeof path === 'string' && path !== '' && existsSync(path));
}

/**
 * FAISS HNSW (M 16, efConstruction 128, efSearch 96) on the same data, queries
 * and exact answers, in a child Python; undefined (with the reason printed)
 * when no Python with faiss-cpu is available or it fails.
 */
export async function faissFigures(options: {
  dir: string;
  dim: number;
  data: Float32Array;
  queries: Float32Array[];
  exactIds: number[][];
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
  const run = spawnSync(python, [SCRIPT, options.dir, String(options.dim)], {
    encoding: 'utf8',
    timeout: 600_000,
    env: { ...process.env, OMP_NUM_THREADS: '2' },
  });
  if (run.status !== 0) {
    console.log(`  FAISS: failed (${(run.stderr || run.error?.message || '').trim().split('\n').at(-1)})`);
    return undefined;
  }
  return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as FaissFigures;
}
