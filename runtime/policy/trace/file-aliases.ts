/**
 * How OPA's PrettyTraceWithLocation shortens file names when the location
 * column would pass 64 characters (`getShortenedFileNames` and
 * `TruncateFilePaths` in OPA): the longest byte string that every file's
 * directory has in common (after its first segment) is cut from the right
 * until the column fits, and replaced by `...` in each name when it is longer
 * than three bytes (`bundle/.../policy.rego`). Lengths are UTF-8 bytes, as in Go.
 */
import { posix } from 'node:path';

/** OPA's `maxIdealLocationWidth`. */
const MAX_IDEAL_WIDTH = 64;
/** `len("query")`: the width counted for a location in the query. */
const QUERY_WIDTH = 5;
const ELLIPSIS = '...';

/**
 * The name each file is shown by: itself, unless the widest `file:row` (or
 * `query:row`) of the trace passes 64 bytes. `files` in the order they first
 * appear in the trace, with the rows seen.
 */
export function fileAliases(locations: ReadonlyArray<{ file: string; row: number }>): Map<string, string> {
  const aliases = new Map<string, string>();
  let longest = 0;
  for (const { file, row } of locations) {
    const width = (file === '' ? QUERY_WIDTH : Buffer.byteLength(file)) + String(row).length + 1;
    longest = Math.max(longest, width);
    if (file !== '' && !aliases.has(file)) aliases.set(file, file);
  }
  if (aliases.size === 0 || longest <= MAX_IDEAL_WIDTH) return aliases;
  const names = [...aliases.keys()];
  let common: Buffer = longestCommonSubstring(names.map((n) => Buffer.from(afterFirstSegment(n))));
  const diff = MAX_IDEAL_WIDTH - (longest - common.length + ELLIPSIS.length);
  if (diff > 0) common = diff > common.length ? Buffer.alloc(0) : common.subarray(0, common.length - diff);
  if (common.length <= ELLIPSIS.length) return aliases;
  for (const name of names) {
    const bytes = Buffer.from(name);
    const at = bytes.indexOf(common);
    if (at >= 0) aliases.set(name, Buffer.concat([bytes.subarray(0, at), Buffer.from(ELLIPSIS), bytes.subarray(at + common.length)]).toString());
  }
  return aliases;
}

/** OPA's `getPathFromFirstSeparator`: the directory of the path without its first segment (`a/b/c/x.rego` → `b/c`). */
function afterFirstSegment(file: string): string {
  // Go's filepath.Dir: the directory, cleaned (`.` for none).
  let dir = posix.normalize(posix.dirname(file));
  if (dir.length > 1) dir = dir.replace(/\/$/, '');
  if (dir.startsWith('/')) dir = dir.slice(1);
  const first = dir.indexOf('/');
  return first > 0 ? dir.slice(first + 1) : dir;
}

/**
 * The longest common substring of the byte strings, found as OPA's `lcss`
 * finds it (so that ties resolve the same way): the suffixes of all strings in
 * one lexicographic order, the first strictly longest common prefix of the
 * latest suffix taken from each string.
 */
export function longestCommonSubstring(strs: readonly Buffer[]): Buffer {
  if (strs.length === 0) return Buffer.alloc(0);
  if (strs.length === 1) return strs[0] as Buffer;
  const minLength = Math.min(...strs.map((s) => s.length));
  const suffixes = strs.map((s) => suffixArray(s));
  const heads = strs.map(() => 0);
  const latest: Array<Buffer | undefined> = strs.map(() => undefined);
  let seen = 0;
  let best: Buffer = Buffer.alloc(0);
  for (;;) {
    let min = -1;
    let minSuffix: Buffer | undefined;
    for (const [i, s] of strs.entries()) {
      const order = suffixes[i] as number[];
      const head = heads[i] as number;
      if (head >= order.length) continue;
      const suffix = s.subarray(order[head]);
      if (minSuffix === undefined || Buffer.compare(minSuffix, suffix) > 0) {
        min = i;
        minSuffix = suffix;
      }
    }
    if (min < 0 || minSuffix === undefined) break;
    if (latest[min] === undefined) seen++;
    latest[min] = minSuffix;
    heads[min] = (heads[min] as number) + 1;
    if (seen === strs.length) {
      const length = commonPrefixLength(latest as Buffer[]);
      if (length > best.length) {
        best = minSuffix.subarray(0, length);
        if (length === minLength) break;
      }
    }
  }
  return best;
}

function suffixArray(s: Buffer): number[] {
  return Array.from({ length: s.length }, (_, i) => i).sort((a, b) => Buffer.compare(s.subarray(a), s.subarray(b)));
}

function commonPrefixLength(strs: readonly Buffer[]): number {
  const first = strs[0] as Buffer;
  let n = first.length;
  for (const s of strs) {
    let i = 0;
    while (i < n && i < s.length && s[i] === first[i]) i++;
    n = i;
  }
  return n;
}
