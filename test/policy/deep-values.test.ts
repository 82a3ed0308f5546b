/**
 * Values nested as deep as OPA takes them (issue 35). OPA v1.20.2 reads JSON
 * nested 10,000 deep (Go's encoding/json limit) and evaluates over it (Go's
 * stacks grow); 10,001 is `invalid character '[' exceeded max depth`. Our
 * engine's recursive walks (equality, order, keys, JSON reading and writing,
 * walk, merges, ...) exhausted JS's stack some thousands deep. The same
 * queries over inputs 1,000 / 5,000 / 9,999 / 10,001 deep are asked of the
 * real OPA (the oracle) and of our engine; the answers must be the same.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../runtime/policy/engine.js';
import { fromJS, parseJSON, stringifyJSON } from '../../runtime/policy/value-json.js';
import { askOracle, oracleDir } from './differential/differ.js';

const array = (n: number): string => '['.repeat(n) + ']'.repeat(n);
const object = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const SHAPES: Array<[string, (n: number) => string]> = [
  ['arrays', array],
  ['objects', object],
];
const DEPTHS = [1_000, 5_000, 9_999, 10_001];

/** Two levels deeper than the input: past 10,000 (an input 9,999 deep), OPA's yaml.marshal (JSON read back by go-yaml) refuses it. */
const DEEPER = 'x := count(yaml.marshal([{"k": input}, {input}]))';

/** Queries whose every step (reading, comparing, hashing, writing, walking, merging) goes through the whole depth. */
const QUERIES = [
  'x := input == input',
  'x := input < [input]',
  'x := json.marshal(input)',
  'x := json.unmarshal(json.marshal(input)) == input',
  'x := count([1 | walk(input, [p, v])])',
  'x := {input} | {[input], input}',
  'x := {input: 1, [input]: 2}',
  'x := sort([[input], input, 1])',
  'x := sprintf("%v", [input])',
  'x := json.patch({"a": input}, [{"op": "copy", "from": "/a", "path": "/b"}])',
  'x := object.union({"a": input}, {"a": input, "b": 1})',
  'x := object.get({"k": input}, ["k"], 1) == input',
  'x := object.subset({"a": input}, {"a": input})',
  // Objects that differ only at the bottom (arrays hold no "1": equal).
  'x := object.subset(input, json.unmarshal(replace(json.marshal(input), "1", "2")))',
  'x := json.filter({"a": input, "b": 2}, ["a"])',
  'x := count(json.marshal_with_options(input, {"pretty": true, "indent": ""}))',
  // Block YAML indents each level: 9,999 nested objects are 100 million characters, in OPA as here.
  'x := count(yaml.marshal(input))',
  DEEPER,
];

/** An answer as JSON text (compared as text: an answer may nest deeper than a JSON reader takes, `[input]`), or an error's text. */
type Answer = { value: string } | { error: string };

/** Our answer as the REST API writes it, or the error's text. */
function ours(query: string, input: string): Answer {
  try {
    const policy = compilePolicy({ modules: [] });
    const rows = policy.query(query, { inputValue: parseJSON(input), strictBuiltinErrors: true });
    const x = rows[0]?.x;
    if (x === undefined) return { error: 'undefined' };
    return { value: stringifyJSON(x) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

const show = (a: Answer): string => ('value' in a ? a.value : a.error).slice(0, 120);

function opa(line: string): Answer {
  const envelope = JSON.parse(line) as { error?: { message: string }; result?: Array<{ bindings?: Record<string, unknown> }> };
  if (envelope.error !== undefined) return { error: envelope.error.message };
  if (envelope.result?.[0]?.bindings === undefined) return { error: 'undefined' };
  // The value's text as OPA wrote it (the bindings end the envelope).
  return { value: line.slice(line.indexOf('"bindings":{"x":') + '"bindings":{"x":'.length, line.lastIndexOf('}}]}')) };
}

describe('values nested 10,000 deep, as OPA v1.20.2 takes them', () => {
  it('reads JSON 10,000 deep and refuses 10,001 with Go’s words, by both readers', () => {
    for (const [, shape] of SHAPES) {
      expect(() => parseJSON(shape(10_000))).not.toThrow();
      // A number that needs the exact reader sends the text through our own parser.
      expect(() => parseJSON(`[1e400,${shape(9_999)}]`)).not.toThrow();
    }
    expect(() => parseJSON(array(10_001))).toThrow(/^invalid character '\[' exceeded max depth$/);
    expect(() => parseJSON(object(10_001))).toThrow(/^invalid character '\{' exceeded max depth$/);
    expect(() => parseJSON(`[1e400,${array(10_000)}]`)).toThrow(/^invalid character '\[' exceeded max depth$/);
    // From plain JS values (a tool's arguments): the same limit, a clear error, no stack overflow.
    let deep: unknown = 1;
    for (let i = 0; i < 50_000; i++) deep = { a: deep };
    expect(() => fromJS(deep)).toThrow(/nested more than 10000 deep/);
  });

  it('answers every query over inputs 9,999 deep (no stack exhausted), with the values expected', () => {
    for (const [name, shape] of SHAPES) {
      const input = shape(9_999);
      for (const query of QUERIES.filter((q) => q !== DEEPER)) {
        const answer = ours(query, input);
        expect('value' in answer, `${name}: ${query}: ${'error' in answer ? answer.error : ''}`).toBe(true);
      }
      expect(ours(DEEPER, input)).toEqual({
        error: `yaml.marshal([{"k": input}, {input}]): eval_builtin_error: yaml.marshal: yaml: exceeded max depth of 10000`,
      });
      expect('value' in ours(DEEPER, shape(9_998))).toBe(true);
      const walked = ours('x := count([1 | walk(input, [p, v])])', input);
      expect(walked).toEqual({ value: name === 'arrays' ? '9999' : '10000' });
      expect(ours('x := json.unmarshal(json.marshal(input)) == input', input)).toEqual({ value: 'true' });
    }
  });

  const pylib = oracleDir();
  it.skipIf(pylib === undefined)(
    'gives the oracle’s answers at 1,000 / 5,000 / 9,999 / 10,001 deep (set FRAMEWORK_OPA_PYLIB)',
    () => {
      const cases = DEPTHS.flatMap((depth) => SHAPES.flatMap(([name, shape]) => QUERIES.map((query) => ({ name, depth, query, input: shape(depth) }))));
      const answers = askOracle([{ modules: [], evals: cases.map(({ query, input }) => ({ query, input })) }], pylib as string);
      const differ: string[] = [];
      cases.forEach((c, i) => {
        const theirs = opa(answers[i] as string);
        const mine = ours(c.query, c.input);
        const same = 'value' in theirs ? 'value' in mine && mine.value === theirs.value : 'error' in mine && mine.error === theirs.error;
        if (!same) differ.push(`${c.name} ${c.depth}: ${c.query}: OPA ${show(theirs)} / ours ${show(mine)}`);
      });
      expect(differ).toEqual([]);
      // The deepest inputs OPA refuses are refused for their depth, not for anything else.
      expect(answers.filter((line) => /invalid character '.' exceeded max depth/.test(line))).toHaveLength(SHAPES.length * QUERIES.length);
    },
    300_000,
  );
});
