/**
 * Unified diff of two texts by lines (for `policy fmt --diff`): a longest
 * common subsequence over the lines that differ, hunks with three lines of
 * context, `--- file` / `+++ file (formatted)` headers.
 */

type Op = { kind: ' ' | '-' | '+'; line: string };

/** Above this many cells the texts are shown as one replaced block instead of a minimal diff. */
const MAX_CELLS = 25_000_000;

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function diffOps(a: string[], b: string[]): Op[] {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const x = a.slice(pre, a.length - suf);
  const y = b.slice(pre, b.length - suf);
  const ops: Op[] = a.slice(0, pre).map((line) => ({ kind: ' ', line }));
  const n = x.length;
  const m = y.length;
  if ((n + 1) * (m + 1) > MAX_CELLS) {
    for (const line of x) ops.push({ kind: '-', line });
    for (const line of y) ops.push({ kind: '+', line });
  } else {
    // lcs[i][j]: length of the LCS of x[i..] and y[j..].
    const w = m + 1;
    const lcs = new Uint32Array((n + 1) * w);
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * w + j] = x[i] === y[j] ? (lcs[(i + 1) * w + j + 1] as number) + 1 : Math.max(lcs[(i + 1) * w + j] as number, lcs[i * w + j + 1] as number);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && x[i] === y[j]) {
        ops.push({ kind: ' ', line: x[i++] as string });
        j++;
      } else if (i < n && (j === m || (lcs[(i + 1) * w + j] as number) >= (lcs[i * w + j + 1] as number))) ops.push({ kind: '-', line: x[i++] as string });
      else ops.push({ kind: '+', line: y[j++] as string });
    }
  }
  for (const line of a.slice(a.length - suf)) ops.push({ kind: ' ', line });
  return ops;
}

/** `diff -u` style text; empty when the texts are equal. */
export function unifiedDiff(options: { before: string; after: string; file: string; context?: number }): string {
  if (options.before === options.after) return '';
  const context = options.context ?? 3;
  const ops = diffOps(splitLines(options.before), splitLines(options.after));
  let out = `--- ${options.file}\n+++ ${options.file} (formatted)\n`;
  let k = 0;
  while (k < ops.length) {
    while (k < ops.length && (ops[k] as Op).kind === ' ') k++;
    if (k >= ops.length) break;
    // A hunk: from `context` lines before the change to `context` lines after the last change close to it.
    const start = Math.max(0, k - context);
    let end = k;
    let quiet = 0;
    while (end < ops.length && quiet <= 2 * context) {
      quiet = (ops[end] as Op).kind === ' ' ? quiet + 1 : 0;
      end++;
    }
    end = Math.min(ops.length, end - Math.max(0, quiet - context));
    let aLine = 1;
    let bLine = 1;
    for (let p = 0; p < start; p++) {
      if ((ops[p] as Op).kind !== '+') aLine++;
      if ((ops[p] as Op).kind !== '-') bLine++;
    }
    const hunk = ops.slice(start, end);
    const aLen = hunk.filter((o) => o.kind !== '+').length;
    const bLen = hunk.filter((o) => o.kind !== '-').length;
    out += `@@ -${aLen === 0 ? aLine - 1 : aLine},${aLen} +${bLen === 0 ? bLine - 1 : bLine},${bLen} @@\n`;
    for (const o of hunk) out += o.kind + o.line + '\n';
    k = end;
  }
  return out;
}
