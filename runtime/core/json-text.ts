const BIG = '\u0000bigint:';
/** How `BIG` reads once JSON.stringify has escaped it. */
const BIG_ESCAPED = '\\u0000bigint:';

/**
 * `JSON.stringify` that writes bigint values as exact JSON numbers (policy
 * results keep integers beyond 2^53 as bigint), optionally indented.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `${BIG}${v.toString()}` : v), indent);
  return text.includes(BIG_ESCAPED) ? text.replace(/"\\u0000bigint:(-?\d+)"/g, '$1') : text;
}
