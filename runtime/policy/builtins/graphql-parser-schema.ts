/**
 * gqlparser's schema grammar (type system definitions and extensions) on top
 * of the query parser's state and shared productions, with the same accepted
 * language and first error.
 */
import type {
  DefinitionKind,
  GqlArgumentDefinition,
  GqlDefinition,
  GqlDirectiveDefinition,
  GqlEnumValueDefinition,
  GqlFieldDefinition,
  GqlOperationTypeDefinition,
  GqlSchemaDefinition,
  GqlSchemaDocument,
} from './graphql-ast.js';
import { emptyDefinition } from './graphql-ast.js';
import { Parser } from './graphql-parser.js';

const DIRECTIVE_LOCATIONS = new Set([
  'QUERY',
  'MUTATION',
  'SUBSCRIPTION',
  'FIELD',
  'FRAGMENT_DEFINITION',
  'FRAGMENT_SPREAD',
  'INLINE_FRAGMENT',
  'VARIABLE_DEFINITION',
  'SCHEMA',
  'SCALAR',
  'OBJECT',
  'FIELD_DEFINITION',
  'ARGUMENT_DEFINITION',
  'INTERFACE',
  'UNION',
  'ENUM',
  'ENUM_VALUE',
  'INPUT_OBJECT',
  'INPUT_FIELD_DEFINITION',
]);

class SchemaParser extends Parser {
  schemaDocument(): GqlSchemaDocument {
    const doc: GqlSchemaDocument = { Schema: null, SchemaExtension: null, Directives: null, Definitions: null, Extensions: null };
    const push = <K extends keyof GqlSchemaDocument>(k: K, v: NonNullable<GqlSchemaDocument[K]>[number]) => {
      (doc[k] ??= [] as never as NonNullable<GqlSchemaDocument[K]>).push(v as never);
    };
    while (this.peek().kind !== 'EOF') {
      if (this.err !== null) break;
      let description = '';
      if (this.peek().kind === 'BlockString' || this.peek().kind === 'String') description = this.next().value;
      if (this.peek().kind !== 'Name') {
        this.unexpected();
        break;
      }
      switch (this.peek().value) {
        case 'scalar':
        case 'type':
        case 'interface':
        case 'union':
        case 'enum':
        case 'input':
          push('Definitions', this.typeDefinition(description, false));
          break;
        case 'schema': {
          this.expectKeyword('schema');
          push('Schema', this.schemaDefinition(description, false));
          break;
        }
        case 'directive':
          push('Directives', this.directiveDefinition(description));
          break;
        case 'extend': {
          if (description !== '') this.unexpected(this.prev);
          this.expectKeyword('extend');
          if (this.peek().value === 'schema') {
            this.expectKeyword('schema');
            push('SchemaExtension', this.schemaDefinition('', true));
          } else if (['scalar', 'type', 'interface', 'union', 'enum', 'input'].includes(this.peek().value)) {
            push('Extensions', this.typeDefinition('', true));
          } else {
            this.unexpected();
          }
          break;
        }
        default:
          this.unexpected();
          break;
      }
    }
    return doc;
  }

  schemaDefinition(description: string, extension: boolean): GqlSchemaDefinition {
    const pos = this.pos();
    const dirs = this.directives(true);
    const ops: GqlOperationTypeDefinition[] = [];
    this.some('BraceL', 'BraceR', () => {
      const opPos = this.pos();
      const operation = this.operationType();
      this.expect('Colon');
      ops.push({ Operation: operation, Type: this.name(), pos: opPos });
    });
    if (extension && dirs === null && ops.length === 0) this.unexpected();
    return { Description: description, Directives: dirs, OperationTypes: ops.length > 0 ? ops : null, pos };
  }

  typeDefinition(description: string, extension: boolean): GqlDefinition {
    const keyword = this.next().value;
    const kinds: Record<string, DefinitionKind> = {
      scalar: 'SCALAR',
      type: 'OBJECT',
      interface: 'INTERFACE',
      union: 'UNION',
      enum: 'ENUM',
      input: 'INPUT_OBJECT',
    };
    const kind = kinds[keyword] as DefinitionKind;
    const pos = this.pos();
    const def: GqlDefinition = emptyDefinition({ Kind: kind, Description: description, Name: this.name(), pos });
    if (kind === 'OBJECT' || (kind === 'INTERFACE' && !extension)) def.Interfaces = this.implementsInterfaces();
    // gqlparser reads the directives of an input object extension as non-constant.
    def.Directives = this.directives(!(extension && kind === 'INPUT_OBJECT'));
    if (kind === 'OBJECT' || kind === 'INTERFACE') def.Fields = this.fieldsDefinition(false);
    else if (kind === 'INPUT_OBJECT') def.Fields = this.fieldsDefinition(true);
    else if (kind === 'UNION') def.Types = this.unionMembers();
    else if (kind === 'ENUM') def.EnumValues = this.enumValues();
    if (extension) {
      const empty =
        def.Directives === null &&
        (kind === 'OBJECT' ? def.Interfaces === null && def.Fields === null : true) &&
        (kind === 'INTERFACE' || kind === 'INPUT_OBJECT' ? def.Fields === null : true) &&
        (kind === 'UNION' ? def.Types === null : true) &&
        (kind === 'ENUM' ? def.EnumValues === null : true);
      if (empty) this.unexpected();
    }
    return def;
  }

  implementsInterfaces(): string[] | null {
    if (this.peek().value !== 'implements') return null;
    this.next();
    this.skip('Amp');
    const types = [this.name()];
    while (this.skip('Amp') && this.err === null) types.push(this.name());
    return types;
  }

  fieldsDefinition(input: boolean): GqlFieldDefinition[] | null {
    const defs: GqlFieldDefinition[] = [];
    this.some('BraceL', 'BraceR', () => {
      const description = this.description();
      const pos = this.pos();
      const name = this.name();
      const args = input ? null : this.argumentDefs();
      this.expect('Colon');
      const type = this.typeReference();
      const def = input && this.skip('Equals') ? this.valueLiteral(true) : null;
      defs.push({ Description: description, Name: name, Arguments: args, DefaultValue: def, Type: type, Directives: this.directives(true), pos });
    });
    return defs.length > 0 ? defs : null;
  }

  description(): string {
    const t = this.peek();
    return t.kind === 'BlockString' || t.kind === 'String' ? this.next().value : '';
  }

  argumentDefs(): GqlArgumentDefinition[] | null {
    const args: GqlArgumentDefinition[] = [];
    this.some('ParenL', 'ParenR', () => {
      const description = this.description();
      const pos = this.pos();
      const name = this.name();
      this.expect('Colon');
      const type = this.typeReference();
      const def = this.skip('Equals') ? this.valueLiteral(true) : null;
      args.push({ Description: description, Name: name, DefaultValue: def, Type: type, Directives: this.directives(true), pos });
    });
    return args.length > 0 ? args : null;
  }

  unionMembers(): string[] | null {
    if (!this.skip('Equals')) return null;
    this.skip('Pipe');
    const types = [this.name()];
    while (this.skip('Pipe') && this.err === null) types.push(this.name());
    return types;
  }

  enumValues(): GqlEnumValueDefinition[] | null {
    const values: GqlEnumValueDefinition[] = [];
    this.some('BraceL', 'BraceR', () => {
      const description = this.description();
      const pos = this.pos();
      const name = this.name();
      values.push({ Description: description, Name: name, Directives: this.directives(true), pos });
    });
    return values.length > 0 ? values : null;
  }

  directiveDefinition(description: string): GqlDirectiveDefinition {
    this.expectKeyword('directive');
    this.expect('At');
    const pos = this.pos();
    const name = this.name();
    const args = this.argumentDefs();
    let repeatable = false;
    const peek = this.peek();
    if (peek.kind === 'Name' && peek.value === 'repeatable') {
      repeatable = true;
      this.skip('Name');
    }
    this.expectKeyword('on');
    this.skip('Pipe');
    const locations = [this.directiveLocation()];
    while (this.skip('Pipe') && this.err === null) locations.push(this.directiveLocation());
    return { Description: description, Name: name, Arguments: args, Locations: locations, IsRepeatable: repeatable, pos };
  }

  directiveLocation(): string {
    const tok = this.expect('Name');
    if (DIRECTIVE_LOCATIONS.has(tok.value)) return tok.value;
    this.unexpected(tok);
    return '';
  }
}

/** gqlparser's `ParseSchema` (without the built-in prelude); throws the first {@link GraphQLSyntaxError}. */
export function parseGraphQLSchema(input: string, opts: { builtIn?: boolean } = {}): GqlSchemaDocument {
  const p = new SchemaParser(input);
  const doc = p.schemaDocument();
  if (p.err !== null) throw p.err;
  if (opts.builtIn === true) {
    for (const d of [...(doc.Definitions ?? []), ...(doc.Extensions ?? [])]) d.BuiltIn = true;
  }
  return doc;
}
