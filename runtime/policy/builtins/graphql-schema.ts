/**
 * Schema loading as gqlparser's `ValidateSchemaDocument` does it after OPA
 * merges the built-in prelude into the document: extensions are applied
 * (creating the type when it does not exist), root types resolved, and the
 * same checks run in the same order (types by name, then directives). The
 * first error ends the load, as there. OPA v1.20.2's gqlparser does not yet
 * refuse input objects that contain themselves through non-null fields, so
 * neither does this.
 */
import type {
  DefinitionKind,
  GqlArgumentDefinition,
  GqlDefinition,
  GqlDirective,
  GqlDirectiveDefinition,
  GqlFieldDefinition,
  GqlSchemaDocument,
  GqlType,
  Pos,
} from './graphql-ast.js';
import { emptyDefinition, typeName, typeString, VALUE_KIND } from './graphql-ast.js';
import { GraphQLSyntaxError } from './graphql-lexer.js';
import { parseGraphQLSchema } from './graphql-parser-schema.js';

/** The types and directives every schema has (the GraphQL specification's built-ins and introspection types). */
const PRELUDE = `
scalar Int
scalar Float
scalar String
scalar Boolean
scalar ID
directive @defer(if: Boolean = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @include(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @skip(if: Boolean!) on FIELD | FRAGMENT_SPREAD | INLINE_FRAGMENT
directive @deprecated(reason: String = "No longer supported") on FIELD_DEFINITION | ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION | ENUM_VALUE
directive @specifiedBy(url: String!) on SCALAR
directive @oneOf on INPUT_OBJECT
type __Schema { description: String types: [__Type!]! queryType: __Type! mutationType: __Type subscriptionType: __Type directives: [__Directive!]! }
type __Type { kind: __TypeKind! name: String description: String specifiedByURL: String
  fields(includeDeprecated: Boolean = false): [__Field!] interfaces: [__Type!] possibleTypes: [__Type!]
  enumValues(includeDeprecated: Boolean = false): [__EnumValue!] inputFields(includeDeprecated: Boolean = false): [__InputValue!]
  ofType: __Type isOneOf: Boolean }
enum __TypeKind { SCALAR OBJECT INTERFACE UNION ENUM INPUT_OBJECT LIST NON_NULL }
type __Field { name: String! description: String args(includeDeprecated: Boolean = false): [__InputValue!]! type: __Type! isDeprecated: Boolean! deprecationReason: String }
type __InputValue { name: String! description: String type: __Type! defaultValue: String isDeprecated: Boolean! deprecationReason: String }
type __EnumValue { name: String! description: String isDeprecated: Boolean! deprecationReason: String }
type __Directive { name: String! description: String isRepeatable: Boolean! locations: [__DirectiveLocation!]! args(includeDeprecated: Boolean = false): [__InputValue!]! }
enum __DirectiveLocation { QUERY MUTATION SUBSCRIPTION FIELD FRAGMENT_DEFINITION FRAGMENT_SPREAD INLINE_FRAGMENT VARIABLE_DEFINITION SCHEMA SCALAR OBJECT FIELD_DEFINITION ARGUMENT_DEFINITION INTERFACE UNION ENUM ENUM_VALUE INPUT_OBJECT INPUT_FIELD_DEFINITION }
`;

/** Names of the prelude's types and directives (not printed when handing the schema on). */
export const PRELUDE_TYPES = new Set([
  'Int',
  'Float',
  'String',
  'Boolean',
  'ID',
  '__Schema',
  '__Type',
  '__TypeKind',
  '__Field',
  '__InputValue',
  '__EnumValue',
  '__Directive',
  '__DirectiveLocation',
]);

const namedType = (name: string, nonNull: boolean): GqlType => ({ NamedType: name, Elem: null, NonNull: nonNull });
const fieldDefinition = (name: string, type: GqlType, args: GqlArgumentDefinition[] | null): GqlFieldDefinition => ({
  Description: '',
  Name: name,
  DefaultValue: null,
  Type: type,
  Directives: null,
  Arguments: args,
});

/** `__schema: __Schema!` and `__type(name: String!): __Type`, as gqlparser adds them to the query root. */
const INTROSPECTION_FIELDS: readonly GqlFieldDefinition[] = [
  fieldDefinition('__schema', namedType('__Schema', true), null),
  fieldDefinition('__type', namedType('__Type', false), [
    { Description: '', Name: 'name', DefaultValue: null, Type: namedType('String', true), Directives: null },
  ]),
];

/** A loaded schema: every type after extensions, directives and root types. */
export interface GqlSchema {
  types: Map<string, GqlDefinition>;
  directives: Map<string, GqlDirectiveDefinition>;
  possibleTypes: Map<string, GqlDefinition[]>;
  query: GqlDefinition | null;
  mutation: GqlDefinition | null;
  subscription: GqlDefinition | null;
  /** The prelude's directive definitions (graphql-js has most of them built in). */
  prelude: Set<GqlDirectiveDefinition>;
}

/** A schema that does not load, with gqlparser's message. */
export class GraphQLSchemaError extends GraphQLSyntaxError {}

function fail(pos: Pos | undefined, message: string): never {
  throw new GraphQLSchemaError(message, pos?.line ?? 0, pos?.column ?? 0);
}

const quote = (s: string) => JSON.stringify(s);
const kindList = (...kinds: DefinitionKind[]) => kinds.join(', ');
const sortedKeys = <T>(m: Map<string, T>) => [...m.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/** Copies a definition's lists so extending it never changes the caller's document. */
function copyDefinition(d: GqlDefinition): GqlDefinition {
  return {
    ...d,
    Directives: d.Directives && [...d.Directives],
    Interfaces: d.Interfaces && [...d.Interfaces],
    Fields: d.Fields && [...d.Fields],
    Types: d.Types && [...d.Types],
    EnumValues: d.EnumValues && [...d.EnumValues],
  };
}

let preludeCache: GqlSchemaDocument | null = null;

/** Loads `doc` merged after the prelude; throws {@link GraphQLSchemaError} when gqlparser would refuse it. */
export function loadGraphQLSchema(doc: GqlSchemaDocument): GqlSchema {
  preludeCache ??= parseGraphQLSchema(PRELUDE, { builtIn: true });
  const prelude = preludeCache;
  const cat = <T>(a: T[] | null, b: T[] | null): T[] => [...(a ?? []), ...(b ?? [])];
  const definitions = cat(prelude.Definitions, doc.Definitions).map(copyDefinition);
  const extensions = cat(prelude.Extensions, doc.Extensions);
  const schemaDefs = cat(prelude.Schema, doc.Schema);
  const schemaExts = cat(prelude.SchemaExtension, doc.SchemaExtension);
  const directiveDefs = cat(prelude.Directives, doc.Directives);

  const schema: GqlSchema = {
    types: new Map(),
    directives: new Map(),
    possibleTypes: new Map(),
    query: null,
    mutation: null,
    subscription: null,
    prelude: new Set(prelude.Directives),
  };
  for (const def of definitions) {
    if (schema.types.has(def.Name)) fail(def.pos, `Cannot redeclare type ${def.Name}.`);
    schema.types.set(def.Name, def);
  }
  const defs = [...definitions];
  for (const ext of extensions) {
    let def = schema.types.get(ext.Name);
    if (def === undefined) {
      def = emptyDefinition({ Kind: ext.Kind, Description: '', Name: ext.Name, ...(ext.pos === undefined ? {} : { pos: ext.pos }) });
      schema.types.set(ext.Name, def);
      defs.push(def);
    }
    if (def.Kind !== ext.Kind) fail(ext.pos, `Cannot extend type ${ext.Name} because the base type is a ${def.Kind}, not ${ext.Kind}.`);
    const add = <T>(a: T[] | null, b: T[] | null): T[] | null => (b === null || b.length === 0 ? a : [...(a ?? []), ...b]);
    def.Directives = add(def.Directives, ext.Directives);
    def.Interfaces = add(def.Interfaces, ext.Interfaces);
    def.Fields = add(def.Fields, ext.Fields);
    def.Types = add(def.Types, ext.Types);
    def.EnumValues = add(def.EnumValues, ext.EnumValues);
  }
  const addPossible = (name: string, def: GqlDefinition | undefined) => {
    const list = schema.possibleTypes.get(name) ?? [];
    if (def !== undefined) list.push(def);
    schema.possibleTypes.set(name, list);
  };
  for (const def of defs) {
    if (def.Kind === 'UNION') for (const t of def.Types ?? []) addPossible(def.Name, schema.types.get(t));
    else if (def.Kind === 'OBJECT' || def.Kind === 'INPUT_OBJECT') {
      for (const i of def.Interfaces ?? []) addPossible(i, def);
      addPossible(def.Name, def);
    } else if (def.Kind === 'INTERFACE') for (const i of def.Interfaces ?? []) addPossible(i, def);
  }
  for (const dir of directiveDefs) {
    if (schema.directives.has(dir.Name) && !['include', 'skip', 'deprecated', 'specifiedBy', 'defer', 'oneOf'].includes(dir.Name)) {
      fail(dir.pos, `Cannot redeclare directive ${dir.Name}.`);
    }
    schema.directives.set(dir.Name, dir);
  }
  if (schemaDefs.length > 1) fail(schemaDefs[1]?.pos, 'Cannot have multiple schema entry points, consider schema extensions instead.');
  for (const sd of [...schemaDefs, ...schemaExts]) {
    for (const entry of sd.OperationTypes ?? []) {
      const def = schema.types.get(entry.Type);
      if (def === undefined) fail(entry.pos, `Schema root ${entry.Operation} refers to a type ${entry.Type} that does not exist.`);
      if (entry.Operation === 'query') schema.query = def;
      else if (entry.Operation === 'mutation') schema.mutation = def;
      else if (entry.Operation === 'subscription') schema.subscription = def;
    }
    validateDirectives(schema, sd.Directives, 'SCHEMA', null, true);
  }
  for (const name of sortedKeys(schema.types)) validateDefinition(schema, schema.types.get(name) as GqlDefinition);
  for (const name of sortedKeys(schema.directives)) {
    const dir = schema.directives.get(name) as GqlDirectiveDefinition;
    validateName(dir.pos, dir.Name);
    validateArgs(schema, dir.Arguments, dir);
  }
  if (schemaDefs.length === 0) {
    schema.query ??= schema.types.get('Query') ?? null;
    schema.mutation ??= schema.types.get('Mutation') ?? null;
    schema.subscription ??= schema.types.get('Subscription') ?? null;
  }
  // gqlparser answers introspection through two fields it adds to the query root (after the checks above, so they never clash).
  if (schema.query !== null) schema.query.Fields = [...(schema.query.Fields ?? []), ...INTROSPECTION_FIELDS];
  return schema;
}

function validateName(pos: Pos | undefined, name: string): void {
  if (name.startsWith('__')) fail(pos, `Name "${name}" must not begin with "__", which is reserved by GraphQL introspection.`);
}

function validateTypeRef(schema: GqlSchema, t: GqlType | null): void {
  const name = t === null ? '' : typeName(t);
  if (!schema.types.has(name)) fail(t?.pos, `Undefined type ${name}.`);
}

const isInputKind = (k: DefinitionKind) => k === 'SCALAR' || k === 'ENUM' || k === 'INPUT_OBJECT';

function validateArgs(schema: GqlSchema, args: GqlArgumentDefinition[] | null, current: GqlDirectiveDefinition | null): void {
  for (const arg of args ?? []) {
    validateName(arg.pos, arg.Name);
    validateTypeRef(schema, arg.Type);
    const def = schema.types.get(typeName(arg.Type as GqlType)) as GqlDefinition;
    if (!isInputKind(def.Kind)) {
      fail(arg.pos, `cannot use ${typeString(arg.Type as GqlType)} as argument ${arg.Name} because ${def.Kind} is not a valid input type`);
    }
    validateDirectives(schema, arg.Directives, 'ARGUMENT_DEFINITION', current, true);
  }
}

function validateDirectives(schema: GqlSchema, dirs: GqlDirective[] | null, location: string, current: GqlDirectiveDefinition | null, single: boolean): void {
  const seen = new Set<string>();
  for (const dir of dirs ?? []) {
    validateName(dir.pos, dir.Name);
    if (current !== null && dir.Name === current.Name) fail(dir.pos, `Directive ${current.Name} cannot refer to itself.`);
    const def = schema.directives.get(dir.Name);
    if (def === undefined) fail(dir.pos, `Undefined directive ${dir.Name}.`);
    if (single) {
      if (seen.has(dir.Name) && !def.IsRepeatable) fail(dir.pos, `The directive ${dir.Name} can only be used once at this location.`);
      seen.add(dir.Name);
    }
    if (!(def.Locations ?? []).includes(location)) fail(dir.pos, `Directive ${dir.Name} is not applicable on ${location}.`);
    for (const arg of dir.Arguments ?? []) {
      if (!(def.Arguments ?? []).some((a) => a.Name === arg.Name)) fail(arg.pos, `Undefined argument ${arg.Name} for directive ${dir.Name}.`);
    }
    for (const want of def.Arguments ?? []) {
      if (want.Type?.NonNull === true && want.DefaultValue === null) {
        const arg = (dir.Arguments ?? []).find((a) => a.Name === want.Name);
        if (arg === undefined || arg.Value?.Kind === VALUE_KIND.NullValue) fail(dir.pos, `Argument ${want.Name} for directive ${dir.Name} cannot be null.`);
      }
    }
  }
}

function validateDefinition(schema: GqlSchema, def: GqlDefinition): void {
  const fields = def.Fields ?? [];
  for (const field of fields) {
    validateName(field.pos, field.Name);
    validateTypeRef(schema, field.Type);
    validateArgs(schema, field.Arguments, null);
    validateDirectives(schema, field.Directives, def.Kind === 'INPUT_OBJECT' ? 'INPUT_FIELD_DEFINITION' : 'FIELD_DEFINITION', null, true);
  }
  for (const t of def.Types ?? []) {
    const member = schema.types.get(t);
    if (member === undefined) fail(def.pos, `Undefined type ${quote(t)}.`);
    if (member.Kind !== 'OBJECT') fail(def.pos, `${def.Kind} type ${quote(t)} must be ${kindList('OBJECT')}.`);
  }
  for (const i of def.Interfaces ?? []) validateImplements(schema, def, i);
  const fieldType = (f: GqlFieldDefinition) => schema.types.get(typeName(f.Type as GqlType));
  switch (def.Kind) {
    case 'OBJECT':
    case 'INTERFACE':
      if (fields.length === 0) fail(def.pos, `${def.Kind} ${def.Name}: must define one or more fields.`);
      for (const f of fields) {
        const t = fieldType(f);
        if (t !== undefined && t.Kind === 'INPUT_OBJECT') {
          fail(f.pos, `${def.Kind} ${def.Name}: field must be one of ${kindList('SCALAR', 'OBJECT', 'INTERFACE', 'UNION', 'ENUM')}.`);
        }
      }
      break;
    case 'ENUM':
      if ((def.EnumValues ?? []).length === 0) fail(def.pos, `${def.Kind} ${def.Name}: must define one or more unique enum values.`);
      for (const v of def.EnumValues ?? []) {
        if (v.Name === 'true' || v.Name === 'false' || v.Name === 'null') fail(def.pos, `${def.Kind} ${def.Name}: non-enum value ${v.Name}.`);
        validateDirectives(schema, v.Directives, 'ENUM_VALUE', null, true);
      }
      break;
    case 'INPUT_OBJECT':
      if (fields.length === 0) fail(def.pos, `${def.Kind} ${def.Name}: must define one or more input fields.`);
      for (const f of fields) {
        const t = fieldType(f);
        if (t !== undefined && !isInputKind(t.Kind)) fail(f.pos, `${t.Kind} ${f.Name}: field must be one of ${kindList('SCALAR', 'ENUM', 'INPUT_OBJECT')}.`);
      }
      break;
    default:
      break;
  }
  for (let i = 0; i < fields.length; i++) {
    for (const f2 of fields.slice(i + 1)) {
      if ((fields[i] as GqlFieldDefinition).Name === f2.Name) fail(f2.pos, `Field ${def.Name}.${f2.Name} can only be defined once.`);
    }
  }
  const values = def.EnumValues ?? [];
  for (let i = 0; i < values.length; i++) {
    for (const v2 of values.slice(i + 1)) {
      if (values[i]?.Name === v2.Name) fail(v2.pos, `Enum value ${def.Name}.${v2.Name} can only be defined once.`);
    }
  }
  const types = def.Types ?? [];
  for (let i = 0; i < types.length; i++) {
    if (types.indexOf(types[i] as string, i + 1) !== -1) fail(def.pos, `Union type ${def.Name} can only include type ${types[i]} once.`);
  }
  if (!def.BuiltIn) validateName(def.pos, def.Name);
  validateDirectives(schema, def.Directives, def.Kind, null, false);
}

function isCovariant(schema: GqlSchema, required: GqlType | null, actual: GqlType | null): boolean {
  if (required === null || actual === null) return required === actual;
  if (required.NonNull && !actual.NonNull) return false;
  if (required.NamedType !== '') {
    if (required.NamedType === actual.NamedType) return true;
    return (schema.possibleTypes.get(required.NamedType) ?? []).some((t) => t.Name === actual.NamedType);
  }
  if (required.Elem !== null && actual.Elem === null) return false;
  return isCovariant(schema, required.Elem, actual.Elem);
}

function isCompatible(a: GqlType | null, b: GqlType | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.NamedType !== b.NamedType) return false;
  if (a.Elem !== null && b.Elem === null) return false;
  if (a.Elem !== null && !isCompatible(a.Elem, b.Elem)) return false;
  if (b.NonNull) return a.NonNull;
  return true;
}

function validateImplements(schema: GqlSchema, def: GqlDefinition, name: string): void {
  const intf = schema.types.get(name);
  if (intf === undefined) fail(def.pos, `Undefined type ${quote(name)}.`);
  if (intf.Kind !== 'INTERFACE') fail(def.pos, `${quote(name)} is a non interface type ${intf.Kind}.`);
  for (const required of intf.Fields ?? []) {
    const found = (def.Fields ?? []).find((f) => f.Name === required.Name);
    if (found === undefined) fail(def.pos, `For ${def.Name} to implement ${intf.Name} it must have a field called ${required.Name}.`);
    if (!isCovariant(schema, required.Type, found.Type)) {
      fail(found.pos, `For ${def.Name} to implement ${intf.Name} the field ${required.Name} must have type ${typeString(required.Type as GqlType)}.`);
    }
    for (const rArg of required.Arguments ?? []) {
      const fArg = (found.Arguments ?? []).find((a) => a.Name === rArg.Name);
      if (fArg === undefined) {
        fail(found.pos, `For ${def.Name} to implement ${intf.Name} the field ${required.Name} must have the same arguments but it is missing ${rArg.Name}.`);
      }
      if (!isCompatible(rArg.Type, fArg.Type)) {
        fail(
          fArg.pos,
          `For ${def.Name} to implement ${intf.Name} the field ${required.Name} must have the same arguments but ${rArg.Name} has the wrong type.`,
        );
      }
    }
    for (const fArg of found.Arguments ?? []) {
      if (!(required.Arguments ?? []).some((a) => a.Name === fArg.Name) && fArg.Type?.NonNull === true && fArg.DefaultValue === null) {
        fail(
          fArg.pos,
          `For ${def.Name} to implement ${intf.Name} any additional arguments on ${found.Name} must be optional or have a default value but ${fArg.Name} is required.`,
        );
      }
    }
  }
  for (const transitive of intf.Interfaces ?? []) {
    if (!(def.Interfaces ?? []).includes(transitive)) {
      if (transitive === def.Name) fail(def.pos, `Type ${def.Name} cannot implement ${name} because it would create a circular reference.`);
      fail(def.pos, `Type ${def.Name} must implement ${transitive} because it is implemented by ${name}.`);
    }
  }
}
