/**
 * json.verify_schema / json.match_schema. Expected values are what OPA
 * v1.20.2 returns for the same calls (checked with the real OPA).
 */
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { toJS } from '../../../runtime/policy/value-json.js';

function q(query: string, input?: unknown): unknown {
  const rs = compilePolicy({ modules: {} }).query(query, { input, strictBuiltinErrors: true });
  return rs.length === 0 ? undefined : toJS(rs[0]?.['x'] ?? null);
}

function qError(query: string, input?: unknown): string {
  try {
    compilePolicy({ modules: {} }).query(query, { input, strictBuiltinErrors: true });
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('no error');
}

const err = (field: string, type: string, desc: string) => ({ error: `${field}: ${desc}`, type, field, desc });

describe('json.verify_schema', () => {
  it('accepts valid schemas as objects or JSON text', () => {
    expect(q('x := json.verify_schema({"type": "boolean"})')).toEqual([true, null]);
    expect(q('x := json.verify_schema(`{"type": "boolean"}`)')).toEqual([true, null]);
    expect(q('x := json.verify_schema(`true`)')).toEqual([true, null]);
  });

  it("reports invalid schemas with gojsonschema's words", () => {
    const bad = (schema: string) => (q(`x := json.verify_schema(${schema})`) as [boolean, string])[1];
    expect(bad('{"type": "unknown_type"}')).toBe(
      'jsonschema: has a primitive type that is NOT VALID -- given: /unknown_type/ Expected valid values are:[array boolean integer number null object string]',
    );
    expect(bad('{"minLength": "x"}')).toBe('jsonschema: minLength must be of an integer');
    expect(bad('{"minLength": 1.5}')).toBe('jsonschema: minLength must be of an integer');
    expect(bad('{"maxItems": -1}')).toBe('jsonschema: maxItems must be greater than or equal to 0');
    expect(bad('{"required": "x"}')).toBe('jsonschema: required must be of an array');
    expect(bad('{"required": [1]}')).toBe('jsonschema: Invalid type. Expected: string, given: required');
    expect(bad('{"enum": 1}')).toBe('jsonschema: enum must be of an array');
    expect(bad('{"enum": [1, 1]}')).toBe('jsonschema: enum items must be unique');
    expect(bad('{"multipleOf": 0}')).toBe('jsonschema: multipleOf must be strictly greater than 0');
    expect(bad('{"minimum": "x"}')).toBe('jsonschema: minimum must be of a Number');
    expect(bad('{"pattern": "("}')).toBe('jsonschema: pattern must be a valid regex');
    expect(bad('{"properties": 1}')).toBe('jsonschema: Properties must be of type object');
    expect(bad('{"anyOf": {}}')).toBe('jsonschema: anyOf must be of an array');
    expect(bad('{"not": 1}')).toBe('jsonschema: not must be of an object');
    expect(bad('{"items": 1}')).toBe('jsonschema: Invalid type. Expected: Valid Schema/Array Of Schemas, given: items');
    expect(bad('{"type": 1}')).toBe('jsonschema: Invalid type. Expected: type, given: string/Array Of Strings');
    expect(bad('{"type": ["string", "string"]}')).toBe('jsonschema: string type is duplicated');
    expect(bad('{"$ref": "#/definitions/nope"}')).toBe("jsonschema: Object has no key 'definitions'");
    expect(bad('`{bad`')).toBe('jsonschema: invalid JSON string');
  });

  it('rejects a schema literal that is neither an object nor a string with a type error (at compile time, as OPA)', () => {
    expect(qError('x := json.verify_schema([1])')).toBe(
      '1:6: rego_type_error: json.verify_schema: invalid argument(s)\n\thave: (array<number>, ???)\n\twant: (schema: any<string, object[any: any]>, output: array<boolean, any<null, string>>)',
    );
  });
});

describe('schemas and documents of another type, from the input (past the type checker)', () => {
  it("answers verify_schema false with gojsonschema's refusal, as OPA v1.20.2 (it was an eval_type_error here)", () => {
    expect(q('x := json.verify_schema(input.s)', { s: [1, 2] })).toEqual([false, 'jsonschema: schema is invalid']);
    for (const s of [1, null, true]) expect(q('x := json.verify_schema(input.s)', { s })).toEqual([false, 'jsonschema: wrong type, expected string or object']);
  });

  it("refuses match_schema's operands in OPA's words, the document first", () => {
    expect(qError('x := json.match_schema(input.d, input.s)', { d: 1, s: {} })).toContain('json.match_schema: wrong type, expected string or object');
    expect(qError('x := json.match_schema(input.d, input.s)', { d: 1, s: '[1]' })).toContain('json.match_schema: wrong type, expected string or object');
    expect(qError('x := json.match_schema(input.d, input.s)', { d: { a: 1 }, s: [1] })).toContain('json.match_schema: schema is invalid');
    expect(qError('x := json.match_schema(input.d, input.s)', { d: {}, s: 1 })).toContain('json.match_schema: wrong type, expected string or object');
    expect(q('x := json.match_schema(input.d, input.s)', { d: [1], s: {} })).toEqual([true, []]);
  });
});

describe('json.match_schema', () => {
  it('returns [true, []] for a matching document (object or JSON text)', () => {
    expect(q('x := json.match_schema({"id": 5}, {"properties": {"id": {"type": "integer"}}, "required": ["id"]})')).toEqual([true, []]);
    expect(q('x := json.match_schema(`{"id": 5}`, `{"properties": {"id": {"type": "integer"}}}`)')).toEqual([true, []]);
  });

  it('lists errors as {error, type, field, desc}', () => {
    const r = q(
      'x := json.match_schema({"id": "a", "b": [1, 2, 2]}, {"properties": {"id": {"type": "integer"}, "b": {"uniqueItems": true, "items": {"minimum": 2}}}, "required": ["id", "c"]})',
    ) as [boolean, unknown[]];
    expect(r[0]).toBe(false);
    // OPA lists them in Go map order (random); compare as a set.
    expect(r[1]).toHaveLength(4);
    expect(r[1]).toEqual(
      expect.arrayContaining([
        err('(Root)', 'required', 'c is required'),
        err('b.0', 'number_gte', 'Must be greater than or equal to 2'),
        err('b', 'unique', 'array items[1,2] must be unique'),
        err('id', 'invalid_type', 'Invalid type. Expected: integer, given: string'),
      ]),
    );
  });

  it("names each keyword's failure as gojsonschema does", () => {
    const one = (schema: string) => (q(`x := json.match_schema("3", ${schema})`) as [boolean, unknown[]])[1];
    expect(one('{"enum": [1, 2]}')).toEqual([err('(Root)', 'enum', '(Root) must be one of the following: 1, 2')]);
    expect(one('{"const": "a"}')).toEqual([err('(Root)', 'const', '(Root) does not match: "a"')]);
    expect(one('{"not": {"type": "number"}}')).toEqual([err('(Root)', 'number_not', 'Must not validate the schema (not)')]);
    expect(one('{"oneOf": [{"type": "number"}, {"maximum": 5}]}')).toEqual([err('(Root)', 'number_one_of', 'Must validate one and only one schema (oneOf)')]);
    expect(one('{"multipleOf": 2}')).toEqual([err('(Root)', 'multiple_of', 'Must be a multiple of 2')]);
    expect(one('{"minimum": 4, "exclusiveMinimum": 5}')).toEqual([
      err('(Root)', 'number_gte', 'Must be greater than or equal to 4'),
      err('(Root)', 'number_gt', 'Must be greater than 5'),
    ]);
    expect(one('{"type": "string", "format": "email"}')).toEqual([err('(Root)', 'invalid_type', 'Invalid type. Expected: string, given: integer')]);
    expect(one('{"if": {"minimum": 1}, "then": {"maximum": 2}, "else": {"type": "string"}}')).toEqual(
      expect.arrayContaining([
        err('(Root)', 'condition_then', 'Must validate "then" as "if" was valid'),
        err('(Root)', 'number_lte', 'Must be less than or equal to 2'),
      ]),
    );
  });

  it('accepts draft-04 boolean exclusiveMaximum and draft-07 numeric exclusiveMaximum, and later $schema URIs', () => {
    const lt3 = [false, [err('(Root)', 'number_lt', 'Must be less than 3')]];
    expect(q('x := json.match_schema("3", {"$schema": "http://json-schema.org/draft-04/schema#", "maximum": 3, "exclusiveMaximum": true})')).toEqual(lt3);
    expect(q('x := json.match_schema("3", {"$schema": "http://json-schema.org/draft-07/schema#", "exclusiveMaximum": 3})')).toEqual(lt3);
    expect(q('x := json.match_schema("3", {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "integer"})')).toEqual([true, []]);
  });

  it('checks string formats', () => {
    expect(q('x := json.match_schema(`"nope"`, {"format": "email"})')).toEqual([false, [err('(Root)', 'format', "Does not match format 'email'")]]);
    expect(q('x := json.match_schema(`"a@b.example"`, {"format": "email"})')).toEqual([true, []]);
  });

  it('fails with eval_builtin_error for an invalid schema or document text', () => {
    expect(qError('x := json.match_schema({"id": "foo"}, {"properties": {"id": {"type": "unknown"}}})')).toContain(
      'json.match_schema: has a primitive type that is NOT VALID -- given: /unknown/',
    );
    expect(qError('x := json.match_schema("3", {"required": "x"})')).toContain('json.match_schema: required must be of an array');
    expect(qError('x := json.match_schema("{", {})')).toContain('json.match_schema: invalid JSON string');
  });
});

describe('json.match_schema errors as gojsonschema lists them', () => {
  // Each expectation is OPA v1.20.2's answer to the same call (recorded from the real OPA).
  const match = (doc: string, schema: string) => q(`x := json.match_schema(${doc}, ${schema})`);

  it('a failed anyOf or oneOf adds the errors of its closest branch after its own', () => {
    expect(match('{"a": 1}', '{"anyOf": [{"type": "string"}, {"type": "object", "properties": {"a": {"type": "string"}}}]}')).toEqual([
      false,
      [err('(Root)', 'number_any_of', 'Must validate at least one schema (anyOf)'), err('a', 'invalid_type', 'Invalid type. Expected: string, given: integer')],
    ]);
    expect(match('{"a": 5}', '{"properties": {"a": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}}}')).toEqual([
      false,
      [err('a', 'number_one_of', 'Must validate one and only one schema (oneOf)'), err('a', 'invalid_type', 'Invalid type. Expected: string, given: integer')],
    ]);
    // Two branches hold: only the oneOf error.
    expect(match('{"a": 5}', '{"properties": {"a": {"oneOf": [{"type": "number"}, {"minimum": 1}]}}}')).toEqual([
      false,
      [err('a', 'number_one_of', 'Must validate one and only one schema (oneOf)')],
    ]);
  });

  it('allOf adds its own error after its branches’; if/then puts its own first', () => {
    expect(match('{"a": 1}', '{"allOf": [{"type": "object"}, {"properties": {"a": {"type": "string"}}}]}')).toEqual([
      false,
      [err('a', 'invalid_type', 'Invalid type. Expected: string, given: integer'), err('(Root)', 'number_all_of', 'Must validate all the schemas (allOf)')],
    ]);
    expect(match('{"a": 1}', '{"if": {"properties": {"a": {"type": "number"}}}, "then": {"required": ["b"]}}')).toEqual([
      false,
      [err('(Root)', 'condition_then', 'Must validate "then" as "if" was valid'), err('(Root)', 'required', 'b is required')],
    ]);
  });

  it('a failed contains lists its own error and the closest item’s, not every item’s', () => {
    expect(match('{"a": [1, 2]}', '{"properties": {"a": {"contains": {"type": "string"}}}}')).toEqual([
      false,
      [err('a', 'contains', 'At least one of the items must match'), err('a.0', 'invalid_type', 'Invalid type. Expected: string, given: integer')],
    ]);
  });

  it('names several allowed types in brackets', () => {
    expect(match('{"a": [1]}', '{"properties": {"a": {"type": ["string", "null"]}}}')).toEqual([
      false,
      [err('a', 'invalid_type', 'Invalid type. Expected: [string,null], given: array')],
    ]);
  });
});

describe('json.match_schema decides as gojsonschema does, draft by draft', () => {
  // Each expectation is OPA v1.20.2's answer to the same call (recorded from the real OPA); the
  // `json-schema` template of the differential test compares thousands of generated ones.
  const match = (doc: unknown, schema: unknown) => q('x := json.match_schema(input.d, input.s)', { d: doc, s: schema });
  const fails = (doc: unknown, schema: unknown) => qError('x := json.match_schema(input.d, input.s)', { d: doc, s: schema });
  const D4 = 'http://json-schema.org/draft-04/schema#';

  it('refuses an empty array against contains after a matching one (ajv 8.17 accepted it: its loop flag leaked between items)', () => {
    expect(match([['a'], []], { items: { anyOf: [{ contains: { type: 'string' } }] } })).toEqual([
      false,
      [err('1', 'number_any_of', 'Must validate at least one schema (anyOf)'), err('1', 'contains', 'At least one of the items must match')],
    ]);
  });

  it('reads a property named like a keyword as a name: its boolean schema stays (it was rewritten away as a draft-04 bound)', () => {
    expect(match({ exclusiveMaximum: 1 }, { properties: { exclusiveMaximum: false } })).toEqual([
      false,
      [err('exclusiveMaximum', 'false', 'False always fails validation')],
    ]);
    expect(match({ exclusiveMinimum: 1 }, { properties: { exclusiveMinimum: true }, additionalProperties: false })).toEqual([true, []]);
  });

  it("applies only the keywords of the schema's draft: no const or contains in draft 4, no if/then/else in draft 6", () => {
    expect(match({ v: '' }, { $schema: D4, properties: { v: { const: '12' } } })).toEqual([true, []]);
    expect(match({ v: [1] }, { $schema: D4, properties: { v: { contains: { type: 'string' } } } })).toEqual([true, []]);
    const draft6 = 'http://json-schema.org/draft-06/schema#';
    expect(match({ v: 1 }, { $schema: draft6, properties: { v: { if: { type: 'integer' }, then: { minimum: 5 } } } })).toEqual([true, []]);
    expect(match({ v: 5 }, { $schema: D4, properties: { v: { minimum: 5, exclusiveMinimum: true } } })).toEqual([
      false,
      [err('v', 'number_gt', 'Must be greater than 5')],
    ]);
    expect(match({ v: [1] }, { $schema: D4, properties: { v: { items: [{ type: 'integer' }], additionalItems: true } }, additionalProperties: true })).toEqual([
      true,
      [],
    ]);
  });

  it('reads a $ref alone, not the keywords beside it; an empty items list leaves additionalItems unchecked', () => {
    expect(match({ v: 'é' }, { properties: { v: { $ref: '#/definitions/d', type: 'integer' } }, definitions: { d: { maxLength: 2 } } })).toEqual([true, []]);
    expect(match([1, 2], { items: [], additionalItems: false })).toEqual([true, []]);
  });

  it("refuses the schemas gojsonschema's parser refuses, in its words", () => {
    const refused = (schema: unknown) => fails({}, schema).replace(/^.*json\.match_schema: /, '');
    expect(refused({ minProperties: 2, maxProperties: 1 })).toBe('minProperties cannot be greater than maxProperties');
    expect(refused({ minLength: 2, maxLength: 1 })).toBe('minLength cannot be greater than maxLength');
    expect(refused({ $schema: 'http://json-schema.org/draft-07/schema#', minimum: 1, exclusiveMinimum: true })).toBe(
      'Invalid type. Expected: number, given: exclusiveMinimum',
    );
    expect(refused({ exclusiveMinimum: true })).toBe('exclusiveMinimum cannot be used without minimum');
    expect(refused({ $schema: D4, minimum: 1, exclusiveMinimum: 1 })).toBe('Invalid type. Expected: boolean, given: exclusiveMinimum');
    expect(refused({ required: ['a', 'a'] })).toBe('required items must be unique');
    expect(refused({ uniqueItems: 1 })).toBe('uniqueItems must be of a boolean');
    expect(refused({ $schema: D4, properties: { v: true } })).toBe('Expected: Valid Schema, given: Invalid JSON');
  });
});

describe('json.match_schema reads numbers exactly, as gojsonschema (big.Rat) does', () => {
  // OPA v1.20.2's answers (recorded). The document and the schema are JSON text, so the numbers keep their digits.
  const match = (doc: string, schema: string) => q(`x := json.match_schema(${JSON.stringify(doc)}, ${JSON.stringify(schema)})`);
  const fails = (doc: string, schema: string) =>
    qError(`x := json.match_schema(${JSON.stringify(doc)}, ${JSON.stringify(schema)})`).replace(/^.*json\.match_schema: /, '');

  it('compares numbers beyond a double, or below its precision, by their value (doubles let all three through)', () => {
    expect(match('{"v":-1e-400}', '{"properties":{"v":{"minimum":0}}}')).toEqual([false, [err('v', 'number_gte', 'Must be greater than or equal to 0')]]);
    expect(match('{"v":9007199254740993}', '{"properties":{"v":{"maximum":9007199254740992}}}')).toEqual([
      false,
      [err('v', 'number_lte', 'Must be less than or equal to 9.007199254740992e+15')],
    ]);
    expect(match('{"v":1e308}', '{"properties":{"v":{"multipleOf":3}}}')).toEqual([false, [err('v', 'multiple_of', 'Must be a multiple of 3')]]);
  });

  it('divides exactly for multipleOf, and takes 1e400 as an integer', () => {
    expect(match('{"v":0.3}', '{"properties":{"v":{"multipleOf":0.1}}}')).toEqual([true, []]);
    expect(match('{"v":1e400}', '{"properties":{"v":{"type":"integer"}}}')).toEqual([true, []]);
    expect(match('{"v":10}', '{"properties":{"v":{"maximum":1e400}}}')).toEqual([true, []]);
  });

  it("prints a bound as Go prints the big.Float (1e+06), compares const and enum as Go's float64 JSON (-0 is not 0)", () => {
    expect(match('{"v":2000000}', '{"properties":{"v":{"maximum":1000000}}}')).toEqual([
      false,
      [err('v', 'number_lte', 'Must be less than or equal to 1e+06')],
    ]);
    expect(match('{"v":-1e-400}', '{"properties":{"v":{"enum":[0]}}}')).toEqual([false, [err('v', 'enum', 'v must be one of the following: 0')]]);
    expect(match('{"v":9007199254740993}', '{"properties":{"v":{"enum":[9007199254740992]}}}')).toEqual([true, []]);
  });

  it("refuses a const or enum number beyond a double with Go's decoding error", () => {
    expect(fails('{}', '{"enum":[1e400]}')).toBe('json: cannot unmarshal number 1e400 into Go value of type float64');
    expect(fails('{}', '{"const":-1e400}')).toBe('json: cannot unmarshal number -1e400 into Go value of type float64');
  });
});
