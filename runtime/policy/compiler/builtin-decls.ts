/**
 * OPA v1.20.2's declarations of the builtins the compile-time type checker
 * covers, as OPA prints them in its `want:` line (read from OPA's own errors);
 * the argument and result types are parsed from that text.
 */
import { parseType, type RegoType } from './rego-type.js';

export interface BuiltinDecl {
  /** The argument types, then the result type. */
  types: RegoType[];
  /** OPA's declaration as its error prints it. */
  want: string;
}

/** Splits `(x: number, y: any<number, string>)` into its types (commas inside `<>` and `[]` kept). */
function declTypes(want: string): RegoType[] {
  const inner = want.slice(1, -1);
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '<' || c === '[') depth++;
    else if (c === '>' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 2;
    }
  }
  parts.push(inner.slice(start));
  return parts.map((p) => parseType(p.slice(p.indexOf(': ') + 2)));
}

function decls(names: string[], want: string): Array<[string, BuiltinDecl]> {
  const types = declTypes(want);
  return names.map((n) => [n, { types, want }]);
}

const DECLS = new Map<string, BuiltinDecl>([
  ...decls(['plus', 'mul', 'div', 'rem'], '(x: number, y: number, z: number)'),
  ...decls(['minus'], '(x: any<number, set[any]>, y: any<number, set[any]>, z: any<number, set[any]>)'),
  ...decls(['upper', 'lower', 'strings.reverse', 'base64.encode', 'base64.decode', 'urlquery.encode', 'crypto.sha256'], '(x: string, y: string)'),
  ...decls(['trim_space'], '(value: string, output: string)'),
  ...decls(['abs', 'round', 'ceil', 'floor'], '(x: number, y: number)'),
  ...decls(['startswith', 'endswith'], '(search: string, base: string, result: boolean)'),
  ...decls(['contains'], '(haystack: string, needle: string, result: boolean)'),
  ...decls(['indexof'], '(haystack: string, needle: string, output: number)'),
  ...decls(['split'], '(x: string, delimiter: string, ys: array[string])'),
  ...decls(['replace'], '(x: string, old: string, new: string, y: string)'),
  ...decls(['trim', 'trim_left', 'trim_right'], '(value: string, cutset: string, output: string)'),
  ...decls(['trim_prefix'], '(value: string, prefix: string, output: string)'),
  ...decls(['trim_suffix'], '(value: string, suffix: string, output: string)'),
  ...decls(['count'], '(collection: any<string, array[any], object[any: any], set[any]>, n: number)'),
  ...decls(['sum', 'product'], '(collection: any<array[number], set[number]>, n: number)'),
  ...decls(['max', 'min'], '(collection: any<array[any], set[any]>, n: any)'),
  ...decls(['sort'], '(collection: any<array[any], set[any]>, n: array[any])'),
  ...decls(['concat'], '(delimiter: string, collection: any<array[string], set[string]>, output: string)'),
  ...decls(['format_int'], '(number: number, base: number, output: string)'),
  ...decls(['sprintf'], '(format: string, values: array[any], output: string)'),
  ...decls(['substring'], '(value: string, offset: number, length: number, output: string)'),
  ...decls(['json.unmarshal'], '(x: string, y: any)'),
  ...decls(['numbers.range'], '(a: number, b: number, range: array[number])'),
  ...decls(['regex.match'], '(pattern: string, value: string, result: boolean)'),
  ...decls(['time.parse_rfc3339_ns'], '(value: string, ns: number)'),
  ...decls(['units.parse_bytes'], '(x: string, y: number)'),
  ...decls(['semver.compare'], '(a: string, b: string, result: number)'),
]);

/** OPA's declaration of a builtin the checker covers, or undefined. */
export function builtinDecl(name: string): BuiltinDecl | undefined {
  return DECLS.get(name);
}
