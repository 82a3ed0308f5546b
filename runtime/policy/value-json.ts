/**
 * Conversions between Rego values and JSON / plain JS values.
 *
 * `JSON.parse` rounds integers beyond 2^53; {@link parseJSON} keeps them exact
 * (as bigint) by parsing the text itself when it contains long digit runs.
 */
import { canonicalNumber, normalizeDec, withText } from './decimal.js';
import { foldDeep, MAX_JSON_DEPTH, SHALLOW } from './deep-fold.js';
import { bigNum, num, RegoDecimal, RegoObject, RegoSet, type Value } from './value.js';
import { goJSONKey, jsonEntries } from './value-gojson.js';
import { isWellFormed, jsonQuote, validUTF8, wellFormed } from './go-bytes.js';

/**
 * A value nested more than {@link MAX_JSON_DEPTH} deep, refused where values
 * come in (`bracket`: the `[` or `{` of the first level too many).
 */
export class NestingError extends RangeError {
  constructor(readonly bracket: '[' | '{') {
    super(`a value nested more than ${MAX_JSON_DEPTH} deep (arrays and objects; OPA reads JSON that deep)`);
    this.name = 'NestingError';
  }
}

/** Go's `encoding/json` error for text nested past its limit, as OPA reports it. */
export const maxDepthMessage = (bracket: '[' | '{'): string => `invalid character '${bracket}' exceeded max depth`;

/**
 * Converts a plain JS value (JSON-like: objects, arrays, primitives, bigint) to
 * a Rego value. A string or key with an unpaired surrogate (a JS string may
 * hold one; `JSON.parse` makes one of `"\\udcff"`) becomes U+FFFD, as Go
 * decodes it, so no caller can hand in a raw byte (go-bytes.ts). A value
 * nested more than {@link MAX_JSON_DEPTH} deep is a {@link NestingError}
 * (deep values are converted without recursion).
 */
export function fromJS(x: unknown, options?: DepthOptions): Value {
  return convert(x, true, 0, options?.maxDepth ?? MAX_JSON_DEPTH);
}

/** How deep a value may nest where it comes in: {@link MAX_JSON_DEPTH} unless said otherwise (`Infinity` for text or data the engine wrote itself, or base data, which OPA's store takes at any depth). */
export interface DepthOptions {
  maxDepth?: number;
}

/** fromJS; `check` false skips the surrogate check (for JSON.parse output of text with no `\\u` escape and no lone surrogate). */
function convert(x: unknown, check: boolean, depth: number, maxDepth: number): Value {
  switch (typeof x) {
    case 'string':
      return check ? wellFormed(x) : x;
    case 'boolean':
      return x;
    case 'number':
      if (!Number.isFinite(x)) throw new TypeError(`cannot convert ${x} to a Rego number`);
      return num(x);
    case 'bigint':
      return bigNum(x);
    case 'object': {
      if (x === null) return null;
      if (Array.isArray(x)) {
        if (depth >= SHALLOW) return convertDeep(x, check, maxDepth - depth);
        const out: Value[] = new Array(x.length);
        for (let i = 0; i < x.length; i++) out[i] = convert(x[i] === undefined ? null : x[i], check, depth + 1, maxDepth);
        return out;
      }
      if (x instanceof RegoObject || x instanceof RegoSet || x instanceof RegoDecimal) return x;
      if (depth >= SHALLOW) return convertDeep(x, check, maxDepth - depth);
      if (x instanceof Set) return RegoSet.of([...x].map((y) => convert(y, check, depth + 1, maxDepth)));
      if (x instanceof Map) {
        const o = new RegoObject();
        for (const [k, v] of x) o.set(convert(k, check, depth + 1, maxDepth), convert(v, check, depth + 1, maxDepth));
        return o;
      }
      const o = new RegoObject();
      for (const k of Object.keys(x)) {
        const v = (x as Record<string, unknown>)[k];
        if (v !== undefined) o.set(check ? wellFormed(k) : k, convert(v, check, depth + 1, maxDepth));
      }
      return o;
    }
    default:
      throw new TypeError(`cannot convert a ${typeof x} to a Rego value`);
  }
}

/** The keys of a plain object whose values are not undefined (what {@link convert} keeps). */
const definedKeys = (x: Record<string, unknown>): string[] => Object.keys(x).filter((k) => x[k] !== undefined);

/** {@link convert} folded on an explicit stack: `x` and what it holds, at most `maxDepth` levels. */
function convertDeep(x: object, check: boolean, maxDepth: number): Value {
  return foldDeep<unknown, Value>(x, {
    maxDepth,
    tooDeep: (v) => {
      throw new NestingError(Array.isArray(v) ? '[' : '{');
    },
    open: (v) => {
      if (v === null || typeof v !== 'object' || v instanceof RegoObject || v instanceof RegoSet || v instanceof RegoDecimal) return undefined;
      if (Array.isArray(v)) return v;
      if (v instanceof Set) return [...v];
      if (v instanceof Map) return [...v].flat(1);
      const o = v as Record<string, unknown>;
      return definedKeys(o).map((k) => o[k]);
    },
    leaf: (v) => convert(v === undefined ? null : v, check, 0, Infinity),
    close: (v, _parts, results) => {
      if (Array.isArray(v)) return results;
      if (v instanceof Set) return RegoSet.of(results);
      const o = new RegoObject();
      if (v instanceof Map) for (let i = 0; i < results.length; i += 2) o.set(results[i] as Value, results[i + 1] as Value);
      else definedKeys(v as Record<string, unknown>).forEach((k, i) => o.set(check ? wellFormed(k) : k, results[i] as Value));
      return o;
    },
  });
}

/**
 * Converts a Rego value to plain JS for JSON output: sets become sorted arrays,
 * object keys become strings (non-string keys as their JSON text, like OPA),
 * integers beyond 2^53 stay bigint, a byte that is not UTF-8 is U+FFFD
 * (go-bytes.ts), as Go's encoding/json writes it.
 */
export function toJS(v: Value): unknown {
  return toJSAt(v, 0);
}

function toJSAt(v: Value, depth: number): unknown {
  if (typeof v === 'string') return validUTF8(v);
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof RegoDecimal) return v.toNumber();
  if (depth >= SHALLOW) return toJSDeep(v);
  if (Array.isArray(v) || v instanceof RegoSet) {
    const items = Array.isArray(v) ? v : v.values();
    const out: unknown[] = new Array(items.length);
    for (let i = 0; i < items.length; i++) out[i] = toJSAt(items[i] as Value, depth + 1);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const [k, val] of v.entries()) out[validUTF8(goJSONKey(k))] = toJSAt(val, depth + 1);
  return out;
}

/** The parts of a composite as written in JSON: elements, sorted members, or the values of {@link RegoObject.entries}; undefined for a scalar. */
function jsonParts(v: Value): readonly Value[] | undefined {
  if (Array.isArray(v)) return v;
  if (v instanceof RegoSet) return v.values();
  if (v instanceof RegoObject) return v.entries().map((e) => e[1]);
  return undefined;
}

function toJSDeep(root: Value): unknown {
  return foldDeep<Value, unknown>(root, {
    open: jsonParts,
    leaf: (v) => toJSAt(v, 0),
    close: (v, _parts, results) => {
      if (!(v instanceof RegoObject)) return results;
      const out: Record<string, unknown> = {};
      v.keys().forEach((k, i) => (out[validUTF8(goJSONKey(k))] = results[i]));
      return out;
    },
  });
}

/**
 * An object's entries as JSON members. With string keys only, in the
 * object's (sorted) order; otherwise as OPA writes them: each key as its JSON
 * text, sorted as strings, a later key written the same as an earlier one
 * winning (`1` and `"1"`).
 */
function objectEntries(o: RegoObject): Array<[string, Value]> {
  const entries = o.entries();
  return entries.every(([k]) => typeof k === 'string') ? (entries as Array<[string, Value]>) : jsonEntries(o);
}

/** JSON text of a value; big integers are written exactly. Sets become arrays. */
export function stringifyJSON(v: Value): string {
  return stringifyAt(v, 0);
}

function stringifyAt(v: Value, depth: number): string {
  switch (typeof v) {
    case 'string':
      return jsonQuote(v);
    case 'number':
      return JSON.stringify(v);
    case 'bigint':
      return v.toString();
    case 'boolean':
      return v ? 'true' : 'false';
    default: {
      if (v === null) return 'null';
      if (v instanceof RegoDecimal) return v.toString();
      if (depth >= SHALLOW) return stringifyDeep(v);
      if (Array.isArray(v) || v instanceof RegoSet) {
        const items = Array.isArray(v) ? v : v.values();
        let out = '[';
        for (let i = 0; i < items.length; i++) out += (i === 0 ? '' : ',') + stringifyAt(items[i] as Value, depth + 1);
        return out + ']';
      }
      const entries = objectEntries(v);
      let out = '{';
      for (let i = 0; i < entries.length; i++) {
        const [k, x] = entries[i] as [string, Value];
        out += (i === 0 ? '' : ',') + jsonQuote(k) + ':' + stringifyAt(x, depth + 1);
      }
      return out + '}';
    }
  }
}

function stringifyDeep(root: Value): string {
  return foldDeep<Value, string>(root, {
    open: (v) => (v instanceof RegoObject ? objectEntries(v).map((e) => e[1]) : jsonParts(v)),
    leaf: (v) => stringifyAt(v, 0),
    close: (v, _parts, texts) => {
      if (!(v instanceof RegoObject)) return '[' + texts.join(',') + ']';
      return (
        '{' +
        objectEntries(v)
          .map(([k], i) => jsonQuote(k) + ':' + (texts[i] as string))
          .join(',') +
        '}'
      );
    },
  });
}

/**
 * True when a number token outside the strings of JSON text may not survive
 * `JSON.parse`: 16 or more digits (a double may not hold them), an exponent
 * (`1e3` keeps its text, `1e400` is beyond a double), a fraction ending in
 * 0 (`1.0`, `0.50`) or `-0`: such text is kept (see RegoNumText) or parsed
 * exactly, so it goes through our parser. One pass that jumps over strings
 * with indexOf (it runs on every request body the policy server reads).
 */
export function needsExactParse(text: string): boolean {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // Jump to the closing quote: the first one after an even run of backslashes.
      let close = text.indexOf('"', i + 1);
      for (;;) {
        if (close === -1) return false; // unterminated: JSON.parse reports it
        let k = close - 1;
        while (text.charCodeAt(k) === 92 /* \ */) k--;
        if ((close - k) % 2 === 1) break;
        close = text.indexOf('"', close + 1);
      }
      i = close + 1;
      continue;
    }
    if (c !== 45 /* - */ && (c < 48 || c > 57)) {
      i++;
      continue;
    }
    // A number token: [-] digits [. digits] [e|E [+|-] digits], as far as it goes.
    const start = i;
    let digits = 0;
    let last = 0;
    let fraction = false;
    for (i++; i < n; i++) {
      const d = text.charCodeAt(i);
      if (d >= 48 && d <= 57) {
        digits++;
        last = d;
      } else if (d === 46 /* . */) fraction = true;
      else if (d === 101 || d === 69 /* e E */) return true;
      else break;
    }
    if (c !== 45) digits++;
    if (digits >= 16 || (fraction && last === 48) || (c === 45 && i - start === 2 && text.charCodeAt(start + 1) === 48)) return true;
  }
  return false;
}

/**
 * Parses JSON text into a Rego value, keeping integers beyond 2^53 and
 * numbers beyond a double's range (1e400) exact, as OPA accepts them. Text
 * nested more than {@link MAX_JSON_DEPTH} deep is a `SyntaxError` with Go's
 * words (`invalid character '[' exceeded max depth`), as OPA refuses it.
 */
export function parseJSON(text: string, options?: DepthOptions): Value {
  const maxDepth = options?.maxDepth ?? MAX_JSON_DEPTH;
  if (needsExactParse(text)) return parseJSONExact(text, { maxDepth });
  const parsed: unknown = JSON.parse(text);
  try {
    // JSON.parse makes an unpaired surrogate only of a `\\u` escape or of one already in the text: only then is each string checked.
    return convert(parsed, text.includes('\\u') || !isWellFormed(text), 0, maxDepth);
  } catch (e) {
    if (e instanceof NestingError) throw new SyntaxError(maxDepthMessage(e.bracket), { cause: e });
    throw e;
  }
}

/** {@link parseJSON} by our own parser whatever the text (slower; what the fast path must agree with). */
export function parseJSONExact(text: string, options?: DepthOptions): Value {
  const p = new JsonParser(text, options?.maxDepth ?? MAX_JSON_DEPTH);
  const v = p.value();
  p.ws();
  if (p.pos !== text.length) p.fail('unexpected trailing characters');
  return v;
}

/**
 * How many decimal digits all the exact numbers of one document (a JSON
 * text, a Rego module or query) may hold together, counting each number's
 * written digits and its exponent: what its exact value costs to build and
 * compare grows with that, faster than linearly (1e100000 is an integer of
 * 100,001 digits: tens of milliseconds to build, seconds before it was
 * bounded). A document past it is refused (`RangeError`); 20,000 digits
 * cost a few milliseconds at most.
 */
export const MAX_EXACT_DIGITS = 20_000;

/** Numbers this short cost nothing to hold exactly; they do not count against {@link MAX_EXACT_DIGITS}. */
const CHEAP_DIGITS = 64;

/** Counts the exact digits of one document's numbers (see {@link MAX_EXACT_DIGITS}). */
export class ExactDigits {
  #total = 0;

  /** Adds a number's digits; throws `RangeError` past the document's allowance. */
  count(digits: number, text: string): void {
    if (digits <= CHEAP_DIGITS) return;
    this.#total += digits;
    if (this.#total > MAX_EXACT_DIGITS) {
      throw new RangeError(
        `numbers too large: the document's numbers hold more than ${MAX_EXACT_DIGITS} digits together (at ${text.length > 40 ? `${text.slice(0, 40)}…` : text})`,
      );
    }
  }
}

interface NumberParts {
  sign: string;
  digits: string;
  /** The power of ten the written digits are scaled by. */
  exp: number;
}

function numberParts(text: string): NumberParts | number {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null) throw new SyntaxError(`invalid number: ${text}`);
  const [, sign = '', intPart = '', fracPart = '', expPart] = m;
  // Fast path: short integers.
  if (fracPart === '' && expPart === undefined && intPart.length < 16) return num(Number(text)) as number;
  const exp = (expPart === undefined ? 0 : Number(expPart)) - fracPart.length;
  if (Math.abs(exp) > 100_000) throw new RangeError(`number out of range: ${text}`);
  return { sign, digits: intPart + fracPart, exp };
}

/** Parses a JSON number literal exactly where it is an integer; `digits` counts its cost against its document's allowance. */
export function parseNumberText(text: string, digits?: ExactDigits): number | bigint | RegoDecimal {
  const parts = numberParts(text);
  if (typeof parts === 'number') return parts;
  digits?.count(parts.digits.length + Math.abs(parts.exp), text);
  return canonicalNumber(BigInt(parts.sign + parts.digits), parts.exp);
}

/** A number literal (JSON or Rego) as a value that keeps its text when that is not the canonical print. */
export function parseNumberLiteral(text: string, digits?: ExactDigits): number | bigint | RegoDecimal {
  const parts = numberParts(text);
  if (typeof parts === 'number') return withText(parts === 0 && text.startsWith('-') ? -0 : parts, text);
  digits?.count(parts.digits.length + Math.abs(parts.exp), text);
  // The value as m * 10^e from the written digits, before the (possibly large) integer is built.
  const dec = normalizeDec(BigInt(parts.sign + parts.digits), parts.exp);
  const v = canonicalNumber(dec.m, dec.e);
  // Negative-zero text (-0, -0.0e5) stands for -0, which float arithmetic tells apart.
  return withText(v === 0 && text.startsWith('-') ? -0 : v, text, v === 0 ? undefined : dec);
}

class JsonParser {
  pos = 0;
  readonly digits = new ExactDigits();
  constructor(
    private readonly s: string,
    private readonly maxDepth: number,
  ) {}

  fail(msg: string): never {
    throw new SyntaxError(`JSON: ${msg} at offset ${this.pos}`);
  }

  ws(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const c = s.charCodeAt(this.pos);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.pos++;
      else break;
    }
  }

  /** One value, read on an explicit stack of the arrays and objects open around the current one. */
  value(): Value {
    const s = this.s;
    const open: Array<Value[] | RegoObject> = [];
    /** The key of the member being read, for each open object ('' for an array). */
    const keys: string[] = [];
    for (;;) {
      this.ws();
      const c = s[this.pos];
      let v: Value;
      if (c === '{' || c === '[') {
        if (open.length >= this.maxDepth) throw new SyntaxError(maxDepthMessage(c));
        this.pos++;
        this.ws();
        if (s[this.pos] === (c === '{' ? '}' : ']')) {
          this.pos++;
          v = c === '{' ? new RegoObject() : [];
        } else {
          open.push(c === '{' ? new RegoObject() : []);
          keys.push(c === '{' ? this.key() : '');
          continue;
        }
      } else v = this.scalar(c);
      // Put v in the innermost open array or object; close those that end.
      for (;;) {
        const top = open.length - 1;
        if (top < 0) return v;
        const into = open[top] as Value[] | RegoObject;
        if (Array.isArray(into)) into.push(v);
        else into.set(keys[top] as string, v);
        this.ws();
        const d = s[this.pos];
        if (d === ',') {
          this.pos++;
          if (!Array.isArray(into)) keys[top] = this.key();
          break;
        }
        if (d !== (Array.isArray(into) ? ']' : '}')) this.fail(Array.isArray(into) ? "expected ',' or ']'" : "expected ',' or '}'");
        this.pos++;
        open.pop();
        keys.pop();
        v = into;
      }
    }
  }

  /** An object's key and the colon after it. */
  private key(): string {
    this.ws();
    if (this.s[this.pos] !== '"') this.fail('expected string key');
    const k = this.string();
    this.ws();
    if (this.s[this.pos] !== ':') this.fail("expected ':'");
    this.pos++;
    return k;
  }

  private scalar(c: string | undefined): Value {
    switch (c) {
      case '"':
        return this.string();
      case 't':
        return this.literal('true', true);
      case 'f':
        return this.literal('false', false);
      case 'n':
        return this.literal('null', null);
      default: {
        const m = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
        m.lastIndex = this.pos;
        const r = m.exec(this.s);
        if (r === null) this.fail('unexpected character');
        this.pos += r[0].length;
        return parseNumberLiteral(r[0], this.digits);
      }
    }
  }

  literal<T extends Value>(word: string, v: T): T {
    if (this.s.startsWith(word, this.pos)) {
      this.pos += word.length;
      return v;
    }
    return this.fail('unexpected token');
  }

  string(): string {
    const start = this.pos;
    const s = this.s;
    let i = start + 1;
    while (i < s.length) {
      const c = s.charCodeAt(i);
      if (c === 34) break;
      if (c === 92) i++;
      i++;
    }
    if (i >= s.length) this.fail('unterminated string');
    this.pos = i + 1;
    const text = s.slice(start, i + 1);
    const v = JSON.parse(text) as string;
    return text.includes('\\u') ? wellFormed(v) : v;
  }
}
