/**
 * Query validation against a loaded schema, as gqlparser's validator runs
 * it: one walk of the document (graphql-walk.ts) with its default rules
 * listening (graphql-rules.ts, in gqlparser's order), so a query that breaks
 * several rules gets gqlparser's error list: the same errors, in the same
 * order, at the same positions, in the same words.
 */
import type { GqlQueryDocument, Pos } from './graphql-ast.js';
import { GraphQLSyntaxError } from './graphql-lexer.js';
import { EndlessOverlapCheck } from './graphql-overlap.js';
import { type GqlError, RULES } from './graphql-rules.js';
import type { GqlSchema } from './graphql-schema.js';
import { Walker } from './graphql-walk.js';

/**
 * Validation failures, printed as gqlparser's error list: `input:line:col: message`
 * per error (`input: message` when the node has no position, as in a query given
 * as an AST object), each ending in a newline.
 */
export class GraphQLValidationError extends Error {
  constructor(readonly errors: GqlError[]) {
    super(errors.map((e) => `${errorLead(e.locations[0])}${e.message}\n`).join(''));
    this.name = 'GraphQLValidationError';
  }

  /** Whether the first error has a position (OPA words the two cases differently). */
  get located(): boolean {
    return this.errors[0]?.locations[0] !== undefined;
  }
}

const errorLead = (at: Pos | undefined) => (at === undefined ? 'input: ' : `input:${at.line}:${at.column}: `);

/**
 * Validates `query` against `schema`; `text` is the query's source when it
 * was given as a string (verdicts are cached by it). Throws
 * {@link GraphQLValidationError}.
 */
export function validateGraphQLQuery(schema: GqlSchema, query: GqlQueryDocument, text: string | null): void {
  if (text === null) return validateUncached(schema, query);
  let memo = verdicts.get(schema);
  if (memo === undefined) verdicts.set(schema, (memo = new Map()));
  let verdict = memo.get(text);
  if (verdict === undefined) {
    try {
      validateUncached(schema, query);
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

/** Validation outcomes per loaded schema and query text (policies often check the same query again). */
const verdicts = new WeakMap<GqlSchema, Map<string, GraphQLValidationError | GraphQLSyntaxError | null>>();
const VERDICTS_PER_SCHEMA = 256;

function validateUncached(schema: GqlSchema, query: GqlQueryDocument): void {
  const errors: GqlError[] = [];
  const walker = new Walker(schema, query);
  const report = (message: string, ...at: Array<Pos | undefined>) => {
    errors.push({ message, locations: at.filter((p): p is Pos => p !== undefined).map((p) => ({ line: p.line, column: p.column })) });
  };
  for (const rule of RULES) rule(walker, report);
  try {
    walker.walk();
  } catch (e) {
    // gqlparser recurses on Go's growable stack (and dies when even that overflows); ours is bounded, so a query too deep or endless to check is refused.
    if (e instanceof EndlessOverlapCheck) throw new GraphQLSyntaxError(e.message, 0, 0);
    if (e instanceof RangeError) throw new GraphQLSyntaxError('GraphQL document nested too deeply', 0, 0);
    throw e;
  }
  if (errors.length > 0) throw new GraphQLValidationError(errors);
}
