/**
 * Bottom-up folds over nested values on an explicit stack, for values nested
 * deeper than JS's call stack allows recursion (OPA reads JSON 10,000 deep,
 * and Go's stacks grow). The recursive walks of the engine (equality, keys,
 * conversions, JSON and YAML writers) stay recursive for the first
 * {@link SHALLOW} levels, where they are fastest, and hand anything deeper
 * to a fold.
 */

/** Nesting past which a recursive walk hands the rest of a value to its fold (a few thousand frames fit on JS's stack). */
export const SHALLOW = 128;

/** How deep OPA reads JSON (Go's `encoding/json` limit): 10,000 nested arrays and objects are read, 10,001 are `exceeded max depth`. */
export const MAX_JSON_DEPTH = 10_000;

export interface FoldOptions<T, R> {
  /** The parts of a composite, folded in order; undefined for a leaf (or a part whose result is known). */
  open: (v: T) => readonly T[] | undefined;
  /** The result of a leaf. */
  leaf: (v: T) => R;
  /** The result of a composite from its parts' results (`parts` as `open` gave them). */
  close: (v: T, parts: readonly T[], results: R[]) => R;
  /** How many composites may be open at once; past it `tooDeep` is called with the one being opened (it throws). */
  maxDepth?: number;
  tooDeep?: (v: T) => never;
}

/**
 * Folds `root` bottom-up without recursion: each composite's parts first,
 * then the composite from their results.
 *
 * @example
 * foldDeep([[1], [2, [3]]], { open: (v) => (Array.isArray(v) ? v : undefined), leaf: () => 1, close: (_v, _p, r) => r.reduce((a, b) => a + b, 0) }); // 3
 */
export function foldDeep<T, R>(root: T, options: FoldOptions<T, R>): R {
  const { open, leaf, close } = options;
  const maxDepth = options.maxDepth ?? Infinity;
  const values: T[] = [];
  const partsOf: Array<readonly T[]> = [];
  const resultsOf: R[][] = [];
  let v = root;
  for (;;) {
    let r: R;
    const parts = open(v);
    if (parts === undefined) r = leaf(v);
    else {
      if (values.length >= maxDepth) (options.tooDeep ?? tooDeepDefault)(v);
      if (parts.length > 0) {
        values.push(v);
        partsOf.push(parts);
        resultsOf.push([]);
        v = parts[0] as T;
        continue;
      }
      r = close(v, parts, []);
    }
    // Climb while the composite above has all its parts' results.
    for (;;) {
      const top = values.length - 1;
      if (top < 0) return r;
      const results = resultsOf[top] as R[];
      const parts = partsOf[top] as readonly T[];
      results.push(r);
      if (results.length < parts.length) {
        v = parts[results.length] as T;
        break;
      }
      r = close(values[top] as T, parts, results);
      values.pop();
      partsOf.pop();
      resultsOf.pop();
    }
  }
}

function tooDeepDefault(): never {
  throw new RangeError(`a value nested more than ${MAX_JSON_DEPTH} deep`);
}
