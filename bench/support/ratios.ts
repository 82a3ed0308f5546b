/** Helpers for figures measured in interleaved rounds against a baseline of the same run. */

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** `0.62× (0.55-0.70, 5 rounds)`: the median of per-round ratios, with their range. */
export function ratioSummary(ratios: readonly number[], digits = 2): string {
  return `${median(ratios).toFixed(digits)}× (${Math.min(...ratios).toFixed(digits)}-${Math.max(...ratios).toFixed(digits)}, ${ratios.length} rounds)`;
}

/** `target ≥ 0.7× met` or `… MISSED`: `at least` for throughput-like figures, `at most` for costs. */
export function targetMark(value: number, target: number, kind: 'at least' | 'at most', unit = '×'): string {
  const met = kind === 'at least' ? value >= target : value <= target;
  return `target ${kind === 'at least' ? '≥' : '≤'} ${target}${unit} ${met ? 'met' : 'MISSED'}`;
}
