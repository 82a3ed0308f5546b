import { loadNative, NATIVE_PACKAGES, RUNTIME_INSTALL_COMMAND } from '../core/native-runtime.js';
import { VectorStoreUnavailableError } from './vector-store-unavailable-error.js';

type LanceDb = typeof import('@lancedb/lancedb');

/**
 * LanceDB, loaded on first use (see `loadNative`): importing the toolkit
 * neither loads nor needs it. Missing: `VectorStoreUnavailableError` naming
 * the install command.
 */
export async function loadLanceDb(options: { dir: string }): Promise<LanceDb> {
  const loaded = await loadNative<LanceDb & { default?: LanceDb }>(
    '@lancedb/lancedb',
    () =>
      new VectorStoreUnavailableError({
        kind: 'LanceDB',
        location: options.dir,
        detail: `@lancedb/lancedb ${NATIVE_PACKAGES['@lancedb/lancedb']} is not installed. Install it: ${RUNTIME_INSTALL_COMMAND}.`,
      }),
  );
  // A CommonJS package imported by path: its exports may sit on `default` only.
  return typeof loaded.connect === 'function' ? loaded : loaded.default!;
}
