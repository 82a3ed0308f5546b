/**
 * Builtins the compiler targets: membership (`x in xs`, `k, v in xs`), the
 * rewritten `print`, and `trace`.
 */
import { PolicyError } from '../errors.js';
import { formatValue } from '../value-format.js';
import { joined } from '../go-bytes.js';
import { equal, RegoObject, RegoSet, type Value } from '../value.js';
import { lookup } from '../eval/paths.js';
import { asArray, asString, type BuiltinDefinition } from './registry.js';

function member(x: Value, xs: Value): boolean {
  if (Array.isArray(xs)) return xs.some((e) => equal(e, x));
  if (xs instanceof RegoSet) return xs.has(x);
  if (xs instanceof RegoObject) {
    for (const k of xs.keys()) if (equal(xs.get(k) as Value, x)) return true;
    return false;
  }
  return false;
}

/** Cartesian product of the argument value sets, for print. */
function printLines(args: Value[]): string[][] {
  let lines: string[][] = [[]];
  for (const a of args) {
    const vals = a instanceof RegoSet ? a.values() : [a];
    if (vals.length === 0) {
      lines = lines.map((l) => [...l, '<undefined>']);
      continue;
    }
    const next: string[][] = [];
    for (const l of lines) for (const v of vals) next.push([...l, typeof v === 'string' ? v : formatValue(v)]);
    lines = next;
  }
  return lines;
}

export const internalBuiltins: BuiltinDefinition[] = [
  {
    name: 'internal.member_2',
    args: ['any', 'any'],
    result: 'boolean',
    impl: ([x, xs]) => member(x as Value, xs as Value),
  },
  {
    name: 'internal.member_3',
    args: ['any', 'any', 'any'],
    result: 'boolean',
    impl: ([k, v, xs]) => {
      const m = lookup(xs as Value, k as Value);
      return m !== undefined && equal(m, v as Value);
    },
  },
  {
    name: 'internal.print',
    args: ['array'],
    impl: ([arr], ctx) => {
      for (const line of printLines(asArray(arr, 1))) ctx.print(joined(line.join(' ')));
      return undefined;
    },
  },
  {
    name: 'internal.template_string',
    args: ['array'],
    result: 'string',
    impl: ([parts], ctx) => {
      let out = '';
      for (const p of asArray(parts, 1)) {
        let v: Value;
        if (p instanceof RegoSet) {
          if (p.size === 0) {
            out += '<undefined>';
            continue;
          }
          if (p.size > 1) {
            throw new PolicyError({ code: 'eval_builtin_error', detail: 'template-strings must not produce multiple outputs', location: ctx.location });
          }
          v = p.values()[0] as Value;
        } else if (Array.isArray(p) || p instanceof RegoObject) {
          throw new PolicyError({
            code: 'eval_builtin_error',
            detail: `illegal argument type: ${Array.isArray(p) ? 'array' : 'object'}`,
            location: ctx.location,
          });
        } else v = p;
        out += typeof v === 'string' ? v : formatValue(v);
      }
      // Raw bytes that meet may make a character (go-bytes.ts).
      return joined(out);
    },
  },
  {
    name: 'opa.runtime',
    args: [],
    result: 'object',
    impl: () => new RegoObject(),
  },
  {
    name: 'trace',
    args: ['string'],
    result: 'boolean',
    impl: ([s], ctx) => {
      ctx.note?.(asString(s, 1));
      return true;
    },
  },
];
