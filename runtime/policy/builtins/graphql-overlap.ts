/**
 * gqlparser's OverlappingFieldsCanBeMerged: two fields under one response
 * name must be the same field with the same arguments and compatible types,
 * and their sub-selections must merge too. Fields are compared within each
 * selection set (at each operation, each field of an operation, each inline
 * fragment and each fragment definition), against the fragments spread
 * there and between those fragments, in gqlparser's order, so its conflicts
 * come out in its order, each reported at the second field.
 */
import type { GqlField, GqlFragmentSpread, GqlSelection, GqlType, GqlValue, Pos } from './graphql-ast.js';
import { isField, isInlineFragment, typeString } from './graphql-ast.js';
import type { Report, Rule, Walker } from './graphql-walk.js';

interface Conflict {
  responseName: string;
  message: string;
  sub: Conflict[];
  pos: Pos | undefined;
}

/** Fields by response name in first-seen order, and the fragment spreads, of a selection set (inline fragments flattened). */
interface Collected {
  fields: Map<string, GqlField[]>;
  spreads: GqlFragmentSpread[];
}

function collect(set: GqlSelection[] | null): Collected {
  const fields = new Map<string, GqlField[]>();
  const spreads: GqlFragmentSpread[] = [];
  const walk = (sels: GqlSelection[] | null) => {
    for (const s of sels ?? []) {
      if (isField(s)) {
        const name = s.Alias !== '' ? s.Alias : s.Name;
        const list = fields.get(name);
        if (list === undefined) fields.set(name, [s]);
        else list.push(s);
      } else if (isInlineFragment(s)) walk(s.SelectionSet);
      else spreads.push(s);
    }
  };
  walk(set);
  return { fields, spreads };
}

/** gqlparser skips comparing a fragment's fields with the very fields they are (Go's reflect.DeepEqual; here, the same nodes). */
function sameFields(a: Map<string, GqlField[]>, b: Map<string, GqlField[]>): boolean {
  if (a.size !== b.size) return false;
  const ka = [...a.keys()];
  const kb = [...b.keys()];
  return ka.every((k, i) => {
    const fa = a.get(k) as GqlField[];
    const fb = b.get(kb[i] as string);
    return k === kb[i] && fb !== undefined && fa.length === fb.length && fa.every((f, j) => f === fb[j]);
  });
}

function conflictText(c: Conflict): string {
  if (c.sub.length === 0) return c.message;
  return c.sub.map((s) => `subfields "${s.responseName}" conflict because ${conflictText(s)}`).join(' and ');
}

function sameValue(a: GqlValue | null, b: GqlValue | null): boolean {
  if (a === null || b === null) return a === b;
  return a.Kind === b.Kind && a.Raw === b.Raw;
}

function sameArguments(a: GqlField['Arguments'], b: GqlField['Arguments']): boolean {
  const x = a ?? [];
  const y = b ?? [];
  if (x.length !== y.length) return false;
  return x.every((arg1) => y.some((arg2) => arg1.Name === arg2.Name && sameValue(arg1.Value, arg2.Value)));
}

/**
 * Thrown when comparing sub-selections goes deeper than any real query
 * nests: fragments that spread themselves inside fields can make
 * gqlparser's comparison recurse without end (OPA v1.20.2's process dies of
 * a stack overflow on such a query); here the query is refused instead.
 */
export class EndlessOverlapCheck extends Error {}

/** Nested field comparisons allowed before a check counts as endless (each is one level of the two queries' nesting). */
const MAX_COMPARISON_DEPTH = 400;

class Checker {
  private depth = 0;

  /** Fragment pairs already compared (per validation), with whether they were compared as mutually exclusive. */
  private readonly comparedPairs = new Map<string, Map<string, boolean>>();
  /** Fragments already compared with the current set of fields. */
  private comparedFragments = new Set<string>();

  /** Each selection set collected once: gqlparser collects again at every comparison, with the same result (the document does not change while it is checked). */
  private readonly collected = new Map<GqlSelection[], Collected>();

  constructor(private readonly w: Walker) {}

  private collect(set: GqlSelection[] | null): Collected {
    if (set === null) return collect(null);
    let c = this.collected.get(set);
    if (c === undefined) this.collected.set(set, (c = collect(set)));
    return c;
  }

  withinSelectionSet(set: GqlSelection[] | null): Conflict[] {
    if (set === null || set.length === 0) return [];
    const { fields, spreads } = this.collect(set);
    const out: Conflict[] = [];
    this.within(out, fields);
    this.comparedFragments = new Set();
    spreads.forEach((a, i) => {
      this.betweenFieldsAndFragment(out, false, fields, a);
      for (const b of spreads.slice(i + 1)) this.betweenFragments(out, false, a, b);
    });
    return out;
  }

  private within(out: Conflict[], fields: Map<string, GqlField[]>): void {
    for (const list of fields.values()) {
      list.forEach((a, i) => {
        for (const b of list.slice(i + 1)) {
          const c = this.conflict(false, a, b);
          if (c !== null) out.push(c);
        }
      });
    }
  }

  private between(out: Conflict[], exclusive: boolean, a: Map<string, GqlField[]>, b: Map<string, GqlField[]>): void {
    for (const [name, fieldsA] of a) {
      const fieldsB = b.get(name);
      if (fieldsB === undefined) continue;
      for (const fa of fieldsA) {
        for (const fb of fieldsB) {
          const c = this.conflict(exclusive, fa, fb);
          if (c !== null) out.push(c);
        }
      }
    }
  }

  private betweenFieldsAndFragment(out: Conflict[], exclusive: boolean, fields: Map<string, GqlField[]>, spread: GqlFragmentSpread): void {
    if (this.comparedFragments.has(spread.Name)) return;
    this.comparedFragments.add(spread.Name);
    const frag = this.w.selection(spread).fragment;
    if (frag === null) return;
    const b = this.collect(frag.SelectionSet);
    if (sameFields(fields, b.fields)) return;
    this.between(out, exclusive, fields, b.fields);
    for (const inner of b.spreads) {
      if (inner.Name === spread.Name) continue;
      this.betweenFieldsAndFragment(out, exclusive, fields, inner);
    }
  }

  private hasPair(a: string, b: string, exclusive: boolean): boolean {
    const r = this.comparedPairs.get(a)?.get(b);
    if (r === undefined) return false;
    return exclusive ? true : !r;
  }

  private addPair(a: string, b: string, exclusive: boolean): void {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      let m = this.comparedPairs.get(x);
      if (m === undefined) this.comparedPairs.set(x, (m = new Map()));
      m.set(y, exclusive);
    }
  }

  private betweenFragments(out: Conflict[], exclusive: boolean, spreadA: GqlFragmentSpread, spreadB: GqlFragmentSpread): void {
    const check = (a: GqlFragmentSpread, b: GqlFragmentSpread): void => {
      if (a.Name === b.Name || this.hasPair(a.Name, b.Name, exclusive)) return;
      this.addPair(a.Name, b.Name, exclusive);
      const fa = this.w.selection(a).fragment;
      const fb = this.w.selection(b).fragment;
      if (fa === null || fb === null) return;
      const ca = this.collect(fa.SelectionSet);
      const cb = this.collect(fb.SelectionSet);
      this.between(out, exclusive, ca.fields, cb.fields);
      for (const s of cb.spreads) check(a, s);
      for (const s of ca.spreads) check(s, b);
    };
    check(spreadA, spreadB);
  }

  private betweenSubSelections(exclusive: boolean, setA: GqlSelection[] | null, setB: GqlSelection[] | null): Conflict[] {
    const out: Conflict[] = [];
    const a = this.collect(setA);
    const b = this.collect(setB);
    this.between(out, exclusive, a.fields, b.fields);
    for (const s of b.spreads) {
      this.comparedFragments = new Set();
      this.betweenFieldsAndFragment(out, exclusive, a.fields, s);
    }
    for (const s of a.spreads) {
      this.comparedFragments = new Set();
      this.betweenFieldsAndFragment(out, exclusive, b.fields, s);
    }
    for (const sa of a.spreads) for (const sb of b.spreads) this.betweenFragments(out, exclusive, sa, sb);
    return out;
  }

  private typesConflict(t1: GqlType, t2: GqlType): boolean {
    if (t1.Elem !== null) return t2.Elem !== null ? this.typesConflict(t1.Elem, t2.Elem) : true;
    if (t2.Elem !== null) return true;
    if (t1.NonNull !== t2.NonNull) return true;
    const d1 = this.w.type(t1.NamedType);
    const d2 = this.w.type(t2.NamedType);
    const leaf = (k: string | undefined) => k === 'SCALAR' || k === 'ENUM';
    return leaf(d1?.Kind) && leaf(d2?.Kind) ? d1?.Name !== d2?.Name : false;
  }

  private conflict(parentsExclusive: boolean, a: GqlField, b: GqlField): Conflict | null {
    const fa = this.w.selection(a);
    const fb = this.w.selection(b);
    if (fa.objectDefinition === null || fb.objectDefinition === null) return null;
    const exclusive =
      parentsExclusive ||
      (fa.objectDefinition.Name !== fb.objectDefinition.Name &&
        fa.objectDefinition.Kind === 'OBJECT' &&
        fb.objectDefinition.Kind === 'OBJECT' &&
        fa.definition !== null &&
        fb.definition !== null);
    const responseName = a.Alias !== '' ? a.Alias : a.Name;
    const leaf = (message: string): Conflict => ({ responseName, message, sub: [], pos: b.pos });
    if (!exclusive) {
      if (a.Name !== b.Name) return leaf(`"${a.Name}" and "${b.Name}" are different fields`);
      if (!sameArguments(a.Arguments, b.Arguments)) return leaf('they have differing arguments');
    }
    const ta = fa.definition?.Type ?? null;
    const tb = fb.definition?.Type ?? null;
    if (ta !== null && tb !== null && this.typesConflict(ta, tb)) {
      return leaf(`they return conflicting types "${typeString(ta)}" and "${typeString(tb)}"`);
    }
    if (++this.depth > MAX_COMPARISON_DEPTH) throw new EndlessOverlapCheck('query cannot be validated: its fragments spread within themselves without end');
    let sub: Conflict[];
    try {
      sub = this.betweenSubSelections(exclusive, a.SelectionSet, b.SelectionSet);
    } finally {
      this.depth--;
    }
    return sub.length === 0 ? null : { responseName, message: '', sub, pos: b.pos };
  }
}

export const overlappingFieldsCanBeMerged: Rule = (w: Walker, report: Report) => {
  const checker = new Checker(w);
  const emit = (conflicts: Conflict[]) => {
    for (const c of conflicts) {
      report(
        `Fields "${c.responseName}" conflict because ${conflictText(c)}. Use different aliases on the fields to fetch both if this was intentional.`,
        c.pos,
      );
    }
  };
  w.onOperation.push((op) => emit(checker.withinSelectionSet(op.SelectionSet)));
  w.onField.push((field) => {
    // Fields of fragment definitions are compared when the definition is: comparing them at each field too would repeat the errors.
    if (w.currentOperation !== null) emit(checker.withinSelectionSet(field.SelectionSet));
  });
  w.onInlineFragment.push((inline) => emit(checker.withinSelectionSet(inline.SelectionSet)));
  w.onFragment.push((frag) => emit(checker.withinSelectionSet(frag.SelectionSet)));
};
