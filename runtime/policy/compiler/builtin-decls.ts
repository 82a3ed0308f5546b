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
  /** The arguments alone, as OPA's `arity mismatch` error prints them: `(collection: any<...>)`. */
  wantArgs: string;
}

/** Splits `(x: number, y: any<number, string>)` into its parts (commas inside `<>` and `[]` kept). */
function declParts(want: string): string[] {
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
  return parts;
}

/** A declaration's types, each part's name (if any) dropped. */
function decl(want: string): BuiltinDecl {
  const parts = declParts(want);
  const types = parts.map((p) => parseType(p.replace(/^[^<>[\]]+?: /, '')));
  return { types, want, wantArgs: `(${parts.slice(0, -1).join(', ')})` };
}

const WANTS = new Map<string, string>(OPA_BUILTIN_DECLS);
/** The declarations parsed so far: a policy calls a few of them, and parsing all at the engine's load was about 8 ms of a `policy eval` start. */
const parsed = new Map<string, BuiltinDecl>();

/** OPA's declaration of a builtin the checker covers, or undefined. */
export function builtinDecl(name: string): BuiltinDecl | undefined {
  const known = parsed.get(name);
  if (known !== undefined) return known;
  const want = WANTS.get(name);
  if (want === undefined) return undefined;
  const found = decl(want);
  parsed.set(name, found);
  return found;
}
