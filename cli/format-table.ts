/**
 * A plain-text table: a header row, then one row per entry, columns padded
 * to their widest cell and separated by two spaces.
 *
 * @example
 * formatTable({ head: ['SERVICE', 'PORT'], rows: [['planner', 8100]] });
 * // 'SERVICE  PORT\nplanner  8100'
 */
export function formatTable(options: { head: readonly string[]; rows: ReadonlyArray<ReadonlyArray<string | number>> }): string {
  const all = [options.head, ...options.rows].map((row) => row.map(String));
  const widths = options.head.map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  ')).join('\n');
}
