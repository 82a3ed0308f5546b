import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../../../runtime/policy/builtins/index.js';
import { jsonBuiltins } from '../../../runtime/policy/builtins/json.js';
import { yamlBuiltins } from '../../../runtime/policy/builtins/yaml.js';

const jsonYamlBuiltins = [...jsonBuiltins, ...yamlBuiltins];
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { fromJS, toJS } from '../../../runtime/policy/value-json.js';
import { RegoDecimal, RegoObject, RegoSet, type Value } from '../../../runtime/policy/value.js';
import { call, callError } from './builtin-test-kit.js';

const j = (name: string, ...args: Value[]): Value | undefined => call(jsonYamlBuiltins, name, args);
const err = (name: string, ...args: Value[]): string => callError(jsonYamlBuiltins, name, args).message;
const kind = (name: string, ...args: Value[]): string => callError(jsonYamlBuiltins, name, args).kind;
const js = (v: Value | undefined): unknown => (v === undefined ? undefined : toJS(v));

describe('json.marshal', () => {
  it("writes Go's compact JSON: sorted keys, sets as arrays", () => {
    expect(j('json.marshal', [RegoObject.fromEntries([['foo', RegoSet.of([3, 1, 2])]])])).toBe('[{"foo":[1,2,3]}]');
    expect(j('json.marshal', fromJS({ b: 1, a: [true, null, 'x'] }))).toBe('{"a":[true,null,"x"],"b":1}');
    expect(j('json.marshal', 'x')).toBe('"x"');
  });

  it('escapes as Go does (HTML characters, U+2028, control characters)', () => {
    expect(j('json.marshal', '<a href="x">&</a>')).toBe('"\\u003ca href=\\"x\\"\\u003e\\u0026\\u003c/a\\u003e"');
    expect(j('json.marshal', 'a\u2028b\u0001\t\n\b\f')).toBe('"a\\u2028b\\u0001\\t\\n\\b\\f"');
    expect(j('json.marshal', 'é😀/')).toBe('"é😀/"');
  });

  it('writes non-string keys as their JSON text and numbers exactly', () => {
    expect(
      j(
        'json.marshal',
        RegoObject.fromEntries([
          [1, 'a'],
          [[1, '<'], 'b'],
        ]),
      ),
    ).toBe('{"1":"a","[1,\\"\\\\u003c\\"]":"b"}');
    expect(j('json.marshal', [12345678901234567890n, 1.5, new RegoDecimal(1234567890123456789n, -19)])).toBe(
      '[12345678901234567890,1.5,0.1234567890123456789]',
    );
  });
});

describe('json.marshal_with_options', () => {
  const doc = fromJS({ a: [1, 2], b: {}, c: [] });

  it('pretty-prints with tabs by default, or with the given indent and prefix', () => {
    expect(j('json.marshal_with_options', doc, fromJS({ pretty: true }))).toBe('{\n\t"a": [\n\t\t1,\n\t\t2\n\t],\n\t"b": {},\n\t"c": []\n}');
    expect(j('json.marshal_with_options', fromJS({ a: [1] }), fromJS({ indent: '  ', prefix: '--' }))).toBe('--{\n--  "a": [\n--    1\n--  ]\n--}');
    expect(j('json.marshal_with_options', doc, fromJS({ indent: '  ', pretty: false }))).toBe('{"a":[1,2],"b":{},"c":[]}');
    expect(j('json.marshal_with_options', doc, new RegoObject())).toBe('{"a":[1,2],"b":{},"c":[]}');
  });

  it('rejects unknown or mistyped options', () => {
    expect(err('json.marshal_with_options', doc, fromJS({ foo: 1 }))).toBe('operand 2 object contained unknown key "foo"');
    expect(err('json.marshal_with_options', doc, fromJS({ pretty: 1 }))).toBe('operand 2 key pretty failed cast to bool');
    expect(err('json.marshal_with_options', doc, fromJS({ indent: 1 }))).toBe(
      'operand 2 key indent failed cast to string: operand 0 must be string but got number',
    );
    expect(err('json.marshal_with_options', doc, RegoObject.fromEntries([[1, 'x']]))).toBe(
      'operand 2 failed to stringify key 1 at index 0: operand 0 must be string but got number',
    );
    expect(err('json.marshal_with_options', doc, 'x')).toBe('operand 2 must be object but got string');
    expect(kind('json.marshal_with_options', doc, fromJS({ foo: 1 }))).toBe('type');
  });
});

describe('json.unmarshal', () => {
  it('reads values, keeping big numbers exact', () => {
    expect(js(j('json.unmarshal', '{"a": [1, 2.5, "x\\n\\u00e9"], "b": null, "c": true}'))).toEqual({ a: [1, 2.5, 'x\né'], b: null, c: true });
    expect(j('json.unmarshal', ' 12345678901234567890 ')).toBe(12345678901234567890n);
    expect(j('json.unmarshal', '0.1234567890123456789')).toEqual(new RegoDecimal(1234567890123456789n, -19));
    expect(j('json.unmarshal', '"plain"')).toBe('plain');
  });

  it("reports errors in Go's words", () => {
    expect(err('json.unmarshal', '{')).toBe('unexpected EOF');
    expect(err('json.unmarshal', '')).toBe('EOF');
    expect(err('json.unmarshal', 'plainstring')).toBe("invalid character 'p' looking for beginning of value");
    expect(err('json.unmarshal', 'foo')).toBe("invalid character 'o' in literal false (expecting 'a')");
    expect(err('json.unmarshal', '[1,]')).toBe("invalid character ']' looking for beginning of value");
    expect(err('json.unmarshal', '{"a" 1}')).toBe("invalid character '1' after object key");
    expect(err('json.unmarshal', '{"a": 1 "b": 2}')).toBe(`invalid character '"' after object key:value pair`);
    expect(err('json.unmarshal', '{1: 2}')).toBe("invalid character '1' looking for beginning of object key string");
    expect(err('json.unmarshal', '[1 2]')).toBe("invalid character '2' after array element");
    expect(err('json.unmarshal', '"a\tb"')).toBe("invalid character '\\t' in string literal");
    expect(err('json.unmarshal', '"\\x"')).toBe("invalid character 'x' in string escape code");
    expect(err('json.unmarshal', '-x')).toBe("invalid character 'x' in numeric literal");
    expect(err('json.unmarshal', '1.x')).toBe("invalid character 'x' after decimal point in numeric literal");
    expect(err('json.unmarshal', '1ex')).toBe("invalid character 'x' in exponent of numeric literal");
    expect(err('json.unmarshal', 'é')).toBe("invalid character 'Ã' looking for beginning of value");
  });

  it('checks what follows the value as Go’s decoder does', () => {
    expect(err('json.unmarshal', '1 2')).toBe("error: invalid character '2' after top-level value");
    expect(err('json.unmarshal', '{} {}')).toBe("error: invalid character '{' after top-level value");
    expect(err('json.unmarshal', '"a" "b"')).toBe("error: invalid character 'b' after top-level value");
    expect(err('json.unmarshal', '{} x')).toBe("invalid character 'x' looking for beginning of value");
    expect(err('json.unmarshal', '1 tru')).toBe('unexpected EOF');
    expect(err('json.unmarshal', '1]')).toBe("invalid character ']' looking for beginning of value");
    // Go's decoder lets a trailing null through.
    expect(j('json.unmarshal', '1 null')).toBe(1);
    expect(err('json.unmarshal', 1)).toBe('operand 1 must be string but got number');
  });
});

describe('json.is_valid', () => {
  it('validates JSON text; non-strings are invalid', () => {
    expect(j('json.is_valid', '{"json": "ok"}')).toBe(true);
    expect(j('json.is_valid', ' [1, 2] ')).toBe(true);
    expect(j('json.is_valid', 'plainstring')).toBe(false);
    expect(j('json.is_valid', '{')).toBe(false);
    expect(j('json.is_valid', '1 2')).toBe(false);
    expect(j('json.is_valid', '')).toBe(false);
    expect(j('json.is_valid', 1)).toBe(false);
  });
});

describe('yaml.marshal', () => {
  it("writes block YAML in go-yaml's layout", () => {
    expect(j('yaml.marshal', fromJS({ foo: 'bar' }))).toBe('foo: bar\n');
    expect(j('yaml.marshal', fromJS({ foo: [1, 2, 3] }))).toBe('foo:\n- 1\n- 2\n- 3\n');
    expect(j('yaml.marshal', [RegoObject.fromEntries([['foo', RegoSet.of([1, 2, 3])]])])).toBe('- foo:\n  - 1\n  - 2\n  - 3\n');
    expect(j('yaml.marshal', fromJS({ a: { b: [1, { c: 2, d: [[true, null]] }] }, e: {}, f: [] }))).toBe(
      'a:\n  b:\n  - 1\n  - c: 2\n    d:\n    - - true\n      - null\ne: {}\nf: []\n',
    );
    expect(j('yaml.marshal', 'plain')).toBe('plain\n');
    expect(j('yaml.marshal', [])).toBe('[]\n');
  });

  it('sorts keys naturally and formats numbers as go-yaml does', () => {
    expect(j('yaml.marshal', fromJS({ a10: 1, a9: 2, B: 3, b: 4 }))).toBe('B: 3\na9: 2\na10: 1\nb: 4\n');
    expect(j('yaml.marshal', [1.5, 1234567.5, 0.00001, 12345678901234567890n, 10n ** 30n])).toBe(
      '- 1.5\n- 1.2345675e+06\n- 1e-05\n- 12345678901234567890\n- 1e+30\n',
    );
  });

  it('quotes strings that would read back as something else', () => {
    const doc = fromJS({
      a: 'true',
      b: '',
      c: 'x: y',
      d: '123',
      e: '2020-01-01',
      f: 'yes',
      g: '- item',
      h: '#c',
      i: 'a #b',
      j: 'a# b',
      k: "it's",
      l: '1:20',
      m: 'null',
      n: 'é😀',
    });
    expect(j('yaml.marshal', doc)).toBe(
      'a: "true"\nb: ""\nc: \'x: y\'\nd: "123"\ne: "2020-01-01"\nf: "yes"\ng: \'- item\'\nh: \'#c\'\ni: \'a #b\'\nj: a# b\nk: it\'s\nl: "1:20"\nm: "null"\n"n": "é\\U0001F600"\n',
    );
    // `n` and `y` are booleans to YAML 1.1, so those keys are quoted too.
    expect(j('yaml.marshal', fromJS({ n: 1, y: 2 }))).toBe('"n": 1\n"y": 2\n');
  });

  it('writes multi-line strings as literal blocks', () => {
    expect(j('yaml.marshal', fromJS({ k: 'line 1\nline 2' }))).toBe('k: |-\n  line 1\n  line 2\n');
    expect(j('yaml.marshal', fromJS({ k: 'a\n', l: 'b\n\n' }))).toBe('k: |\n  a\nl: |+\n  b\n\n');
    expect(j('yaml.marshal', fromJS([' lead\nx']))).toBe('- |2-\n   lead\n  x\n');
    expect(j('yaml.marshal', fromJS({ k: 'trailing \nspace' }))).toBe('k: "trailing \\nspace"\n');
  });

  it('folds long lines at 80 columns', () => {
    const long = Array.from({ length: 30 }, () => 'word').join(' ');
    expect(j('yaml.marshal', fromJS({ k: long }))).toBe(
      `k: ${Array.from({ length: 16 }, () => 'word').join(' ')}\n  ${Array.from({ length: 14 }, () => 'word').join(' ')}\n`,
    );
  });
});

describe('yaml.unmarshal', () => {
  it('reads YAML 1.1 scalars as go-yaml v2 does', () => {
    const v = j('yaml.unmarshal', 'a: yes\nb: 0x1F\nc: 0777\nd: 2020-01-01\ne: 1.5\nf: ~\ng: off\nh: "yes"\ni: 1_000\nj: .5\nk: +12\nl: 0b101\nm: 1e3\n');
    expect(js(v)).toEqual({ a: true, b: 31, c: 511, d: '2020-01-01', e: 1.5, f: null, g: false, h: 'yes', i: 1000, j: 0.5, k: 12, l: 5, m: 1000 });
    expect(j('yaml.unmarshal', 'big: 12345678901234567890')).toEqual(RegoObject.fromEntries([['big', 12345678901234567890n]]));
    // `n` is false to YAML 1.1, so it becomes the key "false".
    expect(js(j('yaml.unmarshal', 'n: 1'))).toEqual({ false: 1 });
  });

  it('turns keys into strings and resolves aliases and merges', () => {
    expect(js(j('yaml.unmarshal', '1: a\ntrue: b\n1.5: c\n'))).toEqual({ '1': 'a', true: 'b', '1.5': 'c' });
    expect(js(j('yaml.unmarshal', 'base: &b {a: 1, b: 2}\nd:\n  <<: *b\n  b: 3\nl: &l [1, 2]\nm: *l\n'))).toEqual({
      base: { a: 1, b: 2 },
      d: { a: 1, b: 3 },
      l: [1, 2],
      m: [1, 2],
    });
    expect(js(j('yaml.unmarshal', 'a: !!str 123\nb: !!int "7"\nc: !!float 2\nd: !!binary aGVsbG8=\ne: !custom 12\n'))).toEqual({
      a: '123',
      b: 7,
      c: 2,
      d: 'hello',
      e: '12',
    });
    expect(err('yaml.unmarshal', 'a: &a\n  b: *a')).toBe("yaml: anchor 'a' value contains itself");
  });

  it('round-trips yaml.marshal', () => {
    const doc = [RegoObject.fromEntries([['foo', RegoSet.of([1, 2, 3])]]), 'yes', '', 'multi\nline\n', { a: 'x: y' }];
    const back = j('yaml.unmarshal', j('yaml.marshal', fromJS(doc)) as string);
    expect(js(back)).toEqual([{ foo: [1, 2, 3] }, 'yes', '', 'multi\nline\n', { a: 'x: y' }]);
  });

  // Each expectation below is OPA v1.20.2's answer (go-yaml v2 under sigs.k8s.io/yaml), checked with the differential oracle.
  it('reads the first document only, as go-yaml does: faults after it are not seen', () => {
    expect(js(j('yaml.unmarshal', 'a: 1\n---\nb: 2\n'))).toEqual({ a: 1 });
    expect(j('yaml.unmarshal', '')).toBe(null);
    expect(js(j('yaml.unmarshal', 'a: 1\n---\n\tb: 2\n'))).toEqual({ a: 1 });
    expect(js(j('yaml.unmarshal', 'a: 1\n---\nb: [\n'))).toEqual({ a: 1 });
    expect(js(j('yaml.unmarshal', 'a: 1\n---\nb: *zz\n'))).toEqual({ a: 1 });
    expect(err('yaml.unmarshal', 'a: .inf')).toBe('json: unsupported value: +Inf');
    expect(err('yaml.unmarshal', 'a: !!int abc')).toBe('yaml: cannot decode !!str `abc` as a !!int');
    expect(err('yaml.unmarshal', 1)).toBe('operand 1 must be string but got number');
  });

  it('refuses what go-yaml v2 refuses, in its words', () => {
    expect(err('yaml.unmarshal', 'a: *x\n')).toBe("yaml: unknown anchor 'x' referenced");
    expect(err('yaml.unmarshal', 'a: "\\/"\n')).toBe('yaml: found unknown escape character');
    expect(err('yaml.unmarshal', 'a: 1\nb: "x\\/"\n')).toBe('yaml: line 2: found unknown escape character');
    expect(err('yaml.unmarshal', '%YAML 2.0\n---\na: 1\n')).toBe('yaml: found incompatible YAML document');
    expect(err('yaml.unmarshal', '%YAML 1.2\n---\na: 1\n')).toBe('yaml: found incompatible YAML document');
    expect(err('yaml.unmarshal', '%YAML\n---\na: 1\n')).toBe('yaml: did not find expected version number');
    expect(err('yaml.unmarshal', '%Y\n')).toBe('yaml: found unknown directive name');
    expect(err('yaml.unmarshal', '[1e400\n')).toBe("yaml: line 1: did not find expected ',' or ']'");
    expect(err('yaml.unmarshal', '%YAML 1.1\n------\na\n')).toBe('yaml: line 1: did not find expected <document start>');
    expect(js(j('yaml.unmarshal', '"a",\n'))).toBe('a');
    expect(err('yaml.unmarshal', 'a: \u0001\n')).toBe('yaml: control characters are not allowed');
    expect(err('yaml.unmarshal', 'a: [1, 2\n')).toBe("yaml: line 1: did not find expected ',' or ']'");
    expect(err('yaml.unmarshal', 'a: b: c\n')).toBe('yaml: mapping values are not allowed in this context');
    expect(err('yaml.unmarshal', '- a\nb: 1\n')).toBe("yaml: line 1: did not find expected '-' indicator");
    expect(err('yaml.unmarshal', 'a:\n  - 1\n - 2\n')).toBe('yaml: line 2: did not find expected key');
    expect(err('yaml.unmarshal', "'abc\n")).toBe('yaml: line 2: found unexpected end of stream');
    expect(err('yaml.unmarshal', '@foo\n')).toBe('yaml: found character that cannot start any token');
    expect(err('yaml.unmarshal', '? [1,2]\n: 3\n')).toBe('yaml: invalid map key: []interface {}{1, 2}');
  });

  it('keeps the last of duplicate keys, and refuses a null key only where it survives, as sigs.k8s.io/yaml does', () => {
    expect(js(j('yaml.unmarshal', 'a: 1\na: 2\n'))).toEqual({ a: 2 });
    expect(js(j('yaml.unmarshal', 'a: {~: 1}\na: 2\n'))).toEqual({ a: 2 });
    expect(err('yaml.unmarshal', '~: {b: 1, 1: x, true: y, 1.5: z, a: 2, 18446744073709551615: u, -1: n}\n')).toBe(
      'unsupported map key of type: %!s(<nil>), key: <nil>, value: map[interface {}]interface {}{"a":2, "b":1, 0xffffffffffffffff:"u", -1:false, 1:"x", 1.5:"z", true:true}',
    );
    expect(err('yaml.unmarshal', "~: [1, 1e21, ~, 'a\"\\t', -.inf]\n")).toBe(
      'unsupported map key of type: %!s(<nil>), key: <nil>, value: []interface {}{1, 1e+21, interface {}(nil), "a\\"\\\\t", -Inf}',
    );
  });
});

describe('yaml.is_valid', () => {
  it('validates the first document, as yaml.unmarshal reads it', () => {
    expect(j('yaml.is_valid', 'foo:\n - qux: bar\n - baz: 2')).toBe(true);
    expect(j('yaml.is_valid', 'foo:\n - qux: bar\n - baz: {')).toBe(false);
    expect(j('yaml.is_valid', '{"json": "ok"}')).toBe(true);
    // go-yaml's first document ends at the top-level line: OPA v1.20.2 answers true (a later OPA's conformance case expects false).
    expect(j('yaml.is_valid', '  test:\ntest1: hello\n')).toBe(true);
    expect(j('yaml.is_valid', 'a: 1\n---\n\tb: 2\n')).toBe(true);
    expect(j('yaml.is_valid', 'a: *x\n')).toBe(false);
    expect(j('yaml.is_valid', '~: 1\n')).toBe(false);
    expect(j('yaml.is_valid', 'a: 1\n---\nb: 2\n')).toBe(true);
    expect(j('yaml.is_valid', 1)).toBe(false);
  });
});

describe('json and yaml builtins in a policy', () => {
  const policy = compilePolicy({
    modules: {
      'p.rego': `package p

doc := json.unmarshal(input.body)
text := json.marshal({"b": doc.b, "a": {1, 2}})
yaml_text := yaml.marshal({"foo": {1, 2, 3}})
round := yaml.unmarshal(yaml_text)
valid := [json.is_valid(x) | some x in ["{", "{}"]]
`,
    },
    builtins: createDefaultRegistry().registerAll(jsonYamlBuiltins),
  });

  it('evaluates the builtins', () => {
    const input = { body: '{"b": [true], "big": 123456789012345678901}' };
    expect(toJS(policy.evaluate('p.doc', input) as Value)).toEqual({ b: [true], big: 123456789012345678901n });
    expect(policy.evaluate('p.text', input)).toBe('{"a":[1,2],"b":[true]}');
    expect(policy.evaluate('p.yaml_text')).toBe('foo:\n- 1\n- 2\n- 3\n');
    expect(toJS(policy.evaluate('p.round') as Value)).toEqual({ foo: [1, 2, 3] });
    expect(toJS(policy.evaluate('p.valid') as Value)).toEqual([false, true]);
    expect(() => policy.query('x := json.unmarshal("{")', { strictBuiltinErrors: true })).toThrow(/json\.unmarshal: unexpected EOF/);
  });
});
