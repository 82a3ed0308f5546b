import { access, constants, mkdir } from 'node:fs/promises';
import { loadNative, nativeInstalled, NATIVE_PACKAGES, RUNTIME_INSTALL_COMMAND } from '../core/native-runtime.js';
import { VectorStoreUnavailableError } from './vector-store-unavailable-error.js';

type LanceDb = typeof import('@lancedb/lancedb');

/**
 * LanceDB, loaded on first use (see `loadNative`): importing the toolkit
 * neither loads nor needs it. Missing: `VectorStoreUnavailableError` naming
 * the install command.
 */
export async function loadLanceDb(options: { dir: string }): Promise<LanceDb> {
  const loaded = await loadNative<LanceDb & { default?: LanceDb }>('@lancedb/lancedb', () => notInstalled(options.dir));
  // A CommonJS package imported by path: its exports may sit on `default` only.
  return typeof loaded.connect === 'function' ? loaded : loaded.default!;
}

/**
 * What opening a LanceDB store in `dir` needs, checked without loading
 * LanceDB: the package installed, the directory there (created when
 * missing) and writable. Fails with the `VectorStoreUnavailableError` that
 * opening would throw.
 */
export async function checkLanceDbOpenable(options: { dir: string }): Promise<void> {
  if (!(await nativeInstalled('@lancedb/lancedb'))) throw notInstalled(options.dir);
  try {
    await mkdir(options.dir, { recursive: true });
    await access(options.dir, constants.R_OK | constants.W_OK);
  } catch (cause) {
    throw new VectorStoreUnavailableError({
      kind: 'lancedb',
      location: options.dir,
      detail: `could not open the directory: ${cause instanceof Error ? cause.message.split('\n')[0]! : String(cause)}`,
      cause,
    });
  }
}

function notInstalled(dir: string): VectorStoreUnavailableError {
  return new VectorStoreUnavailableError({
    kind: 'LanceDB',
    location: dir,
    detail: `@lancedb/lancedb ${NATIVE_PACKAGES['@lancedb/lancedb']} is not installed. Install it: ${RUNTIME_INSTALL_COMMAND}.`,
  });
}
