/**
 * GraphQL ASTs given to the graphql.* builtins as objects, read as OPA reads
 * them: through Go's `encoding/json` into gqlparser's structs. So keys match
 * field names exactly or, for plain structs, case-insensitively; unknown keys
 * are ignored; a value of the wrong JSON type is an error; and every entry
 * of a selection set becomes a field (gqlparser tries `Field` first, and any
 * object decodes as one).
 */
import type {
  DefinitionKind,
  GqlArgument,
  GqlArgumentDefinition,
  GqlChildValue,
  GqlDefinition,
  GqlDirective,
  GqlDirectiveDefinition,
  GqlEnumValueDefinition,
  GqlField,
  GqlFieldDefinition,
  GqlFragmentDefinition,
  GqlOperationDefinition,
  GqlOperationTypeDefinition,
  GqlQueryDocument,
  GqlSchemaDefinition,
  GqlSchemaDocument,
  GqlType,
  GqlValue,
  GqlVariableDefinition,
  ValueKind,
} from './graphql-ast.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

export class GraphQLDecodeError extends Error {}

/** Go's field lookup: the exact key, else (for plain structs) a case-insensitive match. */
function field(o: Obj, name: string, exact: boolean): Json | undefined {
  if (Object.hasOwn(o, name)) return o[name];
  if (exact) return undefined;
  const lower = name.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

function obj(v: Json | undefined, what: string): Obj | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw new GraphQLDecodeError(`cannot unmarshal into ${what}`);
  return v;
}

function list<T>(v: Json | undefined, what: string, each: (x: Json) => T | null): T[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw new GraphQLDecodeError(`cannot unmarshal into ${what}`);
  const out: T[] = [];
  for (const x of v) {
    const d = each(x);
    if (d !== null) out.push(d);
  }
  return out;
}

function str(v: Json | undefined, what: string): string {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new GraphQLDecodeError(`cannot unmarshal into ${what} of type string`);
  return v;
}

function bool(v: Json | undefined, what: string): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw new GraphQLDecodeError(`cannot unmarshal into ${what} of type bool`);
  return v;
}

function int(v: Json | undefined, what: string): number {
  if (v === undefined || v === null) return 0;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new GraphQLDecodeError(`cannot unmarshal into ${what} of type int`);
  return v;
}

function strings(v: Json | undefined, what: string): string[] | null {
  return list(v, what, (x) => str(x, what));
}

function typ(v: Json | undefined): GqlType | null {
  const o = obj(v, 'Type');
  if (o === null) return null;
  return {
    NamedType: str(field(o, 'NamedType', false), 'NamedType'),
    Elem: typ(field(o, 'Elem', false)),
    NonNull: bool(field(o, 'NonNull', false), 'NonNull'),
  };
}

function value(v: Json | undefined): GqlValue | null {
  const o = obj(v, 'Value');
  if (o === null) return null;
  return {
    Raw: str(field(o, 'Raw', false), 'Raw'),
    Children: list(field(o, 'Children', false), 'Children', (x): GqlChildValue | null => {
      const c = obj(x, 'ChildValue');
      return c === null ? null : { Name: str(field(c, 'Name', false), 'Name'), Value: value(field(c, 'Value', false)) };
    }),
    Kind: int(field(o, 'Kind', false), 'Kind') as ValueKind,
    ExpectedTypeHasDefault: bool(field(o, 'ExpectedTypeHasDefault', false), 'ExpectedTypeHasDefault'),
  };
}

function args(v: Json | undefined): GqlArgument[] | null {
  return list(v, 'Arguments', (x) => {
    const o = obj(x, 'Argument');
    return o === null ? null : { Name: str(field(o, 'Name', false), 'Name'), Value: value(field(o, 'Value', false)) };
  });
}

function directives(v: Json | undefined): GqlDirective[] | null {
  return list(v, 'Directives', (x) => {
    const o = obj(x, 'Directive');
    if (o === null) return null;
    return {
      Name: str(field(o, 'Name', false), 'Name'),
      Arguments: args(field(o, 'Arguments', false)),
      Location: str(field(o, 'Location', false), 'Location'),
    };
  });
}

function selections(v: Json | undefined): GqlField[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) throw new GraphQLDecodeError('cannot unmarshal into SelectionSet');
  const out: GqlField[] = [];
  for (const x of v) {
    if (x === null || typeof x !== 'object' || Array.isArray(x)) continue;
    out.push({
      Alias: str(field(x, 'Alias', true), 'Alias'),
      Name: str(field(x, 'Name', true), 'Name'),
      Arguments: args(field(x, 'Arguments', true)),
      Directives: directives(field(x, 'Directives', true)),
      SelectionSet: selections(field(x, 'SelectionSet', true)),
    });
  }
  return out;
}

function variableDefinitions(v: Json | undefined): GqlVariableDefinition[] | null {
  return list(v, 'VariableDefinitions', (x) => {
    const o = obj(x, 'VariableDefinition');
    if (o === null) return null;
    return {
      Variable: str(field(o, 'Variable', false), 'Variable'),
      Type: typ(field(o, 'Type', false)),
      DefaultValue: value(field(o, 'DefaultValue', false)),
      Directives: directives(field(o, 'Directives', false)),
      Used: bool(field(o, 'Used', false), 'Used'),
    };
  });
}

/** A query document object as gqlparser's `QueryDocument`. */
export function decodeQueryDocument(v: Json): GqlQueryDocument {
  const o = obj(v, 'QueryDocument') ?? {};
  return {
    Operations: list(field(o, 'Operations', false), 'Operations', (x): GqlOperationDefinition | null => {
      const op = obj(x, 'OperationDefinition');
      if (op === null) return null;
      return {
        Operation: str(field(op, 'Operation', true), 'Operation'),
        Name: str(field(op, 'Name', true), 'Name'),
        VariableDefinitions: variableDefinitions(field(op, 'VariableDefinitions', true)),
        Directives: directives(field(op, 'Directives', true)),
        SelectionSet: selections(field(op, 'SelectionSet', true)),
      };
    }),
    Fragments: list(field(o, 'Fragments', false), 'Fragments', (x): GqlFragmentDefinition | null => {
      const f = obj(x, 'FragmentDefinition');
      if (f === null) return null;
      return {
        Name: str(field(f, 'Name', true), 'Name'),
        VariableDefinition: variableDefinitions(field(f, 'VariableDefinition', true)),
        TypeCondition: str(field(f, 'TypeCondition', true), 'TypeCondition'),
        Directives: directives(field(f, 'Directives', true)),
        SelectionSet: selections(field(f, 'SelectionSet', true)),
      };
    }),
  };
}

function argumentDefinitions(v: Json | undefined): GqlArgumentDefinition[] | null {
  return list(v, 'Arguments', (x) => {
    const o = obj(x, 'ArgumentDefinition');
    if (o === null) return null;
    return {
      Description: str(field(o, 'Description', false), 'Description'),
      Name: str(field(o, 'Name', false), 'Name'),
      DefaultValue: value(field(o, 'DefaultValue', false)),
      Type: typ(field(o, 'Type', false)),
      Directives: directives(field(o, 'Directives', false)),
    };
  });
}

function definitions(v: Json | undefined, what: string): GqlDefinition[] | null {
  return list(v, what, (x) => {
    const o = obj(x, 'Definition');
    if (o === null) return null;
    return {
      Kind: str(field(o, 'Kind', false), 'Kind') as DefinitionKind,
      Description: str(field(o, 'Description', false), 'Description'),
      Name: str(field(o, 'Name', false), 'Name'),
      Directives: directives(field(o, 'Directives', false)),
      Interfaces: strings(field(o, 'Interfaces', false), 'Interfaces'),
      Fields: list(field(o, 'Fields', false), 'Fields', (y): GqlFieldDefinition | null => {
        const f = obj(y, 'FieldDefinition');
        if (f === null) return null;
        return {
          Description: str(field(f, 'Description', false), 'Description'),
          Name: str(field(f, 'Name', false), 'Name'),
          Arguments: argumentDefinitions(field(f, 'Arguments', false)),
          DefaultValue: value(field(f, 'DefaultValue', false)),
          Type: typ(field(f, 'Type', false)),
          Directives: directives(field(f, 'Directives', false)),
        };
      }),
      Types: strings(field(o, 'Types', false), 'Types'),
      EnumValues: list(field(o, 'EnumValues', false), 'EnumValues', (y): GqlEnumValueDefinition | null => {
        const e = obj(y, 'EnumValueDefinition');
        if (e === null) return null;
        return {
          Description: str(field(e, 'Description', false), 'Description'),
          Name: str(field(e, 'Name', false), 'Name'),
          Directives: directives(field(e, 'Directives', false)),
        };
      }),
      BuiltIn: bool(field(o, 'BuiltIn', false), 'BuiltIn'),
    };
  });
}

function schemaDefinitions(v: Json | undefined, what: string): GqlSchemaDefinition[] | null {
  return list(v, what, (x) => {
    const o = obj(x, 'SchemaDefinition');
    if (o === null) return null;
    return {
      Description: str(field(o, 'Description', false), 'Description'),
      Directives: directives(field(o, 'Directives', false)),
      OperationTypes: list(field(o, 'OperationTypes', false), 'OperationTypes', (y): GqlOperationTypeDefinition | null => {
        const t = obj(y, 'OperationTypeDefinition');
        return t === null ? null : { Operation: str(field(t, 'Operation', false), 'Operation'), Type: str(field(t, 'Type', false), 'Type') };
      }),
    };
  });
}

/** A schema document object as gqlparser's `SchemaDocument`. */
export function decodeSchemaDocument(v: Json): GqlSchemaDocument {
  const o = obj(v, 'SchemaDocument') ?? {};
  return {
    Schema: schemaDefinitions(field(o, 'Schema', false), 'Schema'),
    SchemaExtension: schemaDefinitions(field(o, 'SchemaExtension', false), 'SchemaExtension'),
    Directives: list(field(o, 'Directives', false), 'Directives', (x): GqlDirectiveDefinition | null => {
      const d = obj(x, 'DirectiveDefinition');
      if (d === null) return null;
      return {
        Description: str(field(d, 'Description', false), 'Description'),
        Name: str(field(d, 'Name', false), 'Name'),
        Arguments: argumentDefinitions(field(d, 'Arguments', false)),
        Locations: strings(field(d, 'Locations', false), 'Locations'),
        IsRepeatable: bool(field(d, 'IsRepeatable', false), 'IsRepeatable'),
      };
    }),
    Definitions: definitions(field(o, 'Definitions', false), 'Definitions'),
    Extensions: definitions(field(o, 'Extensions', false), 'Extensions'),
  };
}
