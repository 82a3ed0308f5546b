/** The offset where each line of `source` starts (the first is 0), for turning offsets into rows and back. */
export function lineStarts(source: string): number[] {
  const out = [0];
  for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) out.push(i + 1);
  return out;
}

/** The 0-based index of the line holding `offset`, given the {@link lineStarts} of its source. */
export function lineIndexAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
