/**
 * Query validation against a loaded schema. gqlparser's validation rules are
 * a port of graphql-js's, so the `graphql` package's `specifiedRules` run here
 * on the query, against a graphql-js schema printed from the schema gqlparser
 * semantics loaded (extensions merged, roots resolved). gqlparser's
 * KnownRootType rule (an operation whose root type the schema lacks) is
 * checked first, as graphql-js has no such rule. Messages are graphql-js's,
 * which gqlparser copies; when a query breaks several rules the order of the
 * messages may differ from OPA's.
 */
import { createRequire } from 'node:module';
import type { GraphQLSchema } from 'graphql';
import type { GqlArgumentDefinition, GqlDirective, GqlQueryDocument, GqlSelection, GqlType, GqlValue } from './graphql-ast.js';
import { isField, isInlineFragment, VALUE_KIND } from './graphql-ast.js';
import { GraphQLSyntaxError } from './graphql-lexer.js';
import { type GqlSchema, PRELUDE_TYPES } from './graphql-schema.js';

/** Validation failures, each `input:line:col: message` as gqlparser's error list prints them. */
export class GraphQLValidationError extends Error {
  constructor(readonly errors: { message: string; line: number; column: number }[]) {
    super(errors.map((e) => `input:${e.line}:${e.column}: ${e.message}`).join('\n'));
    this.name = 'GraphQLValidationError';
  }
}

function printType(t: GqlType | null): string {
  if (t === null) return '';
  const nn = t.NonNull ? '!' : '';
  return t.NamedType !== '' ? t.NamedType + nn : `[${printType(t.Elem)}]${nn}`;
}

function printString(s: string): string {
  return JSON.stringify(s)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function printValue(v: GqlValue | null): string {
  if (v === null) return 'null';
  switch (v.Kind) {
    case VALUE_KIND.Variable:
      return `$${v.Raw}`;
    case VALUE_KIND.StringValue:
    case VALUE_KIND.BlockValue:
      return printString(v.Raw);
    case VALUE_KIND.ListValue:
      return `[${(v.Children ?? []).map((c) => printValue(c.Value)).join(', ')}]`;
    case VALUE_KIND.ObjectValue:
      return `{${(v.Children ?? []).map((c) => `${c.Name}: ${printValue(c.Value)}`).join(', ')}}`;
    default:
      return v.Raw;
  }
}

function printArgs(args: { Name: string; Value: GqlValue | null }[] | null): string {
  return args === null || args.length === 0 ? '' : `(${args.map((a) => `${a.Name}: ${printValue(a.Value)}`).join(', ')})`;
}

function printDirectives(dirs: GqlDirective[] | null): string {
  return (dirs ?? []).map((d) => ` @${d.Name}${printArgs(d.Arguments)}`).join('');
}

function printArgDefs(args: GqlArgumentDefinition[] | null): string {
  if (args === null || args.length === 0) return '';
  const one = (a: GqlArgumentDefinition) =>
    `${a.Name}: ${printType(a.Type)}${a.DefaultValue !== null ? ` = ${printValue(a.DefaultValue)}` : ''}${printDirectives(a.Directives)}`;
  return `(${args.map(one).join(', ')})`;
}

/** The schema as SDL for graphql-js: every type but the prelude's, the non-built-in directives and the roots. */
function printSchema(schema: GqlSchema): string {
  const out: string[] = [];
  for (const def of schema.types.values()) {
    if (def.BuiltIn && PRELUDE_TYPES.has(def.Name)) continue;
    const dirs = printDirectives(def.Directives);
    const fields = (input: boolean) =>
      ` {\n${(def.Fields ?? [])
        .map(
          (f) =>
            `  ${f.Name}${input ? '' : printArgDefs(f.Arguments)}: ${printType(f.Type)}${f.DefaultValue !== null ? ` = ${printValue(f.DefaultValue)}` : ''}${printDirectives(f.Directives)}`,
        )
        .join('\n')}\n}`;
    const impl = def.Interfaces !== null && def.Interfaces.length > 0 ? ` implements ${def.Interfaces.join(' & ')}` : '';
    switch (def.Kind) {
      case 'SCALAR':
        out.push(`scalar ${def.Name}${dirs}`);
        break;
      case 'OBJECT':
        out.push(`type ${def.Name}${impl}${dirs}${fields(false)}`);
        break;
      case 'INTERFACE':
        out.push(`interface ${def.Name}${impl}${dirs}${fields(false)}`);
        break;
      case 'INPUT_OBJECT':
        out.push(`input ${def.Name}${dirs}${fields(true)}`);
        break;
      case 'UNION':
        out.push(`union ${def.Name}${dirs} = ${(def.Types ?? []).join(' | ')}`);
        break;
      case 'ENUM':
        out.push(`enum ${def.Name}${dirs} {\n${(def.EnumValues ?? []).map((v) => `  ${v.Name}${printDirectives(v.Directives)}`).join('\n')}\n}`);
        break;
    }
  }
  for (const dir of schema.directives.values()) {
    if (schema.prelude.has(dir) && ['include', 'skip', 'deprecated', 'specifiedBy', 'oneOf'].includes(dir.Name)) continue;
    out.push(`directive @${dir.Name}${printArgDefs(dir.Arguments)}${dir.IsRepeatable ? ' repeatable' : ''} on ${(dir.Locations ?? []).join(' | ')}`);
  }
  const roots: string[] = [];
  if (schema.query !== null) roots.push(`query: ${schema.query.Name}`);
  if (schema.mutation !== null) roots.push(`mutation: ${schema.mutation.Name}`);
  if (schema.subscription !== null) roots.push(`subscription: ${schema.subscription.Name}`);
  if (roots.length > 0) out.push(`schema {\n  ${roots.join('\n  ')}\n}`);
  return out.join('\n\n');
}

function printSelections(sels: GqlSelection[] | null): string {
  if (sels === null || sels.length === 0) return '';
  const one = (s: GqlSelection): string => {
    if (isInlineFragment(s))
      return `...${s.TypeCondition !== '' ? ` on ${s.TypeCondition}` : ''}${printDirectives(s.Directives)}${printSelections(s.SelectionSet)}`;
    if (!isField(s)) return `...${s.Name}${printDirectives(s.Directives)}`;
    const alias = s.Alias !== '' && s.Alias !== s.Name ? `${s.Alias}: ` : '';
    return `${alias}${s.Name}${printArgs(s.Arguments)}${printDirectives(s.Directives)}${printSelections(s.SelectionSet)}`;
  };
  return ` {\n${sels.map(one).join('\n')}\n}`;
}

/** A query document as GraphQL text (for documents given as AST objects). */
export function printQuery(doc: GqlQueryDocument): string {
  const out: string[] = [];
  for (const op of doc.Operations ?? []) {
    const vars = (op.VariableDefinitions ?? []).map(
      (v) => `$${v.Variable}: ${printType(v.Type)}${v.DefaultValue !== null ? ` = ${printValue(v.DefaultValue)}` : ''}${printDirectives(v.Directives)}`,
    );
    const head = `${op.Operation === '' ? 'query' : op.Operation}${op.Name !== '' ? ` ${op.Name}` : ''}${vars.length > 0 ? `(${vars.join(', ')})` : ''}`;
    out.push(`${head}${printDirectives(op.Directives)}${printSelections(op.SelectionSet)}`);
  }
  for (const f of doc.Fragments ?? []) {
    out.push(`fragment ${f.Name} on ${f.TypeCondition}${printDirectives(f.Directives)}${printSelections(f.SelectionSet)}`);
  }
  return out.join('\n\n');
}

const require = createRequire(import.meta.url);
let graphqlJs: typeof import('graphql') | undefined;

/** graphql-js (about 530 modules, CommonJS), loaded by the first validation: a policy engine whose policies never validate a query does not hold it. */
function graphql(): typeof import('graphql') {
  return (graphqlJs ??= require('graphql') as typeof import('graphql'));
}

const built = new WeakMap<GqlSchema, GraphQLSchema>();

function toGraphQLJS(schema: GqlSchema): GraphQLSchema {
  let s = built.get(schema);
  if (s === undefined) {
    const { buildASTSchema, parse } = graphql();
    s = buildASTSchema(parse(printSchema(schema)), { assumeValid: true, assumeValidSDL: true });
    built.set(schema, s);
  }
  return s;
}

/**
 * Validates `query` against `schema`; `text` is the query's source when it
 * was given as a string (so error positions are its own). Throws
 * {@link GraphQLValidationError}.
 */
export function validateGraphQLQuery(schema: GqlSchema, query: GqlQueryDocument, text: string | null): void {
  if (text === null) return validateUncached(schema, query, null);
  let memo = verdicts.get(schema);
  if (memo === undefined) verdicts.set(schema, (memo = new Map()));
  let verdict = memo.get(text);
  if (verdict === undefined) {
    try {
      validateUncached(schema, query, text);
      verdict = null;
    } catch (e) {
      if (!(e instanceof GraphQLValidationError || e instanceof GraphQLSyntaxError)) throw e;
      verdict = e;
    }
    if (memo.size >= VERDICTS_PER_SCHEMA) memo.delete(memo.keys().next().value as string);
    memo.set(text, verdict);
  }
  if (verdict !== null) throw verdict;
}

/** Validation outcomes per loaded schema and query text (graphql-js's rules cost about a millisecond a query). */
const verdicts = new WeakMap<GqlSchema, Map<string, GraphQLValidationError | GraphQLSyntaxError | null>>();
const VERDICTS_PER_SCHEMA = 256;

function validateUncached(schema: GqlSchema, query: GqlQueryDocument, text: string | null): void {
  const ops = query.Operations ?? [];
  for (const op of ops) {
    const root = op.Operation === 'mutation' ? schema.mutation : op.Operation === 'subscription' ? schema.subscription : schema.query;
    if (root === null) {
      throw new GraphQLValidationError([
        { message: `Schema does not support operation type "${op.Operation}"`, line: op.pos?.line ?? 0, column: op.pos?.column ?? 0 },
      ]);
    }
  }
  if (ops.length === 0 && (query.Fragments ?? []).length === 0) return;
  const { parse, specifiedRules, validate } = graphql();
  let doc;
  try {
    doc = parse(text ?? printQuery(query), { allowLegacyFragmentVariables: true, noLocation: false });
  } catch (e) {
    throw new GraphQLSyntaxError(e instanceof Error ? e.message : String(e), 0, 0);
  }
  const errors = validate(toGraphQLJS(schema), doc, specifiedRules);
  if (errors.length > 0) {
    throw new GraphQLValidationError(errors.map((e) => ({ message: e.message, line: e.locations?.[0]?.line ?? 0, column: e.locations?.[0]?.column ?? 0 })));
  }
}
