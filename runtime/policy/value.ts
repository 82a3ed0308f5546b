/**
 * Rego values: null, boolean, number, string, array, set and object.
 *
 * Representation (chosen so the common path stays on plain JS primitives):
 * - null, boolean, string: the JS primitive.
 * - number: numbers are exact decimals, as in OPA. Integers are a JS `number`
 *   in the safe range (|n| <= 2^53 - 1) and a `bigint` outside it; fractions
 *   are a double when the double's shortest text is exactly the fraction
 *   (0.25, 0.1) and a {@link RegoDecimal} otherwise (0.1234567890123456789,
 *   1e-400). Each number has exactly one representation (constructors go
 *   through {@link num} / {@link bigNum} / `canonicalNumber`), so `===` and Map
 *   keys work. A number whose written text is not that canonical print (`1e3`,
 *   `1.10`, `-0`) is a {@link RegoNumText}: the canonical value plus the text,
 *   which OPA keeps and prints until arithmetic touches the number; equality,
 *   ordering and hashing use the value.
 * - array: a plain JS array of values (never mutated once built).
 * - set: {@link RegoSet}; object: {@link RegoObject}. Object keys may be any value.
 *
 * Ordering and equality follow OPA: null < boolean < number < string < array <
 * object < set; arrays compare element-wise then by length; objects compare
 * their sorted keys and values pairwise; sets compare their sorted elements.
 * Strings compare by Unicode code point (the order of their UTF-8 bytes; a
 * byte that is not UTF-8 by its value, see go-bytes.ts).
 */

import { compareDec, decOf, RegoDecimal, RegoNumText } from './decimal.js';
import { foldDeep, SHALLOW } from './deep-fold.js';
import { goBytes } from './go-bytes.js';

export { RegoDecimal, RegoNumText };

export type Scalar = null | boolean | number | bigint | string;
export type Value = Scalar | RegoDecimal | Value[] | RegoSet | RegoObject;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const MIN_SAFE = Number.MIN_SAFE_INTEGER;
const BIG_MAX_SAFE = BigInt(MAX_SAFE);
const BIG_MIN_SAFE = BigInt(MIN_SAFE);

/** Normalises a JS number: unsafe integers become bigint, -0 becomes 0. */
export function num(n: number): number | bigint {
  if (Number.isInteger(n)) {
    if (n > MAX_SAFE || n < MIN_SAFE) return BigInt(n);
    return n === 0 ? 0 : n;
  }
  return n;
}

/** Normalises a bigint: values in the safe range become a JS number. */
export function bigNum(b: bigint): number | bigint {
  return b <= BIG_MAX_SAFE && b >= BIG_MIN_SAFE ? Number(b) : b;
}

export type NumberValue = number | bigint | RegoDecimal;

export function isNumber(v: Value | undefined): v is NumberValue {
  const t = typeof v;
  return t === 'number' || t === 'bigint' || v instanceof RegoDecimal;
}

/** True for integers of either representation. */
export function isInteger(v: NumberValue): boolean {
  if (v instanceof RegoNumText) return isInteger(v.value);
  return typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));
}

export function isScalar(v: Value): v is Scalar | RegoDecimal {
  return v === null || typeof v !== 'object' || v instanceof RegoDecimal;
}

const arrayKeys = new WeakMap<Value[], string>();

/** A set of Rego values with canonical (OPA) equality. Iteration is in sorted order. */
export class RegoSet {
  private readonly scalars = new Set<Scalar>();
  /** Kept text of number members (the first one added wins, as in OPA: {1e3, 1000} prints {1e3}). */
  private texts: Map<Scalar, RegoNumText> | null = null;
  private composites: Map<string, Value> | null = null;
  private sortedCache: Value[] | null = null;
  /** @internal canonical key cache */
  keyCache: string | null = null;

  static of(values: Iterable<Value>): RegoSet {
    const s = new RegoSet();
    for (const v of values) s.add(v);
    return s;
  }

  get size(): number {
    return this.scalars.size + (this.composites === null ? 0 : this.composites.size);
  }

  has(v: Value): boolean {
    if (v === null || typeof v !== 'object') return this.scalars.has(v);
    if (v instanceof RegoNumText) return this.has(v.value);
    return this.composites !== null && this.composites.has(canonicalKey(v));
  }

  /** Adds a value. Only for building a set before it is shared. Returns true if it was new. */
  add(v: Value): boolean {
    // A number's kept text is not part of its identity: 1e3 and 1000 are one member.
    const member = v;
    if (v instanceof RegoNumText) v = v.value;
    if (v === null || typeof v !== 'object') {
      if (this.scalars.has(v)) return false;
      this.scalars.add(v);
      if (member !== v) (this.texts ??= new Map()).set(v, member as RegoNumText);
    } else {
      const k = canonicalKey(v);
      if (this.composites === null) this.composites = new Map();
      else if (this.composites.has(k)) return false;
      this.composites.set(k, member);
    }
    this.sortedCache = null;
    this.keyCache = null;
    return true;
  }

  /** Members in OPA order. */
  values(): readonly Value[] {
    if (this.sortedCache === null) {
      const texts = this.texts;
      const out: Value[] = texts === null ? [...this.scalars] : [...this.scalars].map((x) => texts.get(x) ?? x);
      if (this.composites !== null) for (const v of this.composites.values()) out.push(v);
      out.sort(compare);
      this.sortedCache = out;
    }
    return this.sortedCache;
  }

  [Symbol.iterator](): Iterator<Value> {
    return this.values()[Symbol.iterator]();
  }
}

/** An object whose keys may be any Rego value. Iteration is in sorted key order. */
export class RegoObject {
  private readonly scalars = new Map<Scalar, Value>();
  /** Kept text of number keys (the first one set wins). */
  private texts: Map<Scalar, RegoNumText> | null = null;
  private composites: Map<string, [Value, Value]> | null = null;
  private sortedKeysCache: Value[] | null = null;
  /** @internal canonical key cache */
  keyCache: string | null = null;

  static fromEntries(entries: Iterable<readonly [Value, Value]>): RegoObject {
    const o = new RegoObject();
    for (const [k, v] of entries) o.set(k, v);
    return o;
  }

  get size(): number {
    return this.scalars.size + (this.composites === null ? 0 : this.composites.size);
  }

  get(key: Value): Value | undefined {
    if (key === null || typeof key !== 'object') return this.scalars.get(key);
    if (key instanceof RegoNumText) return this.get(key.value);
    if (this.composites === null) return undefined;
    const e = this.composites.get(canonicalKey(key));
    return e === undefined ? undefined : e[1];
  }

  has(key: Value): boolean {
    return this.get(key) !== undefined;
  }

  /** Sets a key. Only for building an object before it is shared. */
  set(key: Value, value: Value): void {
    const written = key;
    if (key instanceof RegoNumText) key = key.value;
    if (key === null || typeof key !== 'object') {
      if (!this.scalars.has(key)) {
        this.sortedKeysCache = null;
        if (written !== key) (this.texts ??= new Map()).set(key, written as RegoNumText);
      }
      this.scalars.set(key, value);
    } else {
      const k = canonicalKey(key);
      if (this.composites === null) this.composites = new Map();
      const had = this.composites.get(k);
      if (had === undefined) this.sortedKeysCache = null;
      this.composites.set(k, [had === undefined ? written : had[0], value]);
    }
    this.keyCache = null;
  }

  /** Removes a key. Only for building an object before it is shared. */
  delete(key: Value): void {
    if (key instanceof RegoNumText) key = key.value;
    if (key === null || typeof key !== 'object') {
      if (this.scalars.delete(key)) this.sortedKeysCache = null;
      this.texts?.delete(key);
    } else if (this.composites !== null && this.composites.delete(canonicalKey(key))) {
      this.sortedKeysCache = null;
    }
    this.keyCache = null;
  }

  /** Keys in OPA order. */
  keys(): readonly Value[] {
    if (this.sortedKeysCache === null) {
      const texts = this.texts;
      const out: Value[] = texts === null ? [...this.scalars.keys()] : [...this.scalars.keys()].map((x) => texts.get(x) ?? x);
      if (this.composites !== null) for (const [k] of this.composites.values()) out.push(k);
      if (out.length > 1) out.sort(compare);
      this.sortedKeysCache = out;
    }
    return this.sortedKeysCache;
  }

  /** Entries in OPA key order. */
  entries(): Array<[Value, Value]> {
    const keys = this.keys();
    const out: Array<[Value, Value]> = new Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as Value;
      out[i] = [k, this.get(k) as Value];
    }
    return out;
  }

  /** A shallow copy that may be modified. */
  copy(): RegoObject {
    const o = new RegoObject();
    for (const [k, v] of this.scalars) o.scalars.set(k, v);
    if (this.texts !== null) o.texts = new Map(this.texts);
    if (this.composites !== null) o.composites = new Map(this.composites);
    return o;
  }
}

// ---------------------------------------------------------------------------
// Type names and ranks

export type TypeName = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'set';

export function typeName(v: Value): TypeName {
  switch (typeof v) {
    case 'boolean':
      return 'boolean';
    case 'number':
    case 'bigint':
      return 'number';
    case 'string':
      return 'string';
    default:
      if (v === null) return 'null';
      if (Array.isArray(v)) return 'array';
      if (v instanceof RegoSet) return 'set';
      if (v instanceof RegoDecimal) return 'number';
      return 'object';
  }
}

function rank(v: Value): number {
  switch (typeof v) {
    case 'boolean':
      return 1;
    case 'number':
    case 'bigint':
      return 2;
    case 'string':
      return 3;
    default:
      if (v === null) return 0;
      if (Array.isArray(v)) return 6;
      if (v instanceof RegoObject) return 7;
      if (v instanceof RegoDecimal) return 2;
      return 8;
  }
}

// ---------------------------------------------------------------------------
// Equality and ordering

export function equal(a: Value, b: Value): boolean {
  return equalAt(a, b, 0);
}

function equalAt(a: Value, b: Value, depth: number): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (a instanceof RegoNumText) return equalAt(a.value, b, depth);
  if (b instanceof RegoNumText) return equalAt(a, b.value, depth);
  const ta = typeof a;
  if (ta !== 'object') {
    const tb = typeof b;
    // number vs bigint: normalisation keeps them apart, but be lenient.
    if ((ta === 'number' && tb === 'bigint') || (ta === 'bigint' && tb === 'number')) {
      return (a as number) == (b as unknown as number);
    }
    return false;
  }
  if (typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    if (depth >= SHALLOW) return equalDeep(a, b);
    for (let i = 0; i < a.length; i++) if (!equalAt(a[i] as Value, b[i] as Value, depth + 1)) return false;
    return true;
  }
  if (a instanceof RegoObject) {
    if (!(b instanceof RegoObject) || a.size !== b.size) return false;
    if (depth >= SHALLOW) return equalDeep(a, b);
    for (const k of a.keys()) {
      const bv = b.get(k);
      if (bv === undefined || !equalAt(a.get(k) as Value, bv, depth + 1)) return false;
    }
    return true;
  }
  if (a instanceof RegoSet) {
    if (!(b instanceof RegoSet) || a.size !== b.size) return false;
    for (const v of a.values()) if (!b.has(v)) return false;
    return true;
  }
  if (a instanceof RegoDecimal) return b instanceof RegoDecimal && a.m === b.m && a.e === b.e;
  return false;
}

/** {@link equal} on an explicit stack of pairs still to compare (values nested past {@link SHALLOW}). */
function equalDeep(a0: Value, b0: Value): boolean {
  const pending: Value[] = [a0, b0];
  while (pending.length > 0) {
    const b = pending.pop() as Value;
    const a = pending.pop() as Value;
    if (a === b) continue;
    if (Array.isArray(a)) {
      if (!Array.isArray(b) || a.length !== b.length) return false;
      for (let i = 0; i < a.length; i++) pending.push(a[i] as Value, b[i] as Value);
    } else if (a instanceof RegoObject) {
      if (!(b instanceof RegoObject) || a.size !== b.size) return false;
      for (const k of a.keys()) {
        const bv = b.get(k);
        if (bv === undefined) return false;
        pending.push(a.get(k) as Value, bv);
      }
    } else if (!equalAt(a, b, 0)) return false; // scalars, and sets (their members are found by canonical key)
  }
  return true;
}

/** Compares two strings by code point (equivalently, by UTF-8 bytes), as Go does. */
const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca !== cb) {
      // A raw byte (a lone U+DC80-U+DCFF, see go-bytes.ts) compares as Go compares bytes: by the UTF-8 bytes from here on.
      if (((ca >= 0xdc80 && ca <= 0xdcff) || (cb >= 0xdc80 && cb <= 0xdcff)) && !(i > 0 && isHigh(a.charCodeAt(i - 1)))) {
        return Buffer.compare(goBytes(a.slice(i)), goBytes(b.slice(i)));
      }
      // Surrogates (D800-DFFF) encode code points above FFFF: move them after E000-FFFF.
      if (ca >= 0xd800 && cb >= 0xd800) {
        ca = ca >= 0xe000 ? ca - 0x800 : ca + 0x2000;
        cb = cb >= 0xe000 ? cb - 0x800 : cb + 0x2000;
      }
      return ca < cb ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Total order over Rego values (OPA's `ast.Compare`). */
export function compare(a: Value, b: Value): number {
  return compareAt(a, b, 0);
}

function compareAt(a: Value, b: Value, depth: number): number {
  if (a === b) return 0;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return 0;
    case 1:
      return a === b ? 0 : a === false ? -1 : 1;
    case 2:
      if (typeof a === 'object' || typeof b === 'object') return compareDec(decOf(a as NumberValue), decOf(b as NumberValue));
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 3:
      return compareStrings(a as string, b as string);
    case 6: {
      if (depth >= SHALLOW) return compareDeep(a, b);
      const x = a as Value[];
      const y = b as Value[];
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compareAt(x[i] as Value, y[i] as Value, depth + 1);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    case 7: {
      if (depth >= SHALLOW) return compareDeep(a, b);
      const x = a as RegoObject;
      const y = b as RegoObject;
      const xk = x.keys();
      const yk = y.keys();
      const n = Math.min(xk.length, yk.length);
      for (let i = 0; i < n; i++) {
        const c = compareAt(xk[i] as Value, yk[i] as Value, depth + 1);
        if (c !== 0) return c;
        const cv = compareAt(x.get(xk[i] as Value) as Value, y.get(yk[i] as Value) as Value, depth + 1);
        if (cv !== 0) return cv;
      }
      return xk.length < yk.length ? -1 : xk.length > yk.length ? 1 : 0;
    }
    default: {
      if (depth >= SHALLOW) return compareDeep(a, b);
      const x = (a as RegoSet).values();
      const y = (b as RegoSet).values();
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compareAt(x[i] as Value, y[i] as Value, depth + 1);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
  }
}

/** A composite's parts in the order they compare and hash: an array's elements, a set's sorted members, an object's sorted keys each followed by its value. */
function partsOf(v: Value[] | RegoObject | RegoSet): readonly Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RegoSet) return v.values();
  const keys = v.keys();
  const out: Value[] = new Array(keys.length * 2);
  for (let i = 0; i < keys.length; i++) {
    out[2 * i] = keys[i] as Value;
    out[2 * i + 1] = v.get(keys[i] as Value) as Value;
  }
  return out;
}

/**
 * {@link compare} on an explicit stack (values nested past {@link SHALLOW}):
 * each open pair of composites of one kind compares its parts in order, then
 * by their count (twice an object's size: the same order as its size).
 */
function compareDeep(a0: Value, b0: Value): number {
  const xs: Array<readonly Value[]> = [];
  const ys: Array<readonly Value[]> = [];
  const at: number[] = [];
  let a = a0;
  let b = b0;
  for (;;) {
    if (a !== b) {
      const ra = rank(a);
      const rb = rank(b);
      if (ra !== rb) return ra < rb ? -1 : 1;
      if (ra < 6) {
        const c = compareAt(a, b, 0);
        if (c !== 0) return c;
      } else {
        xs.push(partsOf(a as Value[] | RegoObject | RegoSet));
        ys.push(partsOf(b as Value[] | RegoObject | RegoSet));
        at.push(0);
      }
    }
    // The next pair: the first part not yet compared of the innermost open pair.
    for (;;) {
      const top = at.length - 1;
      if (top < 0) return 0;
      const x = xs[top] as readonly Value[];
      const y = ys[top] as readonly Value[];
      const i = at[top] as number;
      if (i < x.length && i < y.length) {
        at[top] = i + 1;
        a = x[i] as Value;
        b = y[i] as Value;
        break;
      }
      if (x.length !== y.length) return x.length < y.length ? -1 : 1;
      xs.pop();
      ys.pop();
      at.pop();
    }
  }
}

/**
 * A string that is equal for two values exactly when the values are equal
 * (used to hash composite values into maps).
 */
export function canonicalKey(v: Value): string {
  return canonicalKeyAt(v, 0);
}

function canonicalKeyAt(v: Value, depth: number): string {
  switch (typeof v) {
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
    case 'bigint':
      return 'd' + String(v);
    case 'string':
      return JSON.stringify(v);
    default: {
      if (v === null) return 'n';
      if (v instanceof RegoNumText) return canonicalKeyAt(v.value, depth);
      if (v instanceof RegoDecimal) return 'd' + v.toString();
      const known = cachedKey(v);
      if (known !== undefined) return known;
      if (depth >= SHALLOW) return canonicalKeyDeep(v);
      const parts = partsOf(v);
      const keys: string[] = new Array(parts.length);
      for (let i = 0; i < parts.length; i++) keys[i] = canonicalKeyAt(parts[i] as Value, depth + 1);
      return keyOf(v, keys);
    }
  }
}

function cachedKey(v: Value[] | RegoObject | RegoSet): string | undefined {
  if (Array.isArray(v)) return arrayKeys.get(v);
  return v.keyCache ?? undefined;
}

/** A composite's key from its parts' keys (as {@link partsOf} lists them), cached on the composite. */
function keyOf(v: Value[] | RegoObject | RegoSet, keys: string[]): string {
  if (Array.isArray(v)) {
    const k = '[' + keys.join(',') + ']';
    arrayKeys.set(v, k);
    return k;
  }
  if (v instanceof RegoObject) {
    const pairs: string[] = new Array(keys.length / 2);
    for (let i = 0; i < pairs.length; i++) pairs[i] = (keys[2 * i] as string) + ':' + (keys[2 * i + 1] as string);
    return (v.keyCache = '{' + pairs.join(',') + '}');
  }
  return (v.keyCache = '<' + keys.join(',') + '>');
}

const isComposite = (v: Value): v is Value[] | RegoObject | RegoSet => Array.isArray(v) || v instanceof RegoObject || v instanceof RegoSet;

/** {@link canonicalKey} folded on an explicit stack (values nested past {@link SHALLOW}). */
function canonicalKeyDeep(root: Value[] | RegoObject | RegoSet): string {
  return foldDeep<Value, string>(root, {
    open: (v) => (isComposite(v) && cachedKey(v) === undefined ? partsOf(v) : undefined),
    leaf: (v) => canonicalKeyAt(v, 0),
    close: (v, _parts, keys) => keyOf(v as Value[] | RegoObject | RegoSet, keys),
  });
}

export function sortValues(values: Value[]): Value[] {
  return values.sort(compare);
}
