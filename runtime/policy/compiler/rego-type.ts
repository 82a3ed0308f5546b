/**
 * Rego's static types, as OPA's `types` package has them: the scalars, arrays
 * (static items and a dynamic rest), objects (static string keys and a
 * dynamic key/value), sets, and `any` (of some types, or of all when empty).
 * Two more are ours: `undefined` is OPA's nil type (a var not bound yet,
 * printed `???`), and {@link UNKNOWN} is a type our checker could not infer
 * with certainty. `UNKNOWN` fits everything and is never printed: a check
 * that meets it stays silent, so nothing OPA accepts is refused.
 */

export type RegoType =
  | { kind: 'null' | 'boolean' | 'number' | 'string' }
  | { kind: 'array'; items: Array<RegoType | undefined>; of?: RegoType | undefined }
  | { kind: 'object'; props: Array<[string, RegoType | undefined]>; dyn?: { key: RegoType | undefined; value: RegoType | undefined } }
  | { kind: 'set'; of: RegoType | undefined }
  | { kind: 'any'; of: RegoType[] }
  | { kind: 'function'; args: RegoType[]; result: RegoType }
  | { kind: 'unknown' };

/** OPA's nil: the type of a var not bound yet. */
export type MaybeType = RegoType | undefined;

export const NULL: RegoType = { kind: 'null' };
export const BOOLEAN: RegoType = { kind: 'boolean' };
export const NUMBER: RegoType = { kind: 'number' };
export const STRING: RegoType = { kind: 'string' };
export const ANY: RegoType = { kind: 'any', of: [] };
export const UNKNOWN: RegoType = { kind: 'unknown' };

const ORDER = { null: 0, boolean: 1, number: 2, string: 3, array: 4, object: 5, set: 6, any: 7, function: 8, unknown: 9 } as const;

export function arrayOf(items: MaybeType[], of?: MaybeType): RegoType {
  return of === undefined ? { kind: 'array', items } : { kind: 'array', items, of };
}

export function objectOf(props: Array<[string, MaybeType]>, dyn?: { key: MaybeType; value: MaybeType }): RegoType {
  const sorted = [...props].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return dyn === undefined ? { kind: 'object', props: sorted } : { kind: 'object', props: sorted, dyn };
}

/** Whether our inference was not certain somewhere inside `t`. */
export function uncertain(t: MaybeType): boolean {
  if (t === undefined) return false;
  switch (t.kind) {
    case 'unknown':
      return true;
    case 'array':
      return t.items.some(uncertain) || uncertain(t.of);
    case 'object':
      return t.props.some(([, v]) => uncertain(v)) || (t.dyn !== undefined && (uncertain(t.dyn.key) || uncertain(t.dyn.value)));
    case 'set':
      return uncertain(t.of);
    case 'any':
      return t.of.some(uncertain);
    case 'function':
      return t.args.some(uncertain) || uncertain(t.result);
    default:
      return false;
  }
}

/**
 * OPA's `types.Nil` as OPA v1.20.2 answers: whether nil appears in `t`, a set's elements aside (`y = {[x]}`, `x`
 * not bound, binds `y` to `set[array<???>]` with no match error; so `types.Nil` stops at a set). `deep` looks into
 * sets too.
 */
export function hasNil(t: MaybeType, deep = false): boolean {
  if (t === undefined) return true;
  const nil = (x: MaybeType): boolean => hasNil(x, deep);
  switch (t.kind) {
    case 'array':
      return t.items.some(nil) || (t.of !== undefined && nil(t.of));
    case 'object':
      return t.props.some(([, v]) => nil(v)) || (t.dyn !== undefined && (nil(t.dyn.key) || nil(t.dyn.value)));
    case 'set':
      return deep && nil(t.of);
    default:
      return false;
  }
}

/** OPA's `types.Sprint`: `array<number, string>`, `object<k: number>[string: any]`, `set[any]`, `any<number, string>`, `???`. */
export function printType(t: MaybeType): string {
  if (t === undefined) return '???';
  switch (t.kind) {
    case 'array':
      return `array${t.items.length > 0 ? `<${t.items.map(printType).join(', ')}>` : ''}${t.of !== undefined ? `[${printType(t.of)}]` : ''}`;
    case 'object': {
      const props = t.props.map(([k, v]) => `${k}: ${printType(v)}`);
      return `object${props.length > 0 ? `<${props.join(', ')}>` : ''}${t.dyn !== undefined ? `[${printType(t.dyn.key)}: ${printType(t.dyn.value)}]` : ''}`;
    }
    case 'set':
      return `set[${printType(t.of)}]`;
    case 'any':
      return t.of.length === 0 ? 'any' : `any<${t.of.map(printType).join(', ')}>`;
    case 'function':
      return `(${t.args.map(printType).join(', ')}) => ${printType(t.result)}`;
    case 'unknown':
      throw new Error('an uncertain type is never printed');
    default:
      return t.kind;
  }
}

/** `t` with what our inference was not certain of printed as `any` (what OPA has where no rule type narrows it). */
export function printable(t: MaybeType): MaybeType {
  if (t === undefined) return undefined;
  switch (t.kind) {
    case 'unknown':
      return ANY;
    case 'array':
      return { kind: 'array', items: t.items.map(printable), ...(t.of === undefined ? {} : { of: printable(t.of) }) };
    case 'object':
      return {
        kind: 'object',
        props: t.props.map(([k, v]) => [k, printable(v)]),
        ...(t.dyn === undefined ? {} : { dyn: { key: printable(t.dyn.key), value: printable(t.dyn.value) } }),
      };
    case 'set':
      return { kind: 'set', of: printable(t.of) };
    case 'any':
      return { kind: 'any', of: t.of.map((m) => printable(m) as RegoType) };
    case 'function':
      return { kind: 'function', args: t.args.map((m) => printable(m) as RegoType), result: printable(t.result) as RegoType };
    default:
      return t;
  }
}

function compareList(a: MaybeType[], b: MaybeType[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareTypes(a[i], b[i]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** OPA's `types.Compare`, the order of an `any`'s members. */
export function compareTypes(a: MaybeType, b: MaybeType): number {
  const x = a === undefined ? -1 : ORDER[a.kind];
  const y = b === undefined ? -1 : ORDER[b.kind];
  if (x !== y || a === undefined || b === undefined) return Math.sign(x - y);
  if (a.kind === 'array' && b.kind === 'array') {
    if ((a.of !== undefined) !== (b.of !== undefined)) return a.of !== undefined ? 1 : -1;
    return compareTypes(a.of, b.of) || compareList(a.items, b.items);
  }
  if (a.kind === 'object' && b.kind === 'object') {
    if ((a.dyn !== undefined) !== (b.dyn !== undefined)) return a.dyn !== undefined ? 1 : -1;
    if (a.dyn !== undefined && b.dyn !== undefined) {
      const c = compareTypes(a.dyn.key, b.dyn.key) || compareTypes(a.dyn.value, b.dyn.value);
      if (c !== 0) return c;
    }
    for (let i = 0; i < Math.min(a.props.length, b.props.length); i++) {
      const [ka, va] = a.props[i] as [string, MaybeType];
      const [kb, vb] = b.props[i] as [string, MaybeType];
      if (ka !== kb) return ka < kb ? -1 : 1;
      const c = compareTypes(va, vb);
      if (c !== 0) return c;
    }
    return a.props.length - b.props.length;
  }
  if (a.kind === 'set' && b.kind === 'set') return compareTypes(a.of, b.of);
  if (a.kind === 'any' && b.kind === 'any') return compareList(a.of, b.of);
  if (a.kind === 'function' && b.kind === 'function') return compareList(a.args, b.args) || compareTypes(a.result, b.result);
  return 0;
}

function anyContains(a: Extract<RegoType, { kind: 'any' }>, t: RegoType): boolean {
  return a.of.length === 0 || a.of.some((m) => compareTypes(m, t) === 0);
}

/** OPA's `types.Or`: the union of two types, the superset kept as is. */
export function or(a: MaybeType, b: MaybeType): MaybeType {
  if (a === undefined) return b;
  if (b === undefined) return a;
  if (a.kind === 'unknown' || b.kind === 'unknown') return UNKNOWN;
  if (a.kind === 'function' || b.kind === 'function') {
    // OPA's Or of two functions of one arity unions them argument by argument; with anything else it has no type (nil).
    if (a.kind !== 'function' || b.kind !== 'function' || a.args.length !== b.args.length) return UNKNOWN;
    const args = a.args.map((t, i) => or(t, b.args[i]));
    const result = or(a.result, b.result);
    if (result === undefined || args.some((t) => t === undefined)) return UNKNOWN;
    return { kind: 'function', args: args as RegoType[], result };
  }
  if (a.kind === 'any' && b.kind === 'any') {
    if (a.of.length === 0 || b.of.length === 0) return ANY;
    return b.of.reduce<MaybeType>((acc, m) => or(acc, m), a);
  }
  if (a.kind === 'any' || b.kind === 'any') {
    const [u, t] = (a.kind === 'any' ? [a, b] : [b, a]) as [Extract<RegoType, { kind: 'any' }>, RegoType];
    if (anyContains(u, t)) return u;
    return { kind: 'any', of: [...u.of, t].sort(compareTypes) };
  }
  if (compareTypes(a, b) === 0) return a;
  return { kind: 'any', of: [a, b].sort(compareTypes) };
}

/** OPA's `types.Keys`: the type of the keys that enumerate `t` (nil for a scalar). */
export function keysOf(t: MaybeType): MaybeType {
  if (t === undefined) return undefined;
  switch (t.kind) {
    case 'array':
      return NUMBER;
    case 'object':
      return t.props.reduce<MaybeType>((acc) => or(acc, STRING), t.dyn?.key);
    case 'set':
      return t.of;
    case 'any':
      return t.of.length === 0 ? ANY : t.of.reduce<MaybeType>((acc, m) => or(keysOf(m), acc), undefined);
    case 'unknown':
      return UNKNOWN;
    default:
      return undefined;
  }
}

/** OPA's `types.Values`: the type of the values that enumerate `t` (nil for a scalar). */
export function valuesOf(t: MaybeType): MaybeType {
  if (t === undefined) return undefined;
  switch (t.kind) {
    case 'array':
      return or(
        t.items.reduce<MaybeType>((acc, m) => or(acc, m), undefined),
        t.of,
      );
    case 'object':
      return or(
        t.props.reduce<MaybeType>((acc, [, v]) => or(acc, v), undefined),
        t.dyn?.value,
      );
    case 'set':
      return t.of;
    case 'any':
      return t.of.length === 0 ? ANY : t.of.reduce<MaybeType>((acc, m) => or(valuesOf(m), acc), undefined);
    case 'unknown':
      return UNKNOWN;
    default:
      return undefined;
  }
}

/** A constant key: a string, or a number (array index). */
export type TypeKey = { kind: 'string'; value: string } | { kind: 'number'; value: number } | { kind: 'other'; type: RegoType };

/** OPA's `types.Select`: the type of `t[key]` for a constant key, nil when `t` never has it. */
export function selectKey(t: MaybeType, key: TypeKey): MaybeType {
  if (t === undefined) return undefined;
  const keyType = key.kind === 'string' ? STRING : key.kind === 'number' ? NUMBER : key.type;
  switch (t.kind) {
    case 'array': {
      if (key.kind !== 'number' || !Number.isInteger(key.value)) return undefined;
      if (key.value < 0) return undefined;
      return key.value < t.items.length ? t.items[key.value] : t.of;
    }
    case 'object': {
      if (key.kind === 'string') {
        const p = t.props.find(([k]) => k === key.value);
        if (p !== undefined) return p[1];
      }
      if (t.dyn !== undefined && uncertain(t.dyn.key)) return UNKNOWN;
      if (t.dyn !== undefined && t.dyn.key !== undefined && contains(t.dyn.key, keyType)) return t.dyn.value;
      return undefined;
    }
    case 'set':
      if (uncertain(t.of)) return UNKNOWN;
      if (compareTypes(t.of, keyType) === 0) return t.of;
      return t.of?.kind === 'any' && anyContains(t.of, keyType) ? keyType : undefined;
    case 'any':
      return t.of.length === 0 ? ANY : t.of.reduce<MaybeType>((acc, m) => or(selectKey(m, key), acc), undefined);
    case 'unknown':
      return UNKNOWN;
    default:
      return undefined;
  }
}

function contains(a: RegoType, b: RegoType): boolean {
  return a.kind === 'any' ? anyContains(a, b) : compareTypes(a, b) === 0;
}

/**
 * OPA's `unifies` (v1/ast/check.go): whether some value can have both types. An
 * uncertain type fits everything; nil fits nothing (as in OPA).
 */
export function fits(a: MaybeType, b: MaybeType): boolean {
  if (a === undefined || b === undefined) return false;
  if (a.kind === 'unknown' || b.kind === 'unknown') return true;
  // No value is a function: a function unifies only with a function of its arity whose arguments unify, never with `any`.
  if (a.kind === 'function' || b.kind === 'function') {
    if (a.kind !== 'function' || b.kind !== 'function' || a.args.length !== b.args.length) return false;
    return a.args.every((t, i) => fits(t, b.args[i]));
  }
  if (a.kind === 'any' && (a.of.length === 0 || a.of.some((m) => fits(m, b)))) return true;
  if (b.kind === 'any' && (b.of.length === 0 || b.of.some((m) => fits(m, a)))) return true;
  if (a.kind === 'any' || b.kind === 'any') return false;
  switch (a.kind) {
    case 'array':
      if (b.kind !== 'array') return false;
      return fitsItems(a, b) && fitsItems(b, a) && (a.of === undefined || b.of === undefined || fits(a.of, b.of));
    case 'object':
      if (b.kind !== 'object') return false;
      return fitsProps(a, b) && fitsProps(b, a) && (a.dyn === undefined || b.dyn === undefined || fits(a.dyn.value, b.dyn.value));
    case 'set':
      return b.kind === 'set' && fits(a.of, b.of);
    default:
      return a.kind === b.kind;
  }
}

function fitsItems(a: Extract<RegoType, { kind: 'array' }>, b: Extract<RegoType, { kind: 'array' }>): boolean {
  return a.items.every((t, i) => fits(t, selectKey(b, { kind: 'number', value: i })));
}

/**
 * Each static key of `a` against what `b` has there. A key `b` never has is a mismatch only when neither object
 * has dynamic keys, as OPA v1.20.2 answers: `object<a: number>` and `object<a: number, b: number>` do not unify,
 * `object<a: number>` and `object<indent: string>[string: any]` do, and so do `object<a: number, b: string>` and
 * `object[number: number]`.
 */
function fitsProps(a: Extract<RegoType, { kind: 'object' }>, b: Extract<RegoType, { kind: 'object' }>): boolean {
  const open = a.dyn !== undefined || b.dyn !== undefined;
  return a.props.every(([k, t]) => {
    const other = selectKey(b, { kind: 'string', value: k });
    return other === undefined ? open : fits(t, other);
  });
}

/** Parses a type as OPA prints it in a builtin's declaration (`any<number, set[any]>`, `object<a: string>[any: any]`, `array<string, number>`). */
export function parseType(text: string): RegoType {
  let i = 0;
  const eat = (s: string): boolean => {
    if (text.startsWith(s, i)) {
      i += s.length;
      return true;
    }
    return false;
  };
  const list = (close: string): RegoType[] => {
    const out = [one()];
    while (eat(', ')) out.push(one());
    if (!eat(close)) throw new Error(`bad type text ${text} at ${i}`);
    return out;
  };
  const one = (): RegoType => {
    for (const s of [NULL, BOOLEAN, NUMBER, STRING]) if (eat(s.kind)) return s;
    if (eat('any<')) return { kind: 'any', of: list('>').sort(compareTypes) };
    if (eat('any')) return ANY;
    if (eat('array')) {
      const items = eat('<') ? list('>') : [];
      return eat('[') ? arrayOf(items, list(']')[0]) : arrayOf(items);
    }
    if (eat('set[')) return { kind: 'set', of: list(']')[0] };
    if (eat('object')) {
      const props: Array<[string, RegoType]> = [];
      if (eat('<')) {
        do {
          const m = /^(\w+): /.exec(text.slice(i));
          if (m === null) throw new Error(`bad type text ${text} at ${i}`);
          i += m[0].length;
          props.push([m[1] as string, one()]);
        } while (eat(', '));
        if (!eat('>')) throw new Error(`bad type text ${text} at ${i}`);
      }
      if (!eat('[')) return objectOf(props);
      const key = one();
      if (!eat(': ')) throw new Error(`bad type text ${text} at ${i}`);
      return objectOf(props, { key, value: list(']')[0] });
    }
    throw new Error(`bad type text ${text} at ${i}`);
  };
  const t = one();
  if (i !== text.length) throw new Error(`bad type text ${text} at ${i}`);
  return t;
}
