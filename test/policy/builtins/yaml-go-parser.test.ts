/**
 * yaml.unmarshal as go-yaml v2 reads YAML under OPA: the scanner and parser
 * of yaml-go-scanner.ts / yaml-go-parser.ts refuse what go-yaml refuses,
 * with its text and line, read only its first document (and only as far as
 * its scanner looks ahead), and take what it takes (`[-]`). Every answer
 * below is OPA v1.20.2's; with the oracle (FRAMEWORK_OPA_PYLIB) the table is
 * checked against it too, so it cannot drift from OPA.
 */
import { describe, expect, it } from 'vitest';
import { yamlBuiltins } from '../../../runtime/policy/builtins/yaml.js';
import { toJS } from '../../../runtime/policy/value-json.js';
import { askOracle, oracleDir } from '../differential/differ.js';
import { BuiltinError } from '../../../runtime/policy/builtins/registry.js';
import type { Value } from '../../../runtime/policy/value.js';
import { call } from './builtin-test-kit.js';

type Answer = { value: unknown } | { error: string };

/** Text after go-yaml's first document, past the 512 bytes its reader decodes at once: not read, so its control character passes. */
const FAR_AFTER_END = `a: 1\n...\n${'#'.repeat(600)}\n\u0001`;
/** The same character inside the first document's last scalar: read, and refused. */
const IN_LAST_SCALAR = `- a\n- b\n${'x'.repeat(700)}\u0001`;

/** A simple key longer than go-yaml's 1,024 characters is no key: the `:` after it is refused. */
const LONG_KEY = `x:\n  ${'a'.repeat(1030)}: v\n`;

const OPA: Array<[string, Answer]> = [
  ['[-]', { value: ['-'] }],
  [': v', { error: 'yaml: did not find expected key' }],
  ['- [-]\n', { value: [['-']] }],
  ['a: 1\n---\nb: [\n', { value: { a: 1 } }],
  ['a: 1\n--- [\n', { value: { a: 1 } }],
  ['a: 1\n...\n\u0001', { error: 'yaml: control characters are not allowed' }],
  ['|\n  a\n  b', { value: 'a\nb' }],
  ['1: >\n    on\n    n', { value: { '1': 'on n' } }],
  ['a:\n  b: 1\n c: 2\n', { error: 'yaml: line 2: did not find expected key' }],
  ['a: b: c\n', { error: 'yaml: mapping values are not allowed in this context' }],
  ['a:\n\t- b\n', { error: 'yaml: line 2: found character that cannot start any token' }],
  ['key: "x\\/y"\n', { error: 'yaml: found unknown escape character' }],
  ['%YAML 1.2\n---\na\n', { error: 'yaml: found incompatible YAML document' }],
  ['%FOO\n---\na\n', { error: 'yaml: found unknown directive name' }],
  ['a: *x\n', { error: "yaml: unknown anchor 'x' referenced" }],
  ['- &a [*a]\n', { error: "yaml: anchor 'a' value contains itself" }],
  ['x: &a [1]\ny:\n  <<: *a\n', { error: 'yaml: map merge requires map or sequence of maps as the value' }],
  ['a: .inf\na: 1\n', { value: { a: 1 } }],
  ['b: .nan\na: .inf\n', { error: 'json: unsupported value: +Inf' }],
  ['[1, 2\n', { error: "yaml: line 1: did not find expected ',' or ']'" }],
  ['{a: 1\n', { error: "yaml: line 1: did not find expected ',' or '}'" }],
  ["a: 'x\n", { error: 'yaml: line 2: found unexpected end of stream' }],
  ['? [a]\n: 1\n', { error: 'yaml: invalid map key: []interface {}{"a"}' }],
  ['a\nb: 1\n', { error: 'yaml: line 2: mapping values are not allowed in this context' }],
  ['- a\nb: 1\n', { error: "yaml: line 1: did not find expected '-' indicator" }],
  ['a: |\n  x\n\tb\n', { error: 'yaml: line 3: found a tab character where an indentation space is expected' }],
  ['&anchor\n', { value: null }],
  ['!!int x', { error: 'yaml: cannot decode !!str `x` as a !!int' }],
  ['a: !foo 1\n', { value: { a: '1' } }],
  ["'a'b\n", { value: 'a' }],
  ['- 1\n- 2\n  - 3\n', { value: [1, '2 - 3'] }],
  ['a:\n  - 1\n  b: 2\n', { error: "yaml: line 2: did not find expected '-' indicator" }],
  ['@a\n', { error: 'yaml: found character that cannot start any token' }],
  ['a: `b\n', { error: 'yaml: found character that cannot start any token' }],
  ['"\\x4"', { error: 'yaml: did not find expected hexdecimal number' }],
  ['"\\uD800"', { error: 'yaml: found invalid Unicode character escape code' }],
  ['{a: 1, b}\n', { value: { a: 1, b: null } }],
  ['[a: 1, b: 2]\n', { value: [{ a: 1 }, { b: 2 }] }],
  ['a: 1 # c\n#x\n  b\n', { error: 'yaml: line 2: did not find expected key' }],
  ['- - - x\n  - y\n', { value: [[['x'], true]] }],
  ['a: |2-\n   x\n', { value: { a: ' x' } }],
  ['a: >0\n x\n', { error: 'yaml: found an indentation indicator equal to 0' }],
  ['x: [a, b]]\n', { error: 'yaml: did not find expected key' }],
  ['x: !<tag:yaml.org,2002:str> 1\n', { value: { x: '1' } }],
  ['%TAG ! !foo\n%TAG ! !bar\n---\na\n', { error: 'yaml: line 1: found duplicate %TAG directive' }],
  ['%YAML 1.1\n%YAML 1.1\n---\na\n', { error: 'yaml: line 1: found duplicate %YAML directive' }],
  ['a: !x!y 1\n', { error: 'yaml: found undefined tag handle' }],
  ['--- |\n  a\n--- x', { value: 'a\n' }],
  ['9223372036854775808: v\n', { error: 'unsupported map key of type: uint64, key: 0x8000000000000000, value: "v"' }],
  // A byte-order mark: the leading one dropped, one more at the start makes go-yaml skip a character at each line's start.
  ['\ufeff\ufeffa: 1\nb: 2\n', { error: 'yaml: line 1: did not find expected key' }],
  ['a: 1\n\ufeffb: 2\n', { value: { a: 1, '\ufeffb': 2 } }],
  ['x:\n\ufeff  y: 1\n', { value: { x: null, '\ufeff  y': 1 } }],
  ['\ufeffa: 1\n', { value: { a: 1 } }],
  // A lone surrogate reaches go-yaml as U+FFFD (Go's JSON decoder); CR LF and LS are line breaks.
  ['a: "\ud83d"\n', { value: { a: '\ufffd' } }],
  ['a: 1\r\nb:\r\n  - x\r\n c: 2\r\n', { error: 'yaml: line 3: did not find expected key' }],
  ['a:\u2028  b: 1\u2028', { value: { a: { b: 1 } } }],
  // A tag go-yaml does not resolve leaves a scalar its text; an empty node with a tag is the empty text.
  ['!!A 1', { value: '1' }],
  ['a: !!foo true\n', { value: { a: 'true' } }],
  ['!!map', { value: '' }],
  [LONG_KEY, { error: 'yaml: line 2: mapping values are not allowed in this context' }],
  [FAR_AFTER_END, { value: { a: 1 } }],
  [IN_LAST_SCALAR, { error: 'yaml: control characters are not allowed' }],
];

function ours(text: string): Answer {
  try {
    return { value: toJS(call(yamlBuiltins, 'yaml.unmarshal', [text]) as Value) };
  } catch (e) {
    if (e instanceof BuiltinError) return { error: e.message };
    throw e;
  }
}

describe('yaml.unmarshal as go-yaml v2 scans and parses', () => {
  it.each(OPA.map(([text, answer]) => [JSON.stringify(text).slice(0, 60), text, answer] as const))('%s', (_, text, answer) => {
    expect(ours(text)).toEqual(answer);
  });

  it('answers as yaml.is_valid does', () => {
    for (const [text, answer] of OPA) expect(call(yamlBuiltins, 'yaml.is_valid', [text]), text).toBe('value' in answer);
  });

  it('refuses collections nested deeper than this reader goes, saying so, instead of failing with a stack overflow', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    expect(ours(deep)).toEqual({ error: 'yaml: collections nested too deeply for this reader (a limit of ours, not of go-yaml)' });
    expect(call(yamlBuiltins, 'yaml.is_valid', [deep])).toBe(false);
    // Deep enough for the converter's own limit, not for the stack: the same refusal.
    expect(ours(`${'- '.repeat(2500)}a`)).toEqual({ error: 'yaml: collections nested too deeply for this reader (a limit of ours, not of go-yaml)' });
  });

  const pylib = oracleDir();
  it.skipIf(pylib === undefined)('records OPA v1.20.2 answers (checked against the oracle)', () => {
    const group = {
      modules: [['m.rego', 'package p\n\nv := yaml.unmarshal(input.s)\n'] as const],
      evals: OPA.map(([s]) => ({ query: 'x = data.p.v', input: JSON.stringify({ s }) })),
    };
    const answers = askOracle([group], pylib as string).map((l): Answer => {
      const env = JSON.parse(l) as { error?: { message: string }; result?: Array<{ bindings: { x: unknown } }> };
      if (env.error !== undefined) return { error: env.error.message.replace(/^[\s\S]*?yaml\.unmarshal: /, '') };
      return { value: env.result?.[0]?.bindings.x };
    });
    expect(answers).toEqual(OPA.map(([, a]) => a));
  });
});
