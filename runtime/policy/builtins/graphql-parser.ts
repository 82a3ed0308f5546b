/**
 * GraphQL query parser, and the parser state the schema grammar
 * (graphql-parser-schema.ts) builds on, with gqlparser's behaviour: the same
 * AST (see graphql-ast.ts), the same accepted language (fragment variables,
 * empty-argument errors) and the same first error message and position, so
 * `graphql.parse_query` and `graphql.parse_schema` fail as OPA's do.
 */
import {
  type GqlArgument,
  type GqlDirective,
  type GqlFragmentDefinition,
  type GqlOperationDefinition,
  type GqlQueryDocument,
  type GqlSelection,
  type GqlType,
  type GqlValue,
  type GqlVariableDefinition,
  type Pos,
  VALUE_KIND,
  type ValueKind,
} from './graphql-ast.js';
import { GraphQLSyntaxError, kindText, Lexer, type Token, type TokenKind, tokenText } from './graphql-lexer.js';
import { goQuote } from '../value-format.js';

/** The shared parser state and gqlparser's query grammar; graphql-parser-schema.ts adds the schema grammar. */
export class Parser {
  private readonly lexer: Lexer;
  err: GraphQLSyntaxError | null = null;
  private peeked = false;
  private peekToken: Token = { kind: 'EOF', value: '', line: 1, column: 1 };
  private peekError: GraphQLSyntaxError | undefined;
  prev: Token = { kind: 'EOF', value: '', line: 1, column: 1 };

  constructor(input: string) {
    this.lexer = new Lexer(input);
  }

  peek(): Token {
    if (this.err !== null) return this.prev;
    if (!this.peeked) {
      const r = this.lexer.read();
      this.peekToken = r.token;
      this.peekError = r.error;
      this.peeked = true;
    }
    return this.peekToken;
  }

  pos(): Pos | undefined {
    if (this.err !== null) return undefined;
    const t = this.peek();
    return { line: t.line, column: t.column };
  }

  error(tok: Token, message: string): void {
    if (this.err !== null) return;
    this.err = new GraphQLSyntaxError(message, tok.line, tok.column);
  }

  next(): Token {
    if (this.err !== null) return this.prev;
    if (this.peeked) {
      this.peeked = false;
      this.prev = this.peekToken;
      this.err = this.peekError ?? null;
    } else {
      const r = this.lexer.read();
      this.prev = r.token;
      this.err = r.error ?? null;
    }
    return this.prev;
  }

  expectKeyword(value: string): Token {
    const tok = this.peek();
    if (tok.kind === 'Name' && tok.value === value) return this.next();
    this.error(tok, `Expected ${goQuote(value)}, found ${tokenText(tok)}`);
    return tok;
  }

  expect(kind: TokenKind): Token {
    const tok = this.peek();
    if (tok.kind === kind) return this.next();
    this.error(tok, `Expected ${kindText(kind)}, found ${kindText(tok.kind)}`);
    return tok;
  }

  skip(kind: TokenKind): boolean {
    if (this.err !== null) return false;
    if (this.peek().kind !== kind) return false;
    this.next();
    return true;
  }

  unexpected(tok: Token = this.peek()): void {
    this.error(tok, `Unexpected ${tokenText(tok)}`);
  }

  many(start: TokenKind, end: TokenKind, cb: () => void): void {
    if (!this.skip(start)) return;
    while (this.peek().kind !== end && this.err === null) cb();
    this.next();
  }

  some(start: TokenKind, end: TokenKind, cb: () => void): void {
    if (!this.skip(start)) return;
    let called = false;
    while (this.peek().kind !== end && this.err === null) {
      called = true;
      cb();
    }
    if (!called) {
      this.error(this.peek(), `expected at least one definition, found ${kindText(this.peek().kind)}`);
      return;
    }
    this.next();
  }

  name(): string {
    return this.expect('Name').value;
  }

  // -------------------------------------------------------------------------
  // Shared: values, directives, types

  valueLiteral(isConst: boolean): GqlValue | null {
    const token = this.peek();
    let kind: ValueKind;
    switch (token.kind) {
      case 'BracketL':
      case 'BraceL': {
        const pos = this.pos();
        const children: GqlValue['Children'] = [];
        const list = token.kind === 'BracketL';
        this.many(list ? 'BracketL' : 'BraceL', list ? 'BracketR' : 'BraceR', () => {
          if (list) {
            children.push({ Name: '', Value: this.valueLiteral(isConst) });
          } else {
            const fieldPos = this.pos();
            const name = this.name();
            this.expect('Colon');
            children.push({ Name: name, Value: this.valueLiteral(isConst), pos: fieldPos });
          }
        });
        return {
          Raw: '',
          Children: children.length > 0 ? children : null,
          Kind: list ? VALUE_KIND.ListValue : VALUE_KIND.ObjectValue,
          ExpectedTypeHasDefault: false,
          pos,
        };
      }
      case 'Dollar':
        if (isConst) {
          this.unexpected();
          return null;
        }
        return { Raw: this.variable(), Children: null, Kind: VALUE_KIND.Variable, ExpectedTypeHasDefault: false, pos: token };
      case 'Int':
        kind = VALUE_KIND.IntValue;
        break;
      case 'Float':
        kind = VALUE_KIND.FloatValue;
        break;
      case 'String':
        kind = VALUE_KIND.StringValue;
        break;
      case 'BlockString':
        kind = VALUE_KIND.BlockValue;
        break;
      case 'Name':
        kind =
          token.value === 'true' || token.value === 'false' ? VALUE_KIND.BooleanValue : token.value === 'null' ? VALUE_KIND.NullValue : VALUE_KIND.EnumValue;
        break;
      default:
        this.unexpected();
        return null;
    }
    this.next();
    return { Raw: token.value, Children: null, Kind: kind, ExpectedTypeHasDefault: false, pos: token };
  }

  variable(): string {
    this.expect('Dollar');
    return this.name();
  }

  arguments(isConst: boolean): GqlArgument[] | null {
    const args: GqlArgument[] = [];
    this.some('ParenL', 'ParenR', () => {
      const pos = this.pos();
      const name = this.name();
      this.expect('Colon');
      args.push({ Name: name, Value: this.valueLiteral(isConst), pos });
    });
    return args.length > 0 ? args : null;
  }

  directives(isConst: boolean): GqlDirective[] | null {
    const out: GqlDirective[] = [];
    while (this.peek().kind === 'At') {
      if (this.err !== null) break;
      this.expect('At');
      const pos = this.pos();
      const name = this.name();
      out.push({ Name: name, Arguments: this.arguments(isConst), Location: '', pos });
    }
    return out.length > 0 ? out : null;
  }

  typeReference(): GqlType {
    const t: GqlType = { NamedType: '', Elem: null, NonNull: false };
    if (this.skip('BracketL')) {
      t.pos = this.pos();
      t.Elem = this.typeReference();
      this.expect('BracketR');
    } else {
      t.pos = this.pos();
      t.NamedType = this.name();
    }
    if (this.skip('Bang')) t.NonNull = true;
    return t;
  }

  operationType(): string {
    const tok = this.next();
    if (tok.value === 'query' || tok.value === 'mutation' || tok.value === 'subscription') return tok.value;
    this.unexpected(tok);
    return '';
  }

  // -------------------------------------------------------------------------
  // Queries

  queryDocument(): GqlQueryDocument {
    const ops: GqlOperationDefinition[] = [];
    const frags: GqlFragmentDefinition[] = [];
    while (this.peek().kind !== 'EOF') {
      if (this.err !== null) break;
      const t = this.peek();
      if (t.kind === 'Name' && (t.value === 'query' || t.value === 'mutation' || t.value === 'subscription')) ops.push(this.operationDefinition());
      else if (t.kind === 'Name' && t.value === 'fragment') frags.push(this.fragmentDefinition());
      else if (t.kind === 'BraceL') ops.push(this.operationDefinition());
      else this.unexpected();
    }
    return { Operations: ops.length > 0 ? ops : null, Fragments: frags.length > 0 ? frags : null };
  }

  operationDefinition(): GqlOperationDefinition {
    const pos = this.pos();
    if (this.peek().kind === 'BraceL') {
      return { Operation: 'query', Name: '', VariableDefinitions: null, Directives: null, SelectionSet: this.requiredSelectionSet(), pos };
    }
    const operation = this.operationType();
    const name = this.peek().kind === 'Name' ? this.next().value : '';
    const vars = this.variableDefinitions();
    const dirs = this.directives(false);
    return { Operation: operation, Name: name, VariableDefinitions: vars, Directives: dirs, SelectionSet: this.requiredSelectionSet(), pos };
  }

  variableDefinitions(): GqlVariableDefinition[] | null {
    const defs: GqlVariableDefinition[] = [];
    this.some('ParenL', 'ParenR', () => {
      const pos = this.pos();
      const variable = this.variable();
      this.expect('Colon');
      const type = this.typeReference();
      const def = this.skip('Equals') ? this.valueLiteral(true) : null;
      defs.push({ Variable: variable, Type: type, DefaultValue: def, Directives: this.directives(false), Used: false, pos });
    });
    return defs.length > 0 ? defs : null;
  }

  selectionSet(): GqlSelection[] | null {
    const sels: GqlSelection[] = [];
    this.some('BraceL', 'BraceR', () => sels.push(this.selection()));
    return sels.length > 0 ? sels : null;
  }

  requiredSelectionSet(): GqlSelection[] | null {
    if (this.peek().kind !== 'BraceL') {
      this.error(this.peek(), `Expected {, found ${kindText(this.peek().kind)}`);
      return null;
    }
    return this.selectionSet();
  }

  selection(): GqlSelection {
    if (this.peek().kind === 'Spread') return this.fragment();
    const pos = this.pos();
    const alias = this.name();
    const name = this.skip('Colon') ? this.name() : alias;
    const args = this.arguments(false);
    const dirs = this.directives(false);
    const sels = this.peek().kind === 'BraceL' ? this.selectionSet() : null;
    return { Alias: alias, Name: name, Arguments: args, Directives: dirs, SelectionSet: sels, pos };
  }

  fragment(): GqlSelection {
    this.expect('Spread');
    const peek = this.peek();
    if (peek.kind === 'Name' && peek.value !== 'on') {
      const pos = this.pos();
      const name = this.fragmentName();
      return { Name: name, Directives: this.directives(false), pos };
    }
    const pos = this.pos();
    let typeCondition = '';
    if (this.peek().value === 'on') {
      this.next();
      typeCondition = this.name();
    }
    const dirs = this.directives(false);
    return { TypeCondition: typeCondition, Directives: dirs, SelectionSet: this.requiredSelectionSet(), pos };
  }

  fragmentDefinition(): GqlFragmentDefinition {
    const pos = this.pos();
    this.expectKeyword('fragment');
    const name = this.fragmentName();
    const vars = this.variableDefinitions();
    this.expectKeyword('on');
    const typeCondition = this.name();
    const dirs = this.directives(false);
    return { Name: name, VariableDefinition: vars, TypeCondition: typeCondition, Directives: dirs, SelectionSet: this.requiredSelectionSet(), pos };
  }

  fragmentName(): string {
    if (this.peek().value === 'on') {
      this.unexpected();
      return '';
    }
    return this.name();
  }
}

/** gqlparser's `ParseQuery`; throws the first {@link GraphQLSyntaxError}. */
export function parseGraphQLQuery(input: string): GqlQueryDocument {
  const p = new Parser(input);
  const doc = p.queryDocument();
  if (p.err !== null) throw p.err;
  return doc;
}
