/**
 * The GraphQL AST of gqlparser, field for field: OPA hands these Go structs to
 * policies as JSON objects (Go field names, `null`s and empty lists pruned), so
 * the same names and shapes are kept here. Fields that only gqlparser's
 * validator fills in (`Definition`, `ObjectDefinition`, ...) are left out:
 * they are always empty in what OPA returns. `line`/`column` are positions for
 * error messages; they are not part of the output.
 */

export type ValueKind = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9;
export const VALUE_KIND = {
  Variable: 0,
  IntValue: 1,
  FloatValue: 2,
  StringValue: 3,
  BlockValue: 4,
  BooleanValue: 5,
  NullValue: 6,
  EnumValue: 7,
  ListValue: 8,
  ObjectValue: 9,
} as const;

export interface Pos {
  line: number;
  column: number;
}

export interface GqlType {
  NamedType: string;
  Elem: GqlType | null;
  NonNull: boolean;
  pos?: Pos;
}

export interface GqlValue {
  Raw: string;
  Children: GqlChildValue[] | null;
  Kind: ValueKind;
  ExpectedTypeHasDefault: boolean;
  pos?: Pos;
}

export interface GqlChildValue {
  Name: string;
  Value: GqlValue | null;
  /** An object field's name (list elements have none), where validation errors about the field point. */
  pos?: Pos;
}

export interface GqlArgument {
  Name: string;
  Value: GqlValue | null;
  pos?: Pos;
}

export interface GqlDirective {
  Name: string;
  Arguments: GqlArgument[] | null;
  Location: string;
  pos?: Pos;
}

export interface GqlField {
  Alias: string;
  Name: string;
  Arguments: GqlArgument[] | null;
  Directives: GqlDirective[] | null;
  SelectionSet: GqlSelection[] | null;
  pos?: Pos;
}

export interface GqlFragmentSpread {
  Name: string;
  Directives: GqlDirective[] | null;
  pos?: Pos;
}

export interface GqlInlineFragment {
  TypeCondition: string;
  Directives: GqlDirective[] | null;
  SelectionSet: GqlSelection[] | null;
  pos?: Pos;
}

export type GqlSelection = GqlField | GqlFragmentSpread | GqlInlineFragment;

export interface GqlVariableDefinition {
  Variable: string;
  Type: GqlType | null;
  DefaultValue: GqlValue | null;
  Directives: GqlDirective[] | null;
  Used: boolean;
  pos?: Pos;
}

export interface GqlOperationDefinition {
  Operation: string;
  Name: string;
  VariableDefinitions: GqlVariableDefinition[] | null;
  Directives: GqlDirective[] | null;
  SelectionSet: GqlSelection[] | null;
  pos?: Pos;
}

export interface GqlFragmentDefinition {
  Name: string;
  VariableDefinition: GqlVariableDefinition[] | null;
  TypeCondition: string;
  Directives: GqlDirective[] | null;
  SelectionSet: GqlSelection[] | null;
  pos?: Pos;
}

export interface GqlQueryDocument {
  Operations: GqlOperationDefinition[] | null;
  Fragments: GqlFragmentDefinition[] | null;
}

export interface GqlArgumentDefinition {
  Description: string;
  Name: string;
  DefaultValue: GqlValue | null;
  Type: GqlType | null;
  Directives: GqlDirective[] | null;
  pos?: Pos;
}

export interface GqlFieldDefinition extends GqlArgumentDefinition {
  Arguments: GqlArgumentDefinition[] | null;
}

export interface GqlEnumValueDefinition {
  Description: string;
  Name: string;
  Directives: GqlDirective[] | null;
  pos?: Pos;
}

export type DefinitionKind = 'SCALAR' | 'OBJECT' | 'INTERFACE' | 'UNION' | 'ENUM' | 'INPUT_OBJECT';

export interface GqlDefinition {
  Kind: DefinitionKind;
  Description: string;
  Name: string;
  Directives: GqlDirective[] | null;
  Interfaces: string[] | null;
  Fields: GqlFieldDefinition[] | null;
  Types: string[] | null;
  EnumValues: GqlEnumValueDefinition[] | null;
  BuiltIn: boolean;
  pos?: Pos;
}

/** A type definition with nothing but its kind, name, description and position (the parser and the extension merge fill it). */
export function emptyDefinition(options: { Kind: DefinitionKind; Name: string; Description: string; pos?: Pos }): GqlDefinition {
  return {
    Kind: options.Kind,
    Description: options.Description,
    Name: options.Name,
    Directives: null,
    Interfaces: null,
    Fields: null,
    Types: null,
    EnumValues: null,
    BuiltIn: false,
    ...(options.pos === undefined ? {} : { pos: options.pos }),
  };
}

export interface GqlDirectiveDefinition {
  Description: string;
  Name: string;
  Arguments: GqlArgumentDefinition[] | null;
  Locations: string[] | null;
  IsRepeatable: boolean;
  pos?: Pos;
}

export interface GqlOperationTypeDefinition {
  Operation: string;
  Type: string;
  pos?: Pos;
}

export interface GqlSchemaDefinition {
  Description: string;
  Directives: GqlDirective[] | null;
  OperationTypes: GqlOperationTypeDefinition[] | null;
  pos?: Pos;
}

export interface GqlSchemaDocument {
  Schema: GqlSchemaDefinition[] | null;
  SchemaExtension: GqlSchemaDefinition[] | null;
  Directives: GqlDirectiveDefinition[] | null;
  Definitions: GqlDefinition[] | null;
  Extensions: GqlDefinition[] | null;
}

/** `Name`, `[Name]!`: gqlparser's `Type.String()`. */
export function typeString(t: GqlType): string {
  const nn = t.NonNull ? '!' : '';
  if (t.NamedType !== '') return t.NamedType + nn;
  return `[${t.Elem === null ? '' : typeString(t.Elem)}]${nn}`;
}

/** The innermost named type. */
export function typeName(t: GqlType): string {
  if (t.NamedType !== '' || t.Elem === null) return t.NamedType;
  return typeName(t.Elem);
}

export function isSpread(s: GqlSelection): s is GqlFragmentSpread {
  return !('SelectionSet' in s);
}

export function isField(s: GqlSelection): s is GqlField {
  return 'Alias' in s;
}

export function isInlineFragment(s: GqlSelection): s is GqlInlineFragment {
  return 'TypeCondition' in s;
}
