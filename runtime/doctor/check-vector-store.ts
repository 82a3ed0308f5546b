import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { SEMANTIC_DEFAULTS } from '../semantic/semantic-config.js';
import { checkResult, type DoctorCheck, type ProbeOptions } from './doctor-check.js';
import { checkService } from './service-check.js';

/**
 * The Semantic Layer's vector store: with `VECTOR_STORE=weaviate`, Weaviate's
 * readiness at `VECTOR_STORE_URL`; otherwise the LanceDB directory
 * (`VECTOR_STORE_DIR`, default `.framework/semantic` under `cwd`) is
 * writable, or can be created. Nothing is written.
 */
export async function checkVectorStore(options: { env: NodeJS.ProcessEnv; cwd?: string } & ProbeOptions): Promise<DoctorCheck> {
  const { env } = options;
  if (env.VECTOR_STORE?.trim().toLowerCase() === 'weaviate') {
    return checkService({
      name: 'vector store',
      url: env.VECTOR_STORE_URL || 'http://127.0.0.1:8081',
      path: '/v1/.well-known/ready',
      variable: 'VECTOR_STORE_URL',
      configured: true,
      fix: 'start Weaviate and set VECTOR_STORE_URL to it, or unset VECTOR_STORE to use the embedded LanceDB store',
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      judge: (answer, where) =>
        answer.ok
          ? { status: 'ok', detail: `Weaviate ready at ${where}` }
          : { status: 'missing', detail: `Weaviate at ${where} is not ready (HTTP ${answer.status})` },
    });
  }
  const dir = resolve(options.cwd ?? process.cwd(), env.VECTOR_STORE_DIR || SEMANTIC_DEFAULTS.storeDir);
  const fix = `set VECTOR_STORE_DIR to a directory you can write, or fix the permissions of ${dir}`;
  for (let current = dir; ; current = dirname(current)) {
    let info;
    try {
      info = await stat(current);
    } catch {
      if (dirname(current) === current) break;
      continue; // Not there yet: the store creates it; look at its parent.
    }
    if (!info.isDirectory()) return checkResult('vector store', 'missing', `LanceDB directory ${dir}: ${current} is not a directory`, { fix, required: true });
    try {
      await access(current, constants.W_OK);
    } catch {
      return checkResult('vector store', 'missing', `LanceDB directory ${dir}: ${current} is not writable`, { fix, required: true });
    }
    const how = current === dir ? 'writable' : `will be created (${current} is writable)`;
    return checkResult('vector store', 'ok', `LanceDB directory ${dir} ${how}`, { required: true });
  }
  return checkResult('vector store', 'missing', `LanceDB directory ${dir}: no part of the path exists`, { fix, required: true });
}
