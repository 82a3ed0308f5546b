/**
 * Parse errors as OPA v1.20.2 words and lists them (issue 35): whitespace
 * before `[` (`input.o ["a"]`), statements that are no rule, the source
 * line with a caret, the rule-value hint, errors after a binary operator.
 * Each text's compile error is compared with the real OPA (the oracle) word
 * for word when it is there; the texts below carry OPA's answers too, so the
 * test checks them without the oracle.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../runtime/policy/engine.js';
import { PolicyError } from '../../runtime/policy/errors.js';
import { parseJSON, toJS } from '../../runtime/policy/value-json.js';
import { askOracle, oracleDir } from './differential/differ.js';

/** [module text, OPA's error (without its `1 error occurred: ` lead), or 'ok']. */
const CASES: Array<[string, string]> = [
  [
    'package p\np if { x := input.o ["a"] }',
    'p.rego:2: rego_parse_error: unexpected [ token: expected \\n or ; or }\n\tp if { x := input.o ["a"] }\n\t                    ^',
  ],
  ['package p\nq := input.o ["a"]', 'p.rego:2: rego_parse_error: array cannot be used for rule name'],
  ['package p\np := [1] [0]', 'p.rego:2: rego_parse_error: array cannot be used for rule name'],
  ['package p\np := [1]\n[0]', 'p.rego:3: rego_parse_error: array cannot be used for rule name'],
  ['package p\np if { x := input.o\n["a"] }', 'ok'],
  [
    'package p\np := input.o ["a"] ["b"]',
    '2 errors occurred:\np.rego:2: rego_parse_error: array cannot be used for rule name\np.rego:2: rego_parse_error: array cannot be used for rule name',
  ],
  ['package p\nf(x) := x\nq := f (1)', 'p.rego:3: rego_parse_error: number cannot be used for rule name'],
  ['package p\nq := input .o', 'p.rego:2: rego_parse_error: unexpected identifier token: expected number\n\tq := input .o\n\t            ^'],
  [
    'package p\nq := input. o',
    '2 errors occurred:\np.rego:2: rego_parse_error: unexpected whitespace token: expected identifier\n\tq := input. o\n\t          ^\np.rego:2: rego_parse_error: unexpected whitespace token: expected rule value term (e.g., q := <VALUE> { ... })\n\tq := input. o\n\t          ^',
  ],
  ['package p\np := 1 q := 2', 'ok'],
  ['package p\np := 1 ; q := 2', 'p.rego:2: rego_parse_error: multiple expressions cannot be used for rule head'],
  ['package p\np', 'p.rego:2: rego_parse_error: var cannot be used for rule name'],
  ['package p\n1 + 2', 'p.rego:2: rego_parse_error: rule name conflicts with built-in function'],
  ['package p\nsome x', "p.rego:2: rego_parse_error: 'some' declarations cannot be used for rule head"],
  [
    'package p\np := {"é": (1 }',
    '2 errors occurred:\np.rego:2: rego_parse_error: non-terminated expression\n\tp := {"é": (1 }\n\t               ^\np.rego:2: rego_parse_error: unexpected } token: expected rule value term (e.g., p := <VALUE> { ... })\n\tp := {"é": (1 }\n\t               ^',
  ],
  [
    'package p\np[x] = ',
    '2 errors occurred:\np.rego:2: rego_parse_error: unexpected eof token\n\tp[x] = \n\t     ^\np.rego:2: rego_parse_error: unexpected eof token: expected rule value term (e.g., p[x][<nil>] = <VALUE> { ... })\n\tp[x] = \n\t     ^',
  ],
  ['package p\ndoc := {"s": {1, 2-}}', 'p.rego:2: rego_parse_error: unexpected } token\n\tdoc := {"s": {1, 2-}}\n\t                   ^'],
  [
    'package p\n\nx := 00',
    '2 errors occurred:\np.rego:3: rego_parse_error: unexpected number token: expected number without leading zero\n\tx := 00\n\t     ^\np.rego:3: rego_parse_error: unexpected number token: expected rule value term (e.g., x := <VALUE> { ... })\n\tx := 00\n\t     ^',
  ],
  [
    'package p\nx := @',
    '2 errors occurred:\np.rego:2: rego_parse_error: illegal token\n\tx := @\n\t     ^\np.rego:2: rego_parse_error: illegal token\n\tx := @\n\t     ^',
  ],
  // A default rule's value holds no ref, var or call outside a comprehension, and its arguments are distinct vars (OPA's parser; accepted here before).
  ['package p\ndefault q := input.x', 'p.rego:2: rego_parse_error: illegal default rule (value cannot contain ref)\n\tdefault q := input.x\n\t^'],
  [
    'package p\ndefault q := [input.x, y, 1 + 2, {a: 1}, [z | z := 1]]',
    '4 errors occurred:\n' +
      ['ref', 'var', 'call', 'var']
        .map(
          (t) => `p.rego:2: rego_parse_error: illegal default rule (value cannot contain ${t})\n\tdefault q := [input.x, y, 1 + 2, {a: 1}, [z | z := 1]]\n\t^`,
        )
        .join('\n'),
  ],
  [
    'package p\ndefault f(x, [1], "a") := 1',
    '2 errors occurred:\np.rego:2: rego_parse_error: illegal default rule (arguments cannot contain array)\n\tdefault f(x, [1], "a") := 1\n\t^\np.rego:2: rego_parse_error: illegal default rule (arguments cannot contain string)\n\tdefault f(x, [1], "a") := 1\n\t^',
  ],
  ['package p\ndefault f(x, x) := x', 'p.rego:2: rego_parse_error: illegal default rule (value cannot contain var)\n\tdefault f(x, x) := x\n\t^'],
  ['package p\ndefault f(x, x) := 1', 'p.rego:2: rego_parse_error: illegal default rule (arguments cannot be repeated x)\n\tdefault f(x, x) := 1\n\t^'],
  ['package p\ndefault q := $"a{1 + 2}"', 'p.rego:2: rego_parse_error: illegal default rule (value cannot contain ref)\n\tdefault q := $"a{1 + 2}"\n\t^'],
  ['package p\ndefault q := $"a{1}"', 'ok'],
  ['package p\ndefault f(_, _) := 1', 'ok'],
  // The package comes first: OPA reads every statement, then reports a first one that is no package (and only that), a later package, or no statement at all.
  ['x := 1\n\nimport rego.v1\nq := 1', 'p.rego:1: rego_parse_error: package expected'],
  ['# c\nsome x\npackage p\nq := 1', '2 errors occurred:\np.rego:2: rego_parse_error: package expected\np.rego:3: rego_parse_error: unexpected package'],
  ['`r`package p\n\nu := 1', '2 errors occurred:\np.rego:1: rego_parse_error: package expected\np.rego:1: rego_parse_error: unexpected package'],
  ['\n# only a comment\n', 'p.rego:0: rego_parse_error: empty module'],
  ['package \n\nimport rego.v1\n\nq := 1', 'p.rego:3: rego_parse_error: `contains` keyword is required for partial set rules'],
  ['package if', 'ok'],
  // `input` and `data` as names are a compile error in OPA (its checkRootDocumentOverrides), not a parse error.
  ['package p\nq if { true } input.roles', 'p.rego:2: rego_parse_error: `contains` keyword is required for partial set rules'],
  ['package p\nq := 1\n\ninput := 2', 'p.rego:4: rego_compile_error: rules must not shadow input (use a different rule name)'],
  [
    'package p\nq if { input := 1; [x | data := 2; x := 1] }',
    '2 errors occurred:\np.rego:2: rego_compile_error: variables must not shadow input (use a different variable name)\np.rego:2: rego_compile_error: variables must not shadow data (use a different variable name)',
  ],
  ['package p\nf(x, data) := 1', 'p.rego:2: rego_compile_error: args must not shadow data (use a different variable name)'],
  // An object whose first value is followed by `,` or `}` and whose rest fails is non-terminated at that first value (OPA restores its state there).
  [
    'package p\nq := {"a": 1, "b" 2}',
    '2 errors occurred:\np.rego:2: rego_parse_error: unexpected number token: non-terminated object\n\tq := {"a": 1, "b" 2}\n\t           ^\np.rego:2: rego_parse_error: unexpected number token: expected rule value term (e.g., q := <VALUE> { ... })\n\tq := {"a": 1, "b" 2}\n\t           ^',
  ],
  [
    'package p\nq := {"a": 1 + 2, "b" 2}',
    '2 errors occurred:\np.rego:2: rego_parse_error: unexpected number token: expected ":"\n\tq := {"a": 1 + 2, "b" 2}\n\t                      ^\np.rego:2: rego_parse_error: unexpected number token: expected rule value term (e.g., q := <VALUE> { ... })\n\tq := {"a": 1 + 2, "b" 2}\n\t                      ^',
  ],
  [
    'package p\nq := {"a": {"b": 1}, "s": {1, 2[}',
    '2 errors occurred:\np.rego:2: rego_parse_error: unexpected { token: non-terminated object\n\tq := {"a": {"b": 1}, "s": {1, 2[}\n\t           ^\np.rego:2: rego_parse_error: unexpected { token: expected rule value term (e.g., q := <VALUE> { ... })\n\tq := {"a": {"b": 1}, "s": {1, 2[}\n\t           ^',
  ],
  // `with` on a rule's value: OPA reads the statement as a query, which cannot be a rule head (a `contains` key or a default's value stops at `with`).
  ['package p\np := 1 with input as 2', 'p.rego:2: rego_parse_error: expressions using with keyword cannot be used for rule head'],
  ['package p\nf(x) := x with input as 2', 'p.rego:2: rego_parse_error: expressions using with keyword cannot be used for rule head'],
  ['package p\np contains 1 with input as 2', 'p.rego:2: rego_parse_error: unexpected with keyword\n\tp contains 1 with input as 2\n\t             ^'],
  ['package p\ndefault p := 1 with input as 2', 'p.rego:2: rego_parse_error: unexpected with keyword\n\tdefault p := 1 with input as 2\n\t               ^'],
  [
    'package p\np := 1 if { true } with input as 2',
    'p.rego:2: rego_parse_error: unexpected with keyword\n\tp := 1 if { true } with input as 2\n\t                   ^',
  ],
  // Text the scanner cannot read at a statement's start is the scanner's error alone; a bare call of a builtin is no rule.
  ['package p\nq := lower"abc', 'p.rego:2: rego_parse_error: non-terminated string\n\tq := lower"abc\n\t          ^'],
  ['package p\nq if { true }\n`abc', 'p.rego:3: rego_parse_error: non-terminated string\n\t`abc\n\t^'],
  ['package p\nfoo(1, 2)', 'ok'],
  ['package p\nformat_int(1, 2)', 'p.rego:2: rego_parse_error: rule name conflicts with built-in function'],
  [
    'package p\nfi2 format_int(1, 2)',
    '2 errors occurred:\np.rego:2: rego_parse_error: var cannot be used for rule name\np.rego:2: rego_parse_error: rule name conflicts with built-in function',
  ],
  ['package p\nq := array.concat concat(input.xs, [1])', 'p.rego:2: rego_parse_error: rule name conflicts with built-in function'],
  // `or` cannot start a statement or an operand: a block followed by `or { <broken> }` ends the rule at the block.
  [
    'package p\nimport future.keywords.or\nboth if { input.a > 1 } or { input.flag',
    'p.rego:3: rego_parse_error: unexpected or keyword\n\tboth if { input.a > 1 } or { input.flag\n\t                        ^',
  ],
  [
    'package p\nimport future.keywords.or\nany_of if input.a or or input.b',
    'p.rego:3: rego_parse_error: unexpected or keyword\n\tany_of if input.a or or input.b\n\t                     ^',
  ],
  ['package p\nimport future.keywords.or\nboth if { input.a > 1 }\nor', 'p.rego:4: rego_parse_error: unexpected or keyword\n\tor\n\t^'],
];

function ours(source: string): string {
  try {
    compilePolicy({ modules: [{ file: 'p.rego', source }] });
    return 'ok';
  } catch (e) {
    if (!PolicyError.isInstance(e)) throw e;
    return e.message;
  }
}

describe('parse errors as OPA v1.20.2 gives them', () => {
  it.each(CASES)('%j', (source, opa) => {
    expect(ours(source)).toBe(opa);
  });

  const pylib = oracleDir();
  it.skipIf(pylib === undefined)('are the oracle’s answers, word for word', () => {
    const out = askOracle(
      CASES.map(([source]) => ({ modules: [['p.rego', source]] as const, evals: [{ query: 'x = 1', input: null }] })),
      pylib as string,
    );
    const answers = out.map((line) => {
      const env = JSON.parse(line) as { error?: { message: string } };
      return env.error === undefined ? 'ok' : env.error.message.replace(/^bundle activation failed: /, '').replace(/^1 error occurred: /, '');
    });
    expect(answers).toEqual(CASES.map(([, opa]) => opa));
  });

  it('reads a query\'s next expression on the same line, as OPA does (`x := input.o ["a"]` is two)', () => {
    const policy = compilePolicy({ modules: [] });
    // OPA v1.20.2: bindings {x: {"a": 1}}, expressions `x := input.o` and `["a"]`; `x := 1 y := 2` binds both.
    const rows = policy.query('x := input.o ["a"]', { inputValue: parseJSON('{"o": {"a": 1}}') });
    expect(toJS(rows[0]?.x as never)).toEqual({ a: 1 });
    const both = policy.query('x := 1 y := 2')[0];
    expect([toJS(both?.x as never), toJS(both?.y as never)]).toEqual([1, 2]);
    expect(() => policy.query('x := input. o')).toThrow(
      '1:12: rego_parse_error: unexpected whitespace token: expected identifier\n\tx := input. o\n\t          ^',
    );
  });

  it('reads the text after a body-less rule on the same line as the next statement (two rules)', () => {
    const policy = compilePolicy({ modules: [{ file: 'p.rego', source: 'package p\np := 1 q := 2\n' }] });
    expect(toJS(policy.evaluate(['p'], {}) as never)).toEqual({ p: 1, q: 2 });
  });
});
