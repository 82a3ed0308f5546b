const EXACT = '\u0000number:';
/** How `EXACT` reads once JSON.stringify has escaped it. */
const EXACT_ESCAPED = '\\u0000number:';
const EXACT_STRING = /"\\u0000number:(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)"/g;

/**
 * A JSON number given by its exact text, for numbers a double cannot hold
 * (policy values such as `1e400` or 30 significant digits). `stringifyJson`
 * writes the text as it is; a plain `JSON.stringify` writes the nearest double.
 */
export class JsonNumber {
  constructor(readonly text: string) {}

  toJSON(): number {
    return Number(this.text);
  }
}

/**
 * `JSON.stringify` that writes bigint values and `JsonNumber`s as exact JSON
 * numbers (policy results keep integers beyond 2^53 as bigint), optionally indented.
 */
export function stringifyJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(
    value,
    function (this: Record<string, unknown>, key: string, v: unknown) {
      const raw = this[key];
      if (raw instanceof JsonNumber) return `${EXACT}${raw.text}`;
      return typeof v === 'bigint' ? `${EXACT}${v.toString()}` : v;
    },
    indent,
  );
  return text.includes(EXACT_ESCAPED) ? text.replace(EXACT_STRING, '$1') : text;
}
