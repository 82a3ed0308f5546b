/**
 * Where a parsed JSON value holds a number that is not finite (a dotted
 * path, `''` for the value itself), or undefined when it holds none.
 * `JSON.parse` reads `1e400` (or 400 digits) as `Infinity`, and
 * `JSON.stringify` then writes `null`: a value that must reach a policy
 * would silently change on the way. Callers refuse such a value with the
 * path this returns. Walks without recursion, so a deep value cannot
 * overflow the stack.
 *
 * @example
 * nonFiniteNumberAt(JSON.parse('{"amount": 1e400}')); // 'amount'
 * nonFiniteNumberAt({ legs: [{ qty: 1 }, { qty: NaN }] }); // 'legs[1].qty'
 * nonFiniteNumberAt({ amount: 100 }); // undefined
 */
export function nonFiniteNumberAt(root: unknown): string | undefined {
  const pending: Array<[value: unknown, path: string]> = [[root, '']];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return path;
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) pending.push([value[i], `${path}[${i}]`]);
      continue;
    }
    const entries = Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, item] = entries[i] as [string, unknown];
      pending.push([item, path === '' ? key : `${path}.${key}`]);
    }
  }
  return undefined;
}
