/**
 * UCAST conditions as a SQL `WHERE` clause, written the way OPA's compile
 * API writes them for PostgreSQL, MySQL, SQL Server and SQLite: values are
 * inlined as literals (numbers too, quoted as strings), `startswith` and
 * friends become `LIKE` with `\`, `_` and `%` escaped, an empty `IN` list is
 * `0 = 1`.
 */
import { PartialError } from '../partial/partial-eval.js';
import { FilterNumber, type UcastNode } from './ucast.js';

const OPS: Record<string, string> = { eq: '=', ne: '<>', gt: '>', lt: '<', ge: '>=', gte: '>=', le: '<=', lte: '<=' };

/** `WHERE ...` for a condition; `""` for "always true". */
export function ucastToSql(node: UcastNode | undefined, dialect: string): string {
  return node === undefined ? '' : `WHERE ${condition(node, dialect)}`;
}

function fail(message: string): never {
  throw new PartialError('internal_error', `convert to queries: ${message}`, undefined);
}

function condition(node: UcastNode, dialect: string): string {
  if (node.type === 'compound') {
    const parts = node.value.map((n) => condition(n, dialect));
    if (node.operator === 'not') {
      if (parts.length !== 1) fail("compound expression 'not' requires exactly one value");
      return `NOT ${parts[0]}`;
    }
    return `(${parts.join(node.operator === 'and' ? ' AND ' : ' OR ')})`;
  }
  const { field, operator, value } = node;
  if (value === null) {
    if (operator === 'eq') return `${field} IS NULL`;
    if (operator === 'ne') return `${field} IS NOT NULL`;
    fail("null value can only be used with 'eq' or 'ne' operators");
  }
  const sym = OPS[operator];
  if (sym !== undefined) return `${field} ${sym} ${literal(value, dialect)}`;
  switch (operator) {
    case 'in':
      if (!Array.isArray(value)) fail("field operator 'in' requires collection argument");
      return value.length === 0 ? '0 = 1' : `${field} IN (${value.map((v) => literal(v, dialect)).join(', ')})`;
    case 'startswith':
      return `${field} LIKE ${literal(`${likeEscaped(pattern(value, operator))}%`, dialect)}`;
    case 'endswith':
      return `${field} LIKE ${literal(`%${likeEscaped(pattern(value, operator))}`, dialect)}`;
    case 'contains':
      return `${field} LIKE ${literal(`%${likeEscaped(pattern(value, operator))}%`, dialect)}`;
    default:
      return fail(`unrecognized operator: ${operator}`);
  }
}

function pattern(value: unknown, operator: string): string {
  if (typeof value !== 'string') fail(`'${operator}' pattern requires string argument, got ${JSON.stringify(value)}`);
  return value;
}

function likeEscaped(s: string): string {
  return s.replaceAll('\\', '\\\\').replaceAll('_', '\\_').replaceAll('%', '\\%');
}

/** A value inlined as a SQL literal in the dialect's string syntax. */
function literal(v: unknown, dialect: string): string {
  if (typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { field?: unknown }).field === 'string') return (v as { field: string }).field;
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE';
  if (v === null) return 'NULL';
  if (v instanceof FilterNumber) return quoted(v.text, dialect);
  if (typeof v === 'string') return quoted(v, dialect);
  return fail(`cannot write ${JSON.stringify(v)} as a SQL value`);
}

const ESCAPES: Record<string, string> = {
  '\0': '\\0',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
  '\x1a': '\\Z',
  "'": "\\'",
  '"': '\\"',
  '\\': '\\\\',
};

function quoted(s: string, dialect: string): string {
  if (dialect === 'sqlite') return `'${s.replaceAll("'", "''")}'`;
  const body = s.replace(/[\0\b\t\n\r\x1a'"\\]/g, (c) => ESCAPES[c] as string);
  if (dialect === 'postgresql') return `E'${body}'`;
  if (dialect === 'sqlserver') return `N'${body}'`;
  return `'${body}'`;
}
