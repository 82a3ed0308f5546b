import { describe, expect, it } from 'vitest';
import { graphqlBuiltins } from '../../../runtime/policy/builtins/graphql.js';
import { fromJS, toJS } from '../../../runtime/policy/value-json.js';
import type { Value } from '../../../runtime/policy/value.js';
import { value } from '../helpers.js';
import { call, callError } from './builtin-test-kit.js';

const g = (name: string, ...args: Value[]): unknown => {
  const v = call(graphqlBuiltins, name, args);
  return v === undefined ? undefined : toJS(v);
};
const err = (name: string, ...args: Value[]) => callError(graphqlBuiltins, name, args);

const SCHEMA = `
type Query { hero(episode: Episode = JEDI): Character droid(id: ID!): Droid }
enum Episode { NEWHOPE EMPIRE JEDI }
interface Character { id: ID! name: String }
type Droid implements Character { id: ID! name: String primaryFunction: String }
`;

describe('graphql.parse_query', () => {
  it("returns gqlparser's AST: Go field names, empty strings and false kept, nulls and empty lists dropped", () => {
    expect(g('graphql.parse_query', 'query Q($id: ID! = "x") { a: droid(id: $id) @include(if: true) { ... on Droid { name } ...F } }')).toEqual({
      Operations: [
        {
          Name: 'Q',
          Operation: 'query',
          VariableDefinitions: [
            {
              Variable: 'id',
              Type: { NamedType: 'ID', NonNull: true },
              DefaultValue: { Raw: 'x', Kind: 3, ExpectedTypeHasDefault: false },
              Used: false,
            },
          ],
          SelectionSet: [
            {
              Alias: 'a',
              Name: 'droid',
              Arguments: [{ Name: 'id', Value: { Raw: 'id', Kind: 0, ExpectedTypeHasDefault: false } }],
              Directives: [{ Name: 'include', Location: '', Arguments: [{ Name: 'if', Value: { Raw: 'true', Kind: 5, ExpectedTypeHasDefault: false } }] }],
              SelectionSet: [{ TypeCondition: 'Droid', SelectionSet: [{ Alias: 'name', Name: 'name' }] }, { Name: 'F' }],
            },
          ],
        },
      ],
    });
  });

  it('keeps list and object values as children, with the block string value dedented', () => {
    const ast = g('graphql.parse_query', '{ f(l: [1, 2.5], o: {k: """\n    a\n      b\n  """}) }') as {
      Operations: Array<{ SelectionSet: Array<{ Arguments: unknown[] }> }>;
    };
    expect(ast.Operations[0]?.SelectionSet[0]?.Arguments).toEqual([
      {
        Name: 'l',
        Value: {
          Raw: '',
          Kind: 8,
          ExpectedTypeHasDefault: false,
          Children: [
            { Name: '', Value: { Raw: '1', Kind: 1, ExpectedTypeHasDefault: false } },
            { Name: '', Value: { Raw: '2.5', Kind: 2, ExpectedTypeHasDefault: false } },
          ],
        },
      },
      {
        Name: 'o',
        Value: { Raw: '', Kind: 9, ExpectedTypeHasDefault: false, Children: [{ Name: 'k', Value: { Raw: 'a\n  b', Kind: 4, ExpectedTypeHasDefault: false } }] },
      },
    ]);
  });

  it("fails with gqlparser's message and the line:column of the token, counted in code points", () => {
    expect(err('graphql.parse_query', '{ a(x: ').message).toBe('Unexpected <EOF> in GraphQL string at location 1:8');
    expect(err('graphql.parse_query', 'query {\n  é: x }\n}').message).toBe('Expected Name, found <Invalid> in GraphQL string at location 2:3');
    expect(err('graphql.parse_query', '{ x(a: "日本😀") } "é"').message).toBe('Unexpected String "é" in GraphQL string at location 1:18');
    expect(err('graphql.parse_query', 'fragment on on X { a }').message).toBe('Unexpected Name "on" in GraphQL string at location 1:10');
    expect(err('graphql.parse_query', '{}').message).toBe('expected at least one definition, found } in GraphQL string at location 1:2');
    expect(err('graphql.parse_query', 1).message).toBe('operand 1 must be string but got number');
  });

  it('refuses absurd nesting with an error instead of overflowing the stack', () => {
    const deep = `{ f(a: ${'['.repeat(100_000)}${']'.repeat(100_000)}) }`;
    expect(err('graphql.parse_query', deep).message).toBe('GraphQL document nested too deeply');
    expect(g('graphql.is_valid', deep, SCHEMA)).toBe(false);
  });
});

describe('graphql.parse_schema', () => {
  it('returns definitions with BuiltIn and Description, and extensions apart', () => {
    expect(
      g('graphql.parse_schema', '"d" type A implements B & C @x { f(a: Int = 1): [A!] }\nextend enum E { V }\ndirective @x repeatable on OBJECT | FIELD'),
    ).toEqual({
      Definitions: [
        {
          Kind: 'OBJECT',
          Name: 'A',
          Description: 'd',
          BuiltIn: false,
          Interfaces: ['B', 'C'],
          Directives: [{ Name: 'x', Location: '' }],
          Fields: [
            {
              Name: 'f',
              Description: '',
              Arguments: [
                { Name: 'a', Description: '', Type: { NamedType: 'Int', NonNull: false }, DefaultValue: { Raw: '1', Kind: 1, ExpectedTypeHasDefault: false } },
              ],
              Type: { NamedType: '', NonNull: false, Elem: { NamedType: 'A', NonNull: true } },
            },
          ],
        },
      ],
      Extensions: [{ Kind: 'ENUM', Name: 'E', Description: '', BuiltIn: false, EnumValues: [{ Name: 'V', Description: '' }] }],
      Directives: [{ Name: 'x', Description: '', IsRepeatable: true, Locations: ['OBJECT', 'FIELD'] }],
    });
  });

  it('refuses what gqlparser refuses, with its message', () => {
    expect(err('graphql.parse_schema', 'extend type A').message).toBe('Unexpected <EOF> in GraphQL string at location 1:14');
    expect(err('graphql.parse_schema', 'union U = | | A').message).toBe('Expected Name, found | in GraphQL string at location 1:13');
    expect(err('graphql.parse_schema', 'directive @d on NOWHERE').message).toBe('Unexpected Name "NOWHERE" in GraphQL string at location 1:17');
  });
});

describe('graphql.schema_is_valid', () => {
  it("loads the schema with gqlparser's rules (prelude merged, extensions applied)", () => {
    expect(g('graphql.schema_is_valid', SCHEMA)).toBe(true);
    expect(g('graphql.schema_is_valid', 'extend type Query { a: Int }')).toBe(true);
    expect(g('graphql.schema_is_valid', 'type Query { a: Undefined }')).toBe(false);
    expect(g('graphql.schema_is_valid', 'union U = A | B type A { a: Int }')).toBe(false);
    expect(g('graphql.schema_is_valid', 'type Query { a: Int a: Int }')).toBe(false);
    expect(g('graphql.schema_is_valid', 'type Query { a: Int } scalar String')).toBe(false);
    expect(g('graphql.schema_is_valid', 'interface I { f: Int } type Query implements I { g: Int }')).toBe(false);
    expect(g('graphql.schema_is_valid', 'type Query { a: Int @deprecated(reason: "x") }')).toBe(true);
    expect(g('graphql.schema_is_valid', 'type Query { a: Int @unknown }')).toBe(false);
    expect(g('graphql.schema_is_valid', 'type Query {')).toBe(false);
    expect(g('graphql.schema_is_valid', 1)).toBe(false);
  });
});

describe('graphql.is_valid, parse_and_verify and parse', () => {
  it('validates queries against the schema', () => {
    expect(g('graphql.is_valid', '{ hero { name ... on Droid { primaryFunction } } }', SCHEMA)).toBe(true);
    expect(g('graphql.is_valid', '{ hero { nope } }', SCHEMA)).toBe(false);
    expect(g('graphql.is_valid', '{ droid { name } }', SCHEMA)).toBe(false);
    expect(g('graphql.is_valid', 'query ($e: Episode) { hero(episode: $e) { id } }', SCHEMA)).toBe(true);
    expect(g('graphql.is_valid', 'query ($e: Int) { hero(episode: $e) { id } }', SCHEMA)).toBe(false);
    expect(g('graphql.is_valid', 'mutation { x }', SCHEMA)).toBe(false);
    expect(g('graphql.is_valid', '', SCHEMA)).toBe(true);
    expect(g('graphql.is_valid', '{ hero { id } }', 'type Query {')).toBe(false);
  });

  it('accepts queries and schemas given as AST objects', () => {
    const q = fromJS(g('graphql.parse_query', '{ droid(id: "1") { name } }'));
    const s = fromJS(g('graphql.parse_schema', SCHEMA));
    expect(g('graphql.is_valid', q, s)).toBe(true);
    expect(g('graphql.schema_is_valid', s)).toBe(true);
    expect(g('graphql.is_valid', fromJS({ Operations: [{ Operation: 'query', SelectionSet: [{ Alias: 'x', Name: 'x' }] }] }), s)).toBe(false);
    expect(g('graphql.is_valid', fromJS({ Operations: 'nope' }), s)).toBe(false);
  });

  it('parse_and_verify returns [true, query AST, schema AST] or [false, {}, {}]', () => {
    const ok = g('graphql.parse_and_verify', '{ droid(id: 1) { id } }', SCHEMA) as unknown[];
    expect(ok[0]).toBe(true);
    expect(ok[1]).toEqual(g('graphql.parse_query', '{ droid(id: 1) { id } }'));
    expect(ok[2]).toEqual(g('graphql.parse_schema', SCHEMA));
    expect(g('graphql.parse_and_verify', '{ droid { id } }', SCHEMA)).toEqual([false, {}, {}]);
  });

  it("parse raises gqlparser's validation message at the query's position", () => {
    expect(err('graphql.parse', '{\n  droid { id }\n}', SCHEMA).message).toBe(
      'Field "droid" argument "id" of type "ID!" is required, but it was not provided in GraphQL string at location 2:3',
    );
    expect(err('graphql.parse', '{ x }', 'type Query {').message).toBe('Expected Name, found <EOF> in GraphQL string at location 1:13');
    expect(err('graphql.parse', '{ x }', 'type Query {}').message).toBe('expected at least one definition, found } in GraphQL string at location 1:13');
    expect(err('graphql.parse', '{ x }', 'type Query { x: Undefined }').message).toBe(
      'Error in gqlparser SchemaDocument to Schema conversion: input:1:17: Undefined type Undefined.',
    );
    expect(err('graphql.parse', 1, SCHEMA)).toMatchObject({ kind: 'type', message: 'operand 0 must be one of {string, object} but got number' });
  });

  // The expected texts below are OPA v1.20.2's answers to the same calls.
  it("lists several errors in gqlparser's walk and rule order, each at its position", () => {
    const q =
      'query Q($u: Int) {\n  hero(episode: MARS) { nope name name: id }\n  droid { ...F }\n}\nfragment F on Droid { primaryFunction }\nfragment G on Character { id }';
    expect(err('graphql.parse', q, SCHEMA).message).toBe(
      'Value "MARS" does not exist in "Episode" enum.\n' +
        'input:2:25: Cannot query field "nope" on type "Character". Did you mean "name"?\n' +
        'input:2:35: Fields "name" conflict because "name" and "id" are different fields. Use different aliases on the fields to fetch both if this was intentional.\n' +
        'input:3:3: Field "droid" argument "id" of type "ID!" is required, but it was not provided.\n' +
        'input:1:9: Variable "$u" is never used in operation "Q".\n' +
        'input:6:1: Fragment "G" is never used in GraphQL string at location 2:17',
    );
    expect(err('graphql.parse', '{ hero(episode: "JEDI", episode: 1.5) { ... on Episode { id } } }', SCHEMA).message).toBe(
      'Enum "Episode" cannot represent non-enum value: "JEDI". Did you mean the enum value "JEDI"?\n' +
        'input:1:34: Enum "Episode" cannot represent non-enum value: 1.5.\n' +
        'input:1:58: Cannot query field "id" on type "Episode".\n' +
        'input:1:45: Fragment cannot condition on non composite type "Episode".\n' +
        'input:1:25: There can be only one argument named "episode" in GraphQL string at location 1:18',
    );
  });

  it('prints the whole list after "GraphQL parse error: " for a query given as an AST object (it has no positions)', () => {
    const q = fromJS(
      g(
        'graphql.parse_query',
        'query Q($u: Int) {\n  hero(episode: MARS) { nope name name: id }\n  droid { ...F }\n}\nfragment F on Droid { primaryFunction }\nfragment G on Character { id }',
      ),
    );
    // A fragment spread read back from an AST object is a field (gqlparser decodes every selection as one), so F is unused.
    expect(err('graphql.parse', q, SCHEMA).message).toBe(
      'GraphQL parse error: input: Value "MARS" does not exist in "Episode" enum.\n' +
        'input: Cannot query field "nope" on type "Character". Did you mean "name"?\n' +
        'input: Fields "name" conflict because "name" and "id" are different fields. Use different aliases on the fields to fetch both if this was intentional.\n' +
        'input: Cannot query field "F" on type "Droid".\n' +
        'input: Field "droid" argument "id" of type "ID!" is required, but it was not provided.\n' +
        'input: Variable "$u" is never used in operation "Q".\n' +
        'input: Fragment "F" is never used.\n' +
        'input: Fragment "G" is never used.\n',
    );
  });

  it('answers introspection through the query root, within three levels of type lists', () => {
    expect(g('graphql.is_valid', '{ __schema { types { name } } __type(name: "Droid") { name } }', SCHEMA)).toBe(true);
    expect(err('graphql.parse', '{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }', SCHEMA).message).toBe(
      'Maximum introspection depth exceeded\n in GraphQL string at location 1:3',
    );
  });

  it('refuses a query whose fragments make the overlapping-fields check endless (OPA v1.20.2 dies of a stack overflow on it)', () => {
    const schema =
      'type Query { hero: Character } interface Character { name: String friends: [Character] } type Droid implements Character { name: String friends: [Character] }';
    const q = '{ hero { ...F ...F } } fragment F on Character { friends { friends { ...F name } ...F } }';
    expect(err('graphql.parse', q, schema).message).toBe('query cannot be validated: its fragments spread within themselves without end');
    expect(g('graphql.is_valid', q, schema)).toBe(false);
    expect(g('graphql.parse_and_verify', q, schema)).toEqual([false, {}, {}]);
  });

  it('refuses an AST object naming an operation type that does not exist (OPA v1.20.2 panics on it)', () => {
    const q = fromJS({ Operations: [{ Operation: 'foo', SelectionSet: [{ Alias: 'hero', Name: 'hero', SelectionSet: [{ Alias: 'id', Name: 'id' }] }] }] });
    expect(err('graphql.parse', q, SCHEMA).message).toBe('got unknown operation type "foo"');
    expect(g('graphql.is_valid', q, SCHEMA)).toBe(false);
  });

  it('answers the same again from its caches (same text, same verdict and AST)', () => {
    for (let i = 0; i < 3; i++) {
      expect(g('graphql.is_valid', '{ hero { id } }', SCHEMA)).toBe(true);
      expect(g('graphql.is_valid', '{ hero { nope } }', SCHEMA)).toBe(false);
      expect(err('graphql.parse', '{\n  droid { id }\n}', SCHEMA).message).toContain('at location 2:3');
    }
    expect(g('graphql.parse_query', '{ a }')).toEqual(g('graphql.parse_query', '{ a }'));
  });

  it('runs inside a policy', () => {
    const policy = `package p\nallow if graphql.is_valid(input.q, ${JSON.stringify(SCHEMA)})`;
    expect(value(policy, 'data.p.allow', { q: '{ hero { id } }' })).toBe(true);
    expect(value(policy, 'data.p.allow', { q: '{ hero { secret } }' })).toBeUndefined();
  });
});
