/**
 * YAML nodes printed as Go's `%#v` prints what go-yaml v2 decodes them to
 * (`int`, `uint64`, `float64`, `string`, `bool`, `nil`, `[]interface {}`,
 * `map[interface {}]interface {}`), for the error texts that quote a value:
 * go-yaml's `invalid map key: …` and sigs.k8s.io/yaml's
 * `unsupported map key of type: …, key: …, value: …`.
 */
import type { Node } from 'yaml';
import { yamlLibrary } from '../yaml-library.js';
import { goQuote } from '../value-format.js';

/** A scalar as go-yaml resolves it (see yaml.ts). */
export type GoScalar =
  | { kind: 'str'; v: string }
  | { kind: 'null' }
  | { kind: 'bool'; v: boolean }
  | { kind: 'int'; v: bigint }
  | { kind: 'float'; v: number }
  | { kind: 'timestamp'; v: string };

export interface GoValueContext {
  scalar(node: Node): GoScalar;
  /** The node an alias stands for. */
  target(node: Node | null): Node | null;
  formatFloat(x: number): string;
}

type GoValue =
  | { t: 'nil' }
  | { t: 'string'; v: string }
  | { t: 'uint64' | 'int'; v: bigint }
  | { t: 'float64'; v: number }
  | { t: 'bool'; v: boolean }
  | { t: 'slice'; items: GoValue[] }
  | { t: 'map'; entries: Array<[GoValue, GoValue]> };

/** The order Go's fmt sorts interface map keys in: by concrete type (as laid out in OPA's binary), then by value. */
const TYPE_ORDER = ['nil', 'string', 'uint64', 'int', 'float64', 'bool', 'slice', 'map'];

function decode(node: Node | null, ctx: GoValueContext, depth: number): GoValue {
  const n = ctx.target(node);
  if (n === null || depth > 100) return { t: 'nil' };
  const y = yamlLibrary();
  if (y.isSeq(n)) return { t: 'slice', items: n.items.map((i) => decode(i as Node | null, ctx, depth + 1)) };
  if (y.isMap(n)) {
    const entries: Array<[GoValue, GoValue]> = [];
    for (const pair of n.items) {
      const k = decode(pair.key as Node | null, ctx, depth + 1);
      const v = decode(pair.value as Node | null, ctx, depth + 1);
      const at = entries.findIndex(([e]) => compare(e, k) === 0);
      if (at >= 0) entries[at] = [k, v];
      else entries.push([k, v]);
    }
    return { t: 'map', entries };
  }
  const s = ctx.scalar(n);
  switch (s.kind) {
    case 'null':
      return { t: 'nil' };
    case 'bool':
      return { t: 'bool', v: s.v };
    case 'int':
      return s.v > 2n ** 63n - 1n ? { t: 'uint64', v: s.v } : { t: 'int', v: s.v };
    case 'float':
      return { t: 'float64', v: s.v };
    default:
      return { t: 'string', v: s.v };
  }
}

function compare(a: GoValue, b: GoValue): number {
  if (a.t !== b.t) return TYPE_ORDER.indexOf(a.t) - TYPE_ORDER.indexOf(b.t);
  if (a.t === 'nil' || a.t === 'slice' || a.t === 'map') return 0;
  const x = (a as { v: string | bigint | number | boolean }).v;
  const y = (b as { v: string | bigint | number | boolean }).v;
  return x < y ? -1 : x > y ? 1 : 0;
}

function print(v: GoValue, ctx: GoValueContext, top: boolean): string {
  switch (v.t) {
    case 'nil':
      return top ? '<nil>' : 'interface {}(nil)';
    case 'string':
      return goQuote(v.v);
    case 'uint64':
      return `0x${v.v.toString(16)}`;
    case 'int':
      return v.v.toString();
    case 'float64':
      return ctx.formatFloat(v.v);
    case 'bool':
      return String(v.v);
    case 'slice':
      return `[]interface {}{${v.items.map((i) => print(i, ctx, false)).join(', ')}}`;
    case 'map': {
      const sorted = [...v.entries].sort(([a], [b]) => compare(a, b));
      return `map[interface {}]interface {}{${sorted.map(([k, x]) => `${print(k, ctx, false)}:${print(x, ctx, false)}`).join(', ')}}`;
    }
  }
}

/** `%#v` of what go-yaml decodes `node` to. */
export function goSharpV(node: Node | null, ctx: GoValueContext): string {
  return print(decode(node, ctx, 0), ctx, true);
}
