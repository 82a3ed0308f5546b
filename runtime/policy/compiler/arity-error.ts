/**
 * OPA's `arity mismatch` error (`v1/ast/compiler.go`, arityMismatchError): a
 * call with a wrong number of operands to a function whose type OPA's type
 * environment holds (every builtin; a user function when a query calls it)
 * lists the operands' types and the callee's arguments:
 *
 *     count: arity mismatch
 *     	have: (array<number>, number, ???)
 *     	want: (collection: any<string, array[any], object[any: any], set[any]>)
 *
 * The check runs before type checking, so a var has no type (`???`, the
 * output of a call moved out of a term included), `input` and refs into it
 * are `any`, and refs into `data` are `any` in a module (rule types are not
 * known yet) and the rule's type in a query.
 */
import type { Loc, Term } from '../ast.js';
import { PolicyError } from '../errors.js';
import { ANY, arrayOf, type MaybeType, objectOf, or, printable, printType } from './rego-type.js';
import { RuleNode } from './rule-tree.js';
import { RegoObject, RegoSet, type Value } from '../value.js';
import { constantValue } from './constant.js';
import { BodyTyper, RuleTypes } from './type-infer.js';

/** No rule types: what a module's check sees, before rules are typed. */
const NO_RULES = new RuleTypes(new RuleNode('data', []));

/** OPA's type of an operand before type checking (`typer` holds the rule types a `data` ref reads, or none). */
function operandType(t: Term, typer: BodyTyper): MaybeType {
  switch (t.type) {
    case 'array':
      return t.items.length === 0 ? arrayOf([], ANY) : arrayOf(t.items.map((x) => operandType(x, typer)));
    case 'set':
      return { kind: 'set', of: t.items.reduce<MaybeType>((acc, x) => or(acc, operandType(x, typer)), undefined) ?? ANY };
    case 'object': {
      // As OPA's TypeEnv.Get: a constant key is a static property (printed as its JSON), any other one the dynamic
      // property (the last such key wins).
      const props: Array<[string, MaybeType]> = [];
      let dyn: { key: MaybeType; value: MaybeType } | undefined;
      for (const [k, v] of t.entries) {
        const constant = constantValue(k);
        const text = constant === undefined ? undefined : goPrint(constant);
        if (text !== undefined) props.push([text, operandType(v, typer)]);
        else dyn = { key: operandType(k, typer), value: operandType(v, typer) };
      }
      return objectOf(props, props.length === 0 && dyn === undefined ? { key: ANY, value: ANY } : dyn);
    }
    case 'arraycomp':
    case 'setcomp':
    case 'objectcomp':
      return typer.closureType(t).type;
    case 'var':
      return t.name === 'input' || t.name === 'data' ? ANY : undefined;
    default:
      return typer.typeOf(t);
  }
}

/**
 * A constant key as OPA prints its static property: Go's `%v` of the key's JSON (`ast.JSON`): `<nil>`, `true`, `1`,
 * a string unquoted, an array or set as `[1 a]` (a set sorted), an object as `map[a:1]` (keys sorted, a number key
 * as its text). An object with another key that is not a string is left dynamic (undefined): not compared with OPA.
 */
function goPrint(v: Value): string | undefined {
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v !== 'object') return String(v);
  if (Array.isArray(v) || v instanceof RegoSet) {
    const items = (Array.isArray(v) ? v : v.values()).map(goPrint);
    return items.includes(undefined) ? undefined : `[${items.join(' ')}]`;
  }
  if (!(v instanceof RegoObject)) return String(v);
  const entries: Array<[string, string | undefined]> = [];
  for (const [k, x] of v.entries()) {
    // A number key is written as its text in the JSON, as OPA's {{1: 2}: 1} prints map[1:2].
    if (typeof k !== 'string' && (k === null || typeof k === 'object' || typeof k === 'boolean')) return undefined;
    entries.push([String(k), goPrint(x)]);
  }
  if (entries.some(([, x]) => x === undefined)) return undefined;
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[${entries.map(([k, x]) => `${k}:${x}`).join(' ')}]`;
}

export interface ArityMismatch {
  /** The callee as OPA names it: `count`, `data.p.f`. */
  label: string;
  /** Its arguments as OPA prints them: `(x: string)`, `(any, number)`. */
  want: string;
  /** The call's operands, its output included. */
  operands: readonly Term[];
  loc: Loc;
  /** The compiled rules' types (a query's check); a module's check has none. */
  rules?: RuleTypes;
}

export function arityMismatchError(m: ArityMismatch): PolicyError {
  const typer = new BodyTyper(m.rules ?? NO_RULES);
  const have = m.operands.map((t) => printType(printable(operandType(t, typer))));
  return new PolicyError({
    code: 'rego_type_error',
    detail: `${m.label}: arity mismatch\n\thave: (${have.join(', ')})\n\twant: ${m.want}`,
    location: m.loc,
  });
}
