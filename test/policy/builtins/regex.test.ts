import { describe, expect, it } from 'vitest';
import { createDefaultRegistry } from '../../../runtime/policy/builtins/index.js';
import { regexBuiltins } from '../../../runtime/policy/builtins/regex.js';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { toJS } from '../../../runtime/policy/value-json.js';
import type { Value } from '../../../runtime/policy/value.js';
import { call, callError, fakeContext } from './builtin-test-kit.js';

const r = (name: string, ...args: Value[]): Value | undefined => call(regexBuiltins, name, args);
const err = (name: string, ...args: Value[]): string => callError(regexBuiltins, name, args).message;
const kind = (name: string, ...args: Value[]): string => callError(regexBuiltins, name, args).kind;

describe('regex.match', () => {
  it('matches anywhere in the string, with RE2 syntax', () => {
    expect(r('regex.match', '^[a-z]+\\[[0-9]+\\]$', 'foo[1]')).toBe(true);
    expect(r('regex.match', '^$', '')).toBe(true);
    expect(r('regex.match', '', 'x')).toBe(true);
    expect(r('regex.match', '^$', 'something')).toBe(false);
    expect(r('regex.match', 'b', 'abc')).toBe(true);
    expect(r('regex.match', '(?i)^ABC$', 'abc')).toBe(true);
    expect(r('regex.match', '^a\\z', 'a')).toBe(true);
    expect(r('regex.match', '^\\pL+$', 'héllo')).toBe(true);
    expect(r('regex.match', '^[[:digit:]]+$', '123')).toBe(true);
  });

  it('treats $ as the end of the text and . as not matching a newline, as Go does', () => {
    expect(r('regex.match', '^a$', 'a\n')).toBe(false);
    expect(r('regex.match', '^a.b$', 'a\nb')).toBe(false);
    expect(r('regex.match', '(?s)^a.b$', 'a\nb')).toBe(true);
    expect(r('regex.match', '(?m)^b$', 'a\nb')).toBe(true);
  });

  it('reports invalid patterns as Go does, including JS-only syntax', () => {
    expect(err('regex.match', '$^[[[', 'something')).toBe('error parsing regexp: missing closing ]: `[[[`');
    expect(err('regex.match', '(?=a)', 'a')).toBe('error parsing regexp: invalid or unsupported Perl syntax: `(?=`');
    expect(err('regex.match', '(a)\\1', 'aa')).toBe('error parsing regexp: invalid escape sequence: `\\1`');
    expect(err('regex.match', 'a**', 'a')).toBe('error parsing regexp: invalid nested repetition operator: `**`');
    expect(kind('regex.match', '[', 'a')).toBe('builtin');
  });

  it('checks operand types', () => {
    expect(err('regex.match', 1, 'a')).toBe('operand 1 must be string but got number');
    expect(err('regex.match', 'a', null)).toBe('operand 2 must be string but got null');
    expect(kind('regex.match', 'a', null)).toBe('type');
  });

  it('has the deprecated alias re_match', () => {
    expect(r('re_match', '^a+$', 'aaa')).toBe(true);
    expect(r('re_match', '^a+$', 'b')).toBe(false);
  });

  it('caches compiled patterns under a namespaced key', () => {
    const ctx = fakeContext();
    expect(call(regexBuiltins, 'regex.match', ['^x+$', 'xx'], ctx)).toBe(true);
    expect(call(regexBuiltins, 'regex.match', ['^x+$', 'y'], ctx)).toBe(false);
    expect([...ctx.cache.keys()]).toEqual(['regex:^x+$']);
  });
});

describe('regex.is_valid', () => {
  it('is false for invalid patterns and non-strings', () => {
    expect(r('regex.is_valid', '.*')).toBe(true);
    expect(r('regex.is_valid', '(?P<name>a)|(?<other>b)')).toBe(true);
    expect(r('regex.is_valid', '[a-')).toBe(false);
    expect(r('regex.is_valid', '(?<=a)b')).toBe(false);
    expect(r('regex.is_valid', 'a{1001}')).toBe(false);
    expect(r('regex.is_valid', 1)).toBe(false);
  });
});

describe('regex.find_n', () => {
  it('returns up to n matches; n < 0 means all', () => {
    expect(r('regex.find_n', 'a.', 'a1a2a3', 2)).toEqual(['a1', 'a2']);
    expect(r('regex.find_n', 'a.', 'a1a2a3', -1)).toEqual(['a1', 'a2', 'a3']);
    expect(r('regex.find_n', 'a.', 'a1a2a3', 0)).toEqual([]);
    expect(r('regex.find_n', 'z', 'abc', -1)).toEqual([]);
  });

  it('follows Go for empty matches and steps over whole code points', () => {
    expect(r('regex.find_n', 'x*', 'abc', -1)).toEqual(['', '', '', '']);
    expect(r('regex.find_n', 'a*', 'baaac', -1)).toEqual(['', 'aaa', '']);
    expect(r('regex.find_n', '.', '😀a', -1)).toEqual(['😀', 'a']);
  });

  it('needs an integer count', () => {
    expect(err('regex.find_n', 'a', 'a', 1.5)).toBe('operand 3 must be integer number but got floating-point number');
    expect(err('regex.find_n', 'a', 'a', '1')).toBe('operand 3 must be number but got string');
  });
});

describe('regex.find_all_string_submatch_n', () => {
  it('returns each match with its groups; a group that did not take part is empty', () => {
    expect(r('regex.find_all_string_submatch_n', 'a(x*)b', '-ab-axxb-', -1)).toEqual([
      ['ab', ''],
      ['axxb', 'xx'],
    ]);
    expect(r('regex.find_all_string_submatch_n', '(a)|(b)', 'ab', -1)).toEqual([
      ['a', 'a', ''],
      ['b', '', 'b'],
    ]);
    expect(r('regex.find_all_string_submatch_n', '([a-z]+)=([0-9]+)', 'a=1 b=2 c=3', 2)).toEqual([
      ['a=1', 'a', '1'],
      ['b=2', 'b', '2'],
    ]);
  });
});

describe('regex.replace', () => {
  it('replaces every match', () => {
    expect(r('regex.replace', '-wy-wxxy-', 'w(x*)y', '0')).toBe('-0-0-');
    expect(r('regex.replace', 'abc', 'x*', '-')).toBe('-a-b-c-');
    expect(r('regex.replace', 'abc', 'z', '-')).toBe('abc');
  });

  it("expands Go's templates, not JavaScript's", () => {
    expect(r('regex.replace', 'foo', '(foo)', '$1$1')).toBe('foofoo');
    expect(r('regex.replace', 'a=1', '(?P<k>\\w)=(?P<v>\\d)', '${v}=${k}')).toBe('1=a');
    expect(r('regex.replace', 'ab', '(a)', '$$1')).toBe('$1b');
    // `$1x` names a group `1x` (none here), so it expands to nothing.
    expect(r('regex.replace', 'ab', '(a)', '$1x')).toBe('b');
    expect(r('regex.replace', 'ab', '(a)', '${1}x')).toBe('axb');
    // JavaScript's `$&` is not special in Go.
    expect(r('regex.replace', 'ab', 'a', '[$&]')).toBe('[$&]b');
  });

  it('reports a bad pattern', () => {
    expect(err('regex.replace', 'foo', '[', '$1')).toBe('error parsing regexp: missing closing ]: `[`');
    expect(err('regex.replace', 'foo', 'a', 1)).toBe('operand 3 must be string but got number');
  });
});

describe('regex.split', () => {
  it("splits around matches as Go's Regexp.Split does", () => {
    expect(r('regex.split', '^[a-z]+\\[[0-9]+\\]$', '')).toEqual(['']);
    expect(r('regex.split', '^[a-z]+', 'foobar baz')).toEqual(['', ' baz']);
    expect(r('regex.split', '[a-z]+$', 'foobar baz')).toEqual(['foobar ', '']);
    expect(r('regex.split', '^[a-z]+$', 'foobar baz')).toEqual(['foobar baz']);
    expect(r('regex.split', '^[a-z ]+$', 'foobar baz')).toEqual(['', '']);
    expect(r('regex.split', 'z+', 'pizza')).toEqual(['pi', 'a']);
    expect(r('regex.split', 'x*', 'axbc')).toEqual(['a', 'b', 'c']);
    expect(r('regex.split', '', '')).toEqual([]);
  });
});

describe('regex.template_match', () => {
  it('matches templates whose delimited parts are patterns', () => {
    expect(r('regex.template_match', 'urn:foo:{.*}', 'urn:foo:bar:baz', '{', '}')).toBe(true);
    expect(r('regex.template_match', 'urn:foo:{.*}', 'urn:bar:baz', '{', '}')).toBe(false);
    expect(r('regex.template_match', 'urn:foo.bar:<[0-9]{2}>', 'urn:foo.bar:42', '<', '>')).toBe(true);
    // Text outside the delimiters is literal.
    expect(r('regex.template_match', 'urn:foo.bar:<[0-9]{2}>', 'urn:fooxbar:42', '<', '>')).toBe(false);
  });

  it('reports malformed templates and delimiters', () => {
    expect(err('regex.template_match', 'urn:foo:{.*', 'x', '{', '}')).toBe('unbalanced braces in "urn:foo:{.*"');
    expect(err('regex.template_match', 'a<[>', 'x', '<', '>')).toBe('error parsing regexp: missing closing ]: `[$`');
    expect(err('regex.template_match', 'a', 'x', '<<', '>')).toBe('start delimiter has to be exactly one character long but is 2 long');
    // OPA reports the start delimiter's length here too.
    expect(err('regex.template_match', 'a', 'x', '<', '>>')).toBe('end delimiter has to be exactly one character long but is 1 long');
  });
});

describe('regex.globs_match', () => {
  it('tells whether two regex-like globs share a non-empty string', () => {
    expect(r('regex.globs_match', 'a.a.[0-9]+z', '.b.b2359825792*594823z')).toBe(true);
    expect(r('regex.globs_match', '[a-z]+', '[0-9]*')).toBe(false);
    expect(r('regex.globs_match', 'a.', 'ab')).toBe(true);
    expect(r('regex.globs_match', 'a*b', 'aaab')).toBe(true);
    expect(r('regex.globs_match', 'a*b', 'aaac')).toBe(false);
    expect(r('regex.globs_match', 'xa+', 'xaaa')).toBe(true);
    expect(r('regex.globs_match', '\\.', '.')).toBe(true);
    expect(r('regex.globs_match', '\\.', 'a')).toBe(false);
  });

  it('reports malformed globs as the library does', () => {
    expect(err('regex.globs_match', '[a', 'a')).toBe('input:[a, pos:2, found [ without matching ]: the input provided is invalid');
    expect(err('regex.globs_match', 'a', '*a')).toBe("input:*a, pos:1, flag '*' must be preceded by a non-flag: the input provided is invalid");
    expect(err('regex.globs_match', 'a\\', 'a')).toBe('input:a\\, pos:1, input ends with a \\ (escape) character: the input provided is invalid');
    expect(err('regex.globs_match', '[z-a]', 'a')).toBe(
      "input:[z-a], pos:4, range is out of order: 'a' comes before 'z' in Unicode: the input provided is invalid",
    );
  });
});

describe('regex builtins in a policy', () => {
  const registry = createDefaultRegistry().registerAll(regexBuiltins);
  const policy = compilePolicy({
    modules: {
      'p.rego': `package p

ok if regex.match("^[a-z]+$", input.name)
parts := regex.split(",\\\\s*", input.csv)
masked := regex.replace(input.name, "[aeiou]", "*")
bad := regex.match("[", "x")
`,
    },
    builtins: registry,
  });

  it('evaluates the builtins', () => {
    const input = { name: 'alice', csv: 'a, b,c' };
    expect(policy.evaluate('p.ok', input)).toBe(true);
    expect(toJS(policy.evaluate('p.parts', input) as Value)).toEqual(['a', 'b', 'c']);
    expect(policy.evaluate('p.masked', input)).toBe('*l*c*');
    expect(policy.evaluate('p.ok', { name: 'Alice' })).toBeUndefined();
  });

  it('makes a bad pattern undefined, or an error in strict mode', () => {
    expect(policy.evaluate('p.bad')).toBeUndefined();
    expect(() => policy.query('data.p.bad = x', { strictBuiltinErrors: true })).toThrow(
      /eval_builtin_error: regex\.match: error parsing regexp: missing closing \]: `\[`/,
    );
  });
});
