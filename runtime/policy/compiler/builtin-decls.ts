/**
 * OPA v1.20.2's declarations of its builtins, as OPA prints them in its `want:`
 * line (`builtin-decls-table.ts`, read from OPA's own errors); the argument and
 * result types are parsed from that text.
 */
import { OPA_BUILTIN_DECLS } from './builtin-decls-table.js';
import { parseType, type RegoType } from './rego-type.js';

export interface BuiltinDecl {
  /** The argument types, then the result type. */
  types: RegoType[];
  /** OPA's declaration as its error prints it. */
  want: string;
}

/** Splits `(x: number, y: any<number, string>)` into its types (commas inside `<>` and `[]` kept; a type may be unnamed). */
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
  if (inner !== '') parts.push(inner.slice(start));
  return parts.map((p) => parseType(p.replace(/^[^<>[\]]+?: /, '')));
}

const WANTS = new Map<string, string>(OPA_BUILTIN_DECLS);
/** The declarations parsed so far: a policy calls a few of the 181, and parsing all of them at the engine's load was about 8 ms of a `policy eval` start. */
const parsed = new Map<string, BuiltinDecl>();

/** OPA's declaration of a builtin the checker covers, or undefined. */
export function builtinDecl(name: string): BuiltinDecl | undefined {
  let decl = parsed.get(name);
  if (decl !== undefined) return decl;
  const want = WANTS.get(name);
  if (want === undefined) return undefined;
  decl = { types: declTypes(want), want };
  parsed.set(name, decl);
  return decl;
}
