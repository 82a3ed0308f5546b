/**
 * "Did you mean …?" suggestions as gqlparser words them: candidates within
 * an edit distance of 40% of the typed name's length (plus one), closest
 * first, at most five, `"A", "B", or "C"`.
 */

/** Levenshtein distance over code points; a change of case alone counts as one edit. */
function lexicalDistance(a: string, b: string): number {
  if (a === b) return 0;
  const x = [...a.toLowerCase()];
  const y = [...b.toLowerCase()];
  if (x.join('') === y.join('')) return 1;
  let prev = Array.from({ length: y.length + 1 }, (_, i) => i);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
    }
    prev = row;
  }
  return prev[y.length] as number;
}

/** The options close enough to `typed`, closest first (ties keep the options' order). */
export function suggestionList(typed: string, options: readonly string[]): string[] {
  const threshold = Math.max(Math.floor(Buffer.byteLength(typed) * 0.4) + 1, 1);
  const scored: Array<[string, number]> = [];
  for (const option of options) {
    const d = lexicalDistance(typed, option);
    if (d <= threshold) scored.push([option, d]);
  }
  return scored.sort((a, b) => a[1] - b[1]).map(([o]) => o);
}

/** `A, B, or C` (the first five), `A or B`. */
export function orList(items: readonly string[]): string {
  const five = items.slice(0, 5);
  if (five.length === 2) return `${five[0]} or ${five[1]}`;
  return five.map((item, i) => (i === 0 ? item : i === five.length - 1 ? `, or ${item}` : `, ${item}`)).join('');
}

export function quotedOrList(items: readonly string[]): string {
  return orList(items.map((i) => `"${i}"`));
}

/** ` <prefix> "A" or "B"?` when some option is close to `typed`, else nothing. */
export function suggestQuoted(prefix: string, typed: string, options: readonly string[]): string {
  const list = suggestionList(typed, options);
  return list.length > 0 ? ` ${prefix} ${quotedOrList(list)}?` : '';
}

export function suggestUnquoted(prefix: string, typed: string, options: readonly string[]): string {
  const list = suggestionList(typed, options);
  return list.length > 0 ? ` ${prefix} ${orList(list)}?` : '';
}
