/**
 * OPA's order of AST terms (its `ast.Compare`), where it shows in an answer:
 * `rego.parse_module`'s object keys and set items, and the order an object
 * literal's entries are evaluated in (a later equal key overwrites).
 */
import type { Term, VarTerm } from './ast.js';
import { compare, compareStrings, type Value } from './value.js';

/** How two vars compare. */
export type VarOrder = (a: VarTerm, b: VarTerm) => number;

const byName: VarOrder = (a, b) => compareStrings(a.name, b.name);

/** The name OPA's compiler gives a var: ours for one it generated (`x$5`, `$t5`) is OPA's `__local5__` (numbered in declaration order too). */
function opaName(name: string): string {
  const i = name.lastIndexOf('$');
  return i < 0 ? name : `__local${name.slice(i + 1).replace(/^t/, '')}__`;
}

/** Vars as OPA's compiler orders them after its rewrites: generated locals by declaration, written vars by name. */
export const byOpaName: VarOrder = (a, b) => compareStrings(opaName(a.name), opaName(b.name));

/** OPA's order of term kinds (its compare.go): null, boolean, number, string, var, ref, array, object, set, comprehensions, call. */
const KIND_ORDER: Record<Term['type'], number> = {
  null: 0,
  boolean: 1,
  number: 2,
  string: 3,
  var: 4,
  ref: 5,
  array: 6,
  object: 7,
  set: 8,
  arraycomp: 9,
  objectcomp: 10,
  setcomp: 11,
  call: 12,
};

function compareLists(a: readonly Term[], b: readonly Term[], vars: VarOrder): number {
  for (let i = 0; i < a.length && i < b.length; i++) {
    const c = compareTerms(a[i] as Term, b[i] as Term, vars);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/**
 * OPA's ordering of AST terms (as far as the parser's output shows it; comprehensions and calls keep source order).
 * Vars compare by name unless `vars` orders them (OPA renames declared locals `__local<N>__` in declaration order).
 */
export function compareTerms(a: Term, b: Term, vars: VarOrder = byName): number {
  const k = KIND_ORDER[a.type] - KIND_ORDER[b.type];
  if (k !== 0) return k;
  switch (a.type) {
    case 'null':
      return 0;
    case 'boolean':
    case 'number':
    case 'string':
      return compare(a.value as Value, (b as typeof a).value as Value);
    case 'var':
      return vars(a, b as typeof a);
    case 'ref':
      return compareLists(a.terms, (b as typeof a).terms, vars);
    case 'array':
      return compareLists(a.items, (b as typeof a).items, vars);
    case 'set': {
      const sort = (xs: readonly Term[]) => [...xs].sort((x, y) => compareTerms(x, y, vars));
      return compareLists(sort(a.items), sort((b as typeof a).items), vars);
    }
    case 'object': {
      const sort = (xs: ReadonlyArray<readonly [Term, Term]>) => [...xs].sort((x, y) => compareTerms(x[0], y[0], vars));
      const x = sort(a.entries);
      const y = sort((b as typeof a).entries);
      for (let i = 0; i < x.length && i < y.length; i++) {
        const c = compareTerms(x[i]![0], y[i]![0], vars) || compareTerms(x[i]![1], y[i]![1], vars);
        if (c !== 0) return c;
      }
      return x.length - y.length;
    }
    default:
      return 0;
  }
}
