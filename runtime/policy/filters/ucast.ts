/**
 * Residual queries as UCAST conditions, the shape OPA's compile API answers
 * (`{"type": "field", "operator": "eq", "field": "fruits.name", "value": "apple"}`,
 * compounds `and` / `or` / `not`), with table and column names renamed by
 * the request's mappings. Keys come out sorted, as OPA writes them.
 */
import { type Expr, refName, type Term } from '../ast.js';
import { PartialError, type Queries } from '../partial/partial-eval.js';
import { RegoDecimal, RegoObject, RegoSet, type Value } from '../value.js';

/** A UCAST node; `value` is a JSON value, a `{field}` reference or child nodes. */
export type UcastNode =
  { field: string; operator: string; type: 'field'; value: unknown } | { operator: 'and' | 'or' | 'not'; type: 'compound'; value: UcastNode[] };

/**
 * A number in a filter, kept as its text (`1e3`, `2.50`, 20-digit integers)
 * as OPA writes it; `toJSON` gives the nearest double, and the server writes
 * the text exactly (see `exactNumbers`).
 */
export class FilterNumber {
  constructor(readonly text: string) {}

  toJSON(): number {
    return Number(this.text);
  }
}

/** A column compared with another column (`{"field": "users.id"}`). */
export interface FieldRef {
  field: string;
}

export type Mappings = Record<string, unknown>;

/** OPA flips `3 < x` into `x >= 3` (its own table, kept as it answers). */
const FLIPPED: Record<string, string> = { lt: 'gte', lte: 'gt', gt: 'lte', gte: 'lt' };

/** The UCAST of the residual; `undefined` means "always true" (some alternative has no condition). */
export function queriesToUcast(queries: Queries, mappings: Mappings | undefined): UcastNode | undefined {
  if (queries.length === 1) return bodyToUcast(queries[0] as Expr[], mappings);
  const nodes: UcastNode[] = [];
  for (const q of queries) {
    const n = bodyToUcast(q, mappings);
    if (n === undefined) return undefined;
    nodes.push(n);
  }
  return { operator: 'or', type: 'compound', value: nodes };
}

function bodyToUcast(body: Expr[], mappings: Mappings | undefined): UcastNode | undefined {
  if (body.length === 0) return undefined;
  if (body.length === 1) return exprToUcast(body[0] as Expr, mappings);
  return { operator: 'and', type: 'compound', value: body.map((e) => exprToUcast(e, mappings)) };
}

function exprToUcast(e: Expr, mappings: Mappings | undefined): UcastNode {
  // The checks admit only two-operand calls with a column on one side; anything else is a bug, refused (never "always true").
  const refuse = (): never => {
    throw new PartialError('pe_fragment_error', 'expression cannot be translated to a filter', e.loc);
  };
  if (e.kind !== 'call' || e.args.length !== 2) return refuse();
  const [a, b] = e.args as [Term, Term];
  const flip = a.type !== 'ref';
  const column = flip ? b : a;
  const other = flip ? a : b;
  if (column.type !== 'ref') return refuse();
  let op = refName(e.op) ?? '';
  let refOK = false;
  if (op === 'neq') {
    refOK = true;
    op = 'ne';
  } else if (['eq', 'lt', 'lte', 'gt', 'gte'].includes(op)) refOK = true;
  else if (op === 'internal.member_2') op = 'in';
  else if (!['startswith', 'endswith', 'contains'].includes(op)) return refuse();
  if (flip) op = FLIPPED[op] ?? op;
  let value: unknown;
  if (other.type === 'ref') value = refOK ? { field: fieldOf(other, mappings) } : null;
  else if (other.type === 'var') {
    if (op !== 'eq') return refuse();
    op = 'ne'; // `_ = input.t.c`: the column exists (IS NOT NULL)
    value = null;
  } else {
    value = termValue(other);
    if (value === undefined) refuse();
  }
  const node: UcastNode = { field: fieldOf(column, mappings), operator: op, type: 'field', value };
  return e.negated ? { operator: 'not', type: 'compound', value: [node] } : node;
}

/** A constant term as JSON (sets as sorted arrays, numbers as written); undefined for what is not constant. */
function termValue(t: Term): unknown {
  const v = constantValue(t);
  return v === undefined ? undefined : jsonOf(v);
}

function constantValue(t: Term): Value | undefined {
  switch (t.type) {
    case 'null':
      return null;
    case 'boolean':
    case 'string':
    case 'number':
      return t.value;
    case 'array':
    case 'set': {
      const items = t.items.map(constantValue);
      if (items.some((x) => x === undefined)) return undefined;
      return t.type === 'set' ? RegoSet.of(items as Value[]) : (items as Value[]);
    }
    case 'object': {
      const o = new RegoObject();
      for (const [k, v] of t.entries) {
        const kv = constantValue(k);
        const vv = constantValue(v);
        if (kv === undefined || vv === undefined) return undefined;
        o.set(kv, vv);
      }
      return o;
    }
    default:
      return undefined;
  }
}

/** JSON for a value, numbers kept as their text (OPA writes `1e3` and `2.50` as given; big integers exactly). */
function jsonOf(v: Value): unknown {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof RegoDecimal) return new FilterNumber(String(v));
  if (Array.isArray(v)) return v.map(jsonOf);
  if (v instanceof RegoSet) return v.values().map(jsonOf);
  return Object.fromEntries(v.entries().map(([k, x]) => [typeof k === 'string' ? k : String(jsonOf(k)), jsonOf(x)]));
}

/** `input.fruits.name` → `fruits.name`, renamed by the mappings (`$self` renames a table, `$table` gives a short name one). */
export function fieldOf(ref: Term & { type: 'ref' }, mappings: Mappings | undefined): string {
  const parts = ref.terms.slice(1).map((t) => (t.type === 'string' ? t.value : t.type === 'var' ? t.name : ''));
  return translateField(parts.join('.'), mappings);
}

function mapping(mappings: Mappings, key: string): Record<string, unknown> | undefined {
  const m = Object.hasOwn(mappings, key) ? mappings[key] : undefined;
  return typeof m === 'object' && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : undefined;
}

function mappedName(m: Record<string, unknown>, key: string): string | undefined {
  if (!Object.hasOwn(m, key)) return undefined;
  const v = m[key];
  if (typeof v !== 'string')
    throw new PartialError('invalid_parameter', `mappings: ${JSON.stringify(key)} must name a table or column with a string`, undefined);
  return v;
}

function translateField(field: string, mappings: Mappings | undefined): string {
  if (mappings === undefined) return field;
  const dot = field.indexOf('.');
  let found = dot >= 0;
  let before = found ? field.slice(0, dot) : field;
  let after = found ? field.slice(dot + 1) : '';
  let table = before;
  let column = after;
  const short = mapping(mappings, before);
  const shortTable = short === undefined ? undefined : mappedName(short, '$table');
  if (shortTable !== undefined) {
    table = shortTable;
    after = before;
    before = shortTable;
    found = true;
    column = after;
  }
  const m = mapping(mappings, before);
  if (m !== undefined) {
    table = mappedName(m, '$self') ?? table;
    if (found) column = mappedName(m, after) ?? column;
  }
  return found ? `${table}.${column}` : table;
}

/** Short names (`input.<short>`) a mapping gives a table with `$table`, as OPA collects them. */
export function shortsOf(mappings: Mappings | undefined): Set<string> {
  const out = new Set<string>();
  for (const level of Object.values(mappings ?? {})) {
    if (typeof level !== 'object' || level === null) continue;
    for (const [name, m] of Object.entries(level as Record<string, unknown>)) {
      if (typeof m === 'object' && m !== null && Object.hasOwn(m, '$table')) out.add(name);
    }
  }
  return out;
}

/** The mappings for one target/dialect: `mappings[dialect]`, else `mappings[target]`, else the whole. */
export function mappingsFor(mappings: Mappings | undefined, target: string, dialect: string): Mappings | undefined {
  if (mappings === undefined) return undefined;
  for (const key of [dialect, target]) {
    const m = Object.hasOwn(mappings, key) ? mappings[key] : undefined;
    if (m === undefined || m === null) continue;
    if (typeof m !== 'object' || Array.isArray(m))
      throw new PartialError('invalid_parameter', `mappings: invalid mappings for ${key === dialect ? 'dialect' : 'target'} ${key}`, undefined);
    return m as Mappings;
  }
  return mappings;
}
