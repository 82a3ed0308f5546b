/**
 * Delta bundles, as OPA's bundle plugin applies them (`bundle/bundle.go`,
 * `bundle/store.go`): a bundle whose `patch.json` holds operations
 * (`{"data": [{"op": "upsert", "path": "/a/b", "value": 1}]}`) patches the
 * data of the bundle already active instead of replacing it. `upsert` sets
 * a value (making the objects above it), `remove` and `replace` need the
 * value to be there. A delta bundle carries no modules and no data files,
 * its patches lie under its roots, and its roots are the active bundle's.
 */

/** One operation of `patch.json`, its path parsed into keys. */
export interface DeltaOp {
  op: 'upsert' | 'remove' | 'replace';
  /** The path as written (`/a/b`), for messages. */
  pointer: string;
  path: string[];
  value?: unknown;
}

/** A `patch.json` that cannot be read (`bundle load failed on patch decode: ...`) or applied (OPA's storage errors). */
export class DeltaBundleError extends Error {
  override readonly name = 'DeltaBundleError';
}

/**
 * The operations of a `patch.json` file; empty when it names none (then the
 * bundle is a snapshot, as OPA's `Bundle.Type()` decides).
 */
export function readPatchFile(bytes: Buffer): DeltaOp[] {
  const decode = (why: string) => new DeltaBundleError(`bundle load failed on patch decode: ${why}`);
  let patch: unknown;
  try {
    patch = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw decode((error as Error).message);
  }
  if (patch === null) return [];
  if (typeof patch !== 'object' || Array.isArray(patch)) throw decode('patch.json must be an object such as {"data": [...]}');
  const data = (patch as Record<string, unknown>).data;
  if (data === undefined || data === null) return [];
  if (!Array.isArray(data)) throw decode('"data" must be an array of patch operations');
  return data.map((entry: unknown, i) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw decode(`patch operation ${i} is not an object`);
    const { op, path, value } = entry as Record<string, unknown>;
    if (typeof op !== 'string') throw decode(`patch operation ${i}: "op" must be a string`);
    if (typeof path !== 'string') throw decode(`patch operation ${i}: "path" must be a string`);
    if (op !== 'upsert' && op !== 'remove' && op !== 'replace') throw new DeltaBundleError(`bad patch operation: ${op}`);
    const keys = patchPath(path);
    return { op, pointer: path, path: keys, ...(op === 'remove' ? {} : { value: value ?? null }) };
  });
}

/**
 * OPA's `ParsePatchPathEscaped("/" + strings.Trim(path, "/"))`: keys
 * percent-decoded where they decode, then `~1` as `/` and `~0` as `~`.
 */
function patchPath(path: string): string[] {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (trimmed === '') throw new DeltaBundleError(`a data patch at the root of data (path ${JSON.stringify(path)}) is refused; patch under the bundle's roots`);
  return trimmed.split('/').map((key) => {
    let segment = key;
    try {
      segment = decodeURIComponent(key);
    } catch {
      // Go's url.PathUnescape fails on a bad escape, and OPA then keeps the key as written.
    }
    return segment.replaceAll('~1', '/').replaceAll('~0', '~');
  });
}
