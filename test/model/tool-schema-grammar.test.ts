import { describe, expect, it } from 'vitest';
import { ModelRequestError } from '../../runtime/model/model-request-error.js';
import { checkedTools, checkToolCalls } from '../../runtime/model/tool-arguments-check.js';
import { documentedSchema, markedSchema, toolGrammarSchema } from '../../runtime/model/tool-schema-grammar.js';

const grammar = (schema: Record<string, unknown>) => toolGrammarSchema({ tool: 't', schema });
const refusal = (schema: Record<string, unknown>): ModelRequestError => {
  try {
    grammar(schema);
  } catch (error) {
    expect(error).toBeInstanceOf(ModelRequestError);
    return error as ModelRequestError;
  }
  throw new Error('the schema was not refused');
};

// What pydantic 2 writes for `def f(city: str, days: Optional[int] = None)`.
const pydanticOptional = {
  properties: {
    city: { title: 'City', type: 'string' },
    days: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: null, title: 'Days' },
  },
  required: ['city'],
  title: 'f',
  type: 'object',
};

describe('tool parameter schemas as generation grammars', () => {
  it("compiles pydantic's anyOf for Optional into oneOf, dropping annotations", () => {
    expect(grammar(pydanticOptional)).toEqual({
      type: 'object',
      properties: { city: { type: 'string' }, days: { oneOf: [{ type: 'integer' }, { type: 'null' }] } },
    });
  });

  it('inlines $ref into $defs and definitions, and merges allOf', () => {
    const schema = {
      type: 'object',
      $defs: { Unit: { enum: ['c', 'f'], type: 'string' } },
      definitions: { Place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      properties: {
        unit: { $ref: '#/$defs/Unit', description: 'the unit' },
        place: { allOf: [{ $ref: '#/definitions/Place' }, { properties: { country: { type: 'string', maxLength: 2 } } }] },
      },
    };
    expect(grammar(schema)).toEqual({
      type: 'object',
      properties: {
        unit: { enum: ['c', 'f'], description: 'the unit' },
        place: { type: 'object', properties: { city: { type: 'string' }, country: { type: 'string', maxLength: 2 } } },
      },
    });
  });

  it('splits type arrays and nullable into one branch per type, keeping each type its keywords', () => {
    expect(grammar({ type: ['string', 'null'], minLength: 2 })).toEqual({ oneOf: [{ type: 'string', minLength: 2 }, { type: 'null' }] });
    expect(grammar({ type: 'boolean', nullable: true })).toEqual({ oneOf: [{ type: 'boolean' }, { type: 'null' }] });
  });

  it('keeps only the enum values of the given type', () => {
    expect(grammar({ type: 'string', enum: ['a', 1, 'b'] })).toEqual({ enum: ['a', 'b'] });
  });

  it('turns integer bounds into the allowed integers, shown to the model as a range', () => {
    const schema = { type: 'integer', minimum: 0, maximum: 10, description: 'score' };
    expect(grammar(schema)).toEqual({ enum: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], description: 'score' });
    expect(grammar({ type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 4 })).toEqual({ enum: [1, 2, 3] });
    expect(grammar({ type: 'integer', minimum: 0, maximum: 20, multipleOf: 5 })).toEqual({ enum: [0, 5, 10, 15, 20] });
    expect(documentedSchema(markedSchema({ tool: 't', schema }))).toEqual({ type: 'integer', description: 'score (an integer from 0 to 10)' });
    // A one-sided bound: the first thousand integers from it, all of them valid.
    const open = grammar({ type: 'integer', minimum: 1 }) as { enum: number[] };
    expect(open.enum).toHaveLength(1000);
    expect(open.enum[0]).toBe(1);
  });

  it('refuses, naming the keyword and its place, what the grammar cannot express', () => {
    expect(refusal({ type: 'object', properties: { code: { type: 'string', pattern: '^[A-Z]{3}$' } } }).message).toMatch(
      /tool 't' at \/properties\/code: 'pattern' cannot be enforced/,
    );
    expect(refusal({ type: 'number', minimum: 0.5 }).message).toMatch(/'minimum' on a non-integer number/);
    expect(refusal({ type: 'array', items: { type: 'string' }, uniqueItems: true }).message).toMatch(/'uniqueItems'/);
    expect(refusal({ not: { type: 'string' } }).message).toMatch(/'not'/);
    expect(refusal({ allOf: [{ type: 'string' }, { type: 'integer' }] }).message).toMatch(/allOf' asks for types/);
    expect(refusal(JSON.parse('{"type": "integer", "minimum": 1e400}') as Record<string, unknown>).message).toMatch(/'minimum' must be a finite number/);
    expect(refusal({ type: 'integer', minimum: 5, maximum: 4 }).message).toMatch(/no integer lies within/);
    expect(refusal({ type: 'object', properties: {}, required: ['x'] }).message).toMatch(/required \["x"\] not among/);
    expect(refusal({ $ref: 'https://example.com/s.json' }).message).toMatch(/only references into/);
    expect(refusal({ $ref: '#/$defs/Missing' }).message).toMatch(/names no definition/);
  });

  it('refuses a recursive $ref instead of inlining it forever', () => {
    const tree = { $defs: { Node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } }, $ref: '#/$defs/Node' };
    expect(refusal(tree).message).toMatch(/is recursive/);
    const viaAllOf = { $defs: { Node: { type: 'object', properties: { next: { allOf: [{ $ref: '#/$defs/Node' }] } } } }, $ref: '#/$defs/Node' };
    expect(refusal(viaAllOf).message).toMatch(/is recursive/);
  });

  it('checks generated arguments against the schema as sent, with a 502 naming the violation', () => {
    const tools = checkedTools([{ name: 'rate', parameters: { type: 'object', properties: { score: { type: 'integer', minimum: 0, maximum: 10 } } } }]);
    expect(() => checkToolCalls(tools, [{ name: 'rate', arguments: { score: 7 } }])).not.toThrow();
    const wrong = (() => {
      try {
        checkToolCalls(tools, [{ name: 'rate', arguments: { score: 100 } }]);
      } catch (error) {
        return error as ModelRequestError;
      }
      return undefined;
    })();
    expect(wrong?.status).toBe(502);
    expect(wrong?.message).toMatch(/arguments\/score must be <= 10/);
    expect(() => checkToolCalls(tools, [{ name: 'other', arguments: {} }])).toThrow(/not among the tools/);
  });
});
