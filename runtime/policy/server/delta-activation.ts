/**
 * A delta bundle activated over the active bundle of the same name (OPA's
 * `activateDeltaBundles`): the roots must be the same, the patches apply in
 * order to a copy of the active data, and the result must not put data where
 * a rule is (`ast.CheckPathConflicts`). See bundle-delta.ts for the file.
 */
import { createHash } from 'node:crypto';
import { applyDataOp, checkDataConflicts, DataWriteError, type DataOp } from './data-writes.js';
import { DeltaBundleError, type DeltaOp } from './bundle-delta.js';
import type { LoadedBundle } from './bundle.js';
import { copyPlainData } from './plain-data.js';

/** The roots of a delta bundle compared as OPA compares them: as sets. */
function sameRoots(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((r) => right.has(r));
}

/**
 * The bundle a delta makes of the active one (`undefined` when none is
 * active: the patches then apply to empty data): the active modules, its data
 * patched in order, the delta's revision and metadata. Throws
 * `DeltaBundleError` with OPA's message when the roots differ or a patch
 * does not apply; nothing of the active bundle changes.
 */
export function applyDelta(name: string, active: LoadedBundle | undefined, delta: LoadedBundle, ops: readonly DeltaOp[]): LoadedBundle {
  if (active !== undefined && !sameRoots(active.info.roots, delta.info.roots)) {
    throw new DeltaBundleError(`delta bundle '${name}' has wasm resolvers or manifest roots that are different from those in the store`);
  }
  let data = copyPlainData(active?.files.data ?? {});
  const modules = active?.files.modules ?? [];
  try {
    for (const op of ops) {
      const write: DataOp = { op: op.op === 'upsert' ? 'add' : op.op, path: op.path, ...(op.op === 'remove' ? {} : { value: op.value }) };
      data = applyDataOp(data, write, op.op === 'upsert');
    }
    checkDataConflicts(modules, data);
  } catch (error) {
    if (error instanceof DataWriteError) throw new DeltaBundleError(error.message);
    throw error;
  }
  const digest = createHash('sha256')
    .update(`${active?.files.digest ?? ''}\0${delta.files.digest ?? ''}`)
    .digest('hex');
  return {
    files: { modules, data, problems: [], digest },
    info: { ...delta.info, roots: active?.info.roots ?? delta.info.roots, type: 'delta' },
  };
}
