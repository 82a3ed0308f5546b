/**
 * GraphQL builtins: graphql.parse, parse_and_verify, parse_query,
 * parse_schema, is_valid and schema_is_valid, as OPA runs them on gqlparser.
 * ASTs come back as gqlparser's structs in JSON form (Go field names; nulls,
 * empty lists and positions pruned); queries and schemas may be given as
 * text or as such objects. Errors read as OPA's: `<message> in GraphQL string
 * at location <line>:<column>` for syntax and validation alike.
 */
import { fromJS, toJS } from '../value-json.js';
import { RegoObject, type Value } from '../value.js';
import type { GqlQueryDocument, GqlSchemaDocument } from './graphql-ast.js';
import { decodeQueryDocument, decodeSchemaDocument } from './graphql-decode.js';
import { GraphQLSyntaxError } from './graphql-lexer.js';
import { parseGraphQLQuery } from './graphql-parser.js';
import { parseGraphQLSchema } from './graphql-parser-schema.js';
import { type GqlSchema, loadGraphQLSchema } from './graphql-schema.js';
import { GraphQLValidationError, validateGraphQLQuery } from './graphql-validate.js';
import { asString, BuiltinError, type BuiltinDefinition, operandTypeError } from './registry.js';

/** Drops positions, nulls and empty lists/objects, as OPA's pruneIrrelevantGraphQLASTNodes. */
function prune(x: unknown): unknown {
  if (Array.isArray(x)) {
    const out: unknown[] = [];
    for (const e of x) {
      if (e === null || e === undefined) continue;
      const p = prune(e);
      if (typeof p === 'object' && p !== null && (Array.isArray(p) ? p.length === 0 : Object.keys(p).length === 0)) continue;
      out.push(p);
    }
    return out;
  }
  if (typeof x === 'object' && x !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) {
      if (k === 'pos' || k === 'Position' || v === null || v === undefined) continue;
      const p = prune(v);
      if (typeof p === 'object' && p !== null && (Array.isArray(p) ? p.length === 0 : Object.keys(p).length === 0)) continue;
      out[k] = p;
    }
    return out;
  }
  return x;
}

function toValue(doc: GqlQueryDocument | GqlSchemaDocument): Value {
  return fromJS(prune(doc));
}

function syntaxMessage(e: unknown): never {
  if (e instanceof GraphQLSyntaxError) throw new BuiltinError(`${e.message} in GraphQL string at location ${e.line}:${e.column}`);
  // gqlparser recurses on Go's growable stack; ours is bounded, so absurd nesting is an error, not a crash.
  if (e instanceof RangeError) throw new BuiltinError('GraphQL document nested too deeply');
  throw e;
}

interface Query {
  doc: GqlQueryDocument;
  text: string | null;
}

/** The query operand (text or AST object); throws a type error for any other value. */
function queryOperand(v: Value, pos: number): Query {
  if (typeof v === 'string') {
    try {
      return { doc: queryDocCache(v, () => parseGraphQLQuery(v)), text: v };
    } catch (e) {
      return syntaxMessage(e);
    }
  }
  if (v instanceof RegoObject) return { doc: decodeQueryDocument(toJS(v) as never), text: null };
  throw operandTypeError(pos, v, 'string', 'object');
}

/**
 * A small least-recently-used cache by source text: policies check many
 * queries against one schema, often the same query again. Cached documents
 * and schemas are never changed after they are built.
 */
function lru<T>(size: number): (key: string, make: () => T) => T {
  const m = new Map<string, T>();
  return (key, make) => {
    const hit = m.get(key);
    if (hit !== undefined) {
      m.delete(key);
      m.set(key, hit);
      return hit;
    }
    const v = make();
    m.set(key, v);
    if (m.size > size) m.delete(m.keys().next().value as string);
    return v;
  };
}

const schemaCache = lru<GqlSchema>(32);
const schemaDocCache = lru<GqlSchemaDocument>(32);
const queryDocCache = lru<GqlQueryDocument>(256);

function cachedSchema(text: string, doc: GqlSchemaDocument): GqlSchema {
  return schemaCache(text, () => loadSchema(doc));
}

/** The schema operand loaded (from the cache when given as text). */
function schemaFor(v: Value, doc: GqlSchemaDocument): GqlSchema {
  return typeof v === 'string' ? cachedSchema(v, doc) : loadSchema(doc);
}

function schemaOperand(v: Value, pos: number): GqlSchemaDocument {
  if (typeof v === 'string') {
    try {
      return schemaDocCache(v, () => parseGraphQLSchema(v));
    } catch (e) {
      return syntaxMessage(e);
    }
  }
  if (v instanceof RegoObject) return decodeSchemaDocument(toJS(v) as never);
  throw operandTypeError(pos, v, 'string', 'object');
}

function loadSchema(doc: GqlSchemaDocument): GqlSchema {
  try {
    return loadGraphQLSchema(doc);
  } catch (e) {
    if (e instanceof GraphQLSyntaxError) {
      const where = e.line > 0 ? `input:${e.line}:${e.column}: ` : 'input: ';
      throw new BuiltinError(`Error in gqlparser SchemaDocument to Schema conversion: ${where}${e.message}`);
    }
    throw e;
  }
}

/**
 * OPA splits gqlparser's error list text at its first three colons (file, line, column) and trims a trailing ".\n";
 * a list whose first error has no position (a query given as an AST object) comes whole after `GraphQL parse error: `.
 */
function validate(schema: GqlSchema, q: Query): void {
  try {
    validateGraphQLQuery(schema, q.doc, q.text);
  } catch (e) {
    if (e instanceof GraphQLValidationError) {
      const text = e.message;
      if (!e.located) throw new BuiltinError(`GraphQL parse error: ${text}`);
      const parts = text.split(':');
      const msg = parts.slice(3).join(':').replace(/^ +/, '');
      throw new BuiltinError(`${msg.endsWith('.\n') ? msg.slice(0, -2) : msg} in GraphQL string at location ${parts[1]}:${parts[2]}`);
    }
    if (e instanceof GraphQLSyntaxError) throw new BuiltinError(e.message);
    throw e;
  }
}

/** Runs `f`; any failure (bad operand, syntax, schema, validation) is `undefined`. */
function attempt<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch (e) {
    if (e instanceof BuiltinError || e instanceof Error) return undefined;
    throw e;
  }
}

export const graphqlBuiltins: BuiltinDefinition[] = [
  {
    name: 'graphql.parse_query',
    args: ['string'],
    result: 'object',
    impl: ([q]) => queryOperandText(asString(q, 1)),
  },
  {
    name: 'graphql.parse_schema',
    args: ['string'],
    result: 'object',
    impl: ([s]) => toValue(schemaOperand(asString(s, 1), 1)),
  },
  {
    name: 'graphql.parse',
    args: ['any', 'any'],
    result: 'array',
    impl: ([q, s]) => {
      const query = queryOperand(q as Value, 0);
      const schemaDoc = schemaOperand(s as Value, 1);
      const out = [toValue(query.doc), toValue(schemaDoc)];
      validate(schemaFor(s as Value, schemaDoc), query);
      return out;
    },
  },
  {
    name: 'graphql.parse_and_verify',
    args: ['any', 'any'],
    result: 'array',
    impl: ([q, s]) => {
      const r = attempt(() => {
        const query = queryOperand(q as Value, 0);
        const schemaDoc = schemaOperand(s as Value, 1);
        const out: Value[] = [true, toValue(query.doc), toValue(schemaDoc)];
        validate(schemaFor(s as Value, schemaDoc), query);
        return out;
      });
      return r ?? [false, new RegoObject(), new RegoObject()];
    },
  },
  {
    name: 'graphql.is_valid',
    args: ['any', 'any'],
    result: 'boolean',
    impl: ([q, s]) =>
      attempt(() => {
        const query = queryOperand(q as Value, 0);
        validate(schemaFor(s as Value, schemaOperand(s as Value, 1)), query);
        return true;
      }) ?? false,
  },
  {
    name: 'graphql.schema_is_valid',
    args: ['any'],
    result: 'boolean',
    impl: ([s]) =>
      attempt(() => {
        schemaFor(s as Value, schemaOperand(s as Value, 0));
        return true;
      }) ?? false,
  },
];

function queryOperandText(q: string): Value {
  return toValue(queryOperand(q, 1).doc);
}
