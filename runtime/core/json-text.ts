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
  let text: string;
  try {
    text = JSON.stringify(
      value,
      function (this: Record<string, unknown>, key: string, v: unknown) {
        const raw = this[key];
        if (raw instanceof JsonNumber) return `${EXACT}${raw.text}`;
        return typeof v === 'bigint' ? `${EXACT}${v.toString()}` : v;
      },
      indent,
    );
  } catch (error) {
    // V8's JSON.stringify recurses: a value some thousands deep (a policy's answer: OPA takes input 10,000 deep) exhausts the stack.
    if (!(error instanceof RangeError) || !/call stack/i.test(error.message)) throw error;
    return stringifyDeep(value, indent);
  }
  return text.includes(EXACT_ESCAPED) ? text.replace(EXACT_STRING, '$1') : text;
}

/** A value as JSON writes it: the text of a scalar, or undefined for what JSON leaves out (undefined, functions, symbols). */
function scalarJson(v: unknown): string | undefined {
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'bigint') return v.toString();
  return JSON.stringify(v) as string | undefined;
}

/** What JSON writes for `v`: its `toJSON()` when it has one (a JsonNumber is written as its text). */
function jsonOf(v: unknown, key: string): unknown {
  if (v instanceof JsonNumber) return v;
  const toJSON = v !== null && typeof v === 'object' ? (v as { toJSON?: unknown }).toJSON : undefined;
  return typeof toJSON === 'function' ? (toJSON as (key: string) => unknown).call(v, key) : v;
}

interface Open {
  array: boolean;
  members: Array<[string, unknown]>;
  at: number;
  texts: string[];
  /** The member's key text (`"k":`) in the object above, '' in an array or at the top. */
  lead: string;
}

/** {@link stringifyJson} on an explicit stack, for values nested past V8's recursion (same text as `JSON.stringify` with the replacer above). */
export function stringifyDeep(root: unknown, indent?: number): string {
  const step = indent === undefined ? '' : ' '.repeat(Math.max(0, Math.min(10, Math.floor(indent))));
  const nl = (depth: number): string => (step === '' ? '' : `\n${step.repeat(depth)}`);
  const opened: Open[] = [];
  const open = (v: unknown, lead: string): boolean => {
    if (v === null || typeof v !== 'object' || v instanceof JsonNumber) return false;
    const array = Array.isArray(v);
    const members: Array<[string, unknown]> = array ? v.map((x, i) => [String(i), x]) : Object.entries(v as Record<string, unknown>);
    opened.push({ array, members, at: 0, texts: [], lead });
    return true;
  };
  const top = jsonOf(root, '');
  if (!open(top, '')) return scalarJson(top) as string;
  for (;;) {
    const frame = opened[opened.length - 1] as Open;
    if (frame.at < frame.members.length) {
      const [key, raw] = frame.members[frame.at++] as [string, unknown];
      const v = jsonOf(raw, key);
      const lead = frame.array ? '' : `${JSON.stringify(key)}:${step === '' ? '' : ' '}`;
      if (open(v, lead)) continue;
      const text = scalarJson(v);
      if (text !== undefined) frame.texts.push(lead + text);
      else if (frame.array) frame.texts.push('null');
      continue;
    }
    opened.pop();
    const depth = opened.length;
    const [l, r] = frame.array ? ['[', ']'] : ['{', '}'];
    const text = frame.texts.length === 0 ? l + r : l + nl(depth + 1) + frame.texts.join(',' + nl(depth + 1)) + nl(depth) + r;
    const parent = opened[opened.length - 1];
    if (parent === undefined) return text;
    parent.texts.push(frame.lead + text);
  }
}
