import { describe, expect, it } from 'vitest';
import { globBuiltins, globToRegex } from '../../../runtime/policy/builtins/glob.js';
import { createDefaultRegistry } from '../../../runtime/policy/builtins/index.js';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import type { Value } from '../../../runtime/policy/value.js';
import { call, callError, fakeContext } from './builtin-test-kit.js';

const match = (pattern: string, delimiters: Value, subject: string): Value | undefined => call(globBuiltins, 'glob.match', [pattern, delimiters, subject]);
const err = (pattern: Value, delimiters: Value, subject: Value): string => callError(globBuiltins, 'glob.match', [pattern, delimiters, subject]).message;

describe('glob.match delimiters', () => {
  it('uses ["."] for an empty list and no delimiters for null', () => {
    expect(match('*.github.com', [], 'api.github.com')).toBe(true);
    expect(match('*.github.com', [], 'api.cdn.github.com')).toBe(false);
    expect(match('*hub.com', null, 'api.cdn.github.com')).toBe(true);
    expect(match('*', null, 'foo.bar')).toBe(true);
    expect(match('foo*', null, 'foo.bar')).toBe(true);
    expect(match('*', [], 'foo.bar')).toBe(false);
  });

  it('keeps * and ? within delimiters; ** crosses them', () => {
    expect(match('*:github:com', [':'], 'api:github:com')).toBe(true);
    expect(match('api.**.com', [], 'api.cdn.github.com')).toBe(true);
    expect(match('api.*.com', [], 'api.cdn.github.com')).toBe(false);
    expect(match('?at', ['f'], 'fat')).toBe(false);
    expect(match('?at', ['f'], 'cat')).toBe(true);
    expect(match('*?*', ['.', '/'], 'api.github.com')).toBe(false);
    expect(match('*?*', ['.', '/'], 'abc')).toBe(true);
    expect(match('*', ['.', '/'], 'a/b')).toBe(false);
    expect(match('*', null, 'a\nb')).toBe(true);
  });

  it('checks the delimiters operand', () => {
    expect(err('*', '.', 'a')).toBe('operand 2 must be one of {array, null} but got string');
    expect(err('*', [1], 'a')).toBe('operand 2 must be array of strings but got array containing number');
    expect(err('*', ['ab'], 'a')).toBe('operand 2 must be array of runes but got array containing string');
    expect(err(1, null, 'a')).toBe('operand 1 must be string but got number');
    expect(err('*', null, 1)).toBe('operand 3 must be string but got number');
  });
});

describe('glob.match syntax', () => {
  it('matches character lists, ranges and their negations', () => {
    expect(match('[abc]at', [], 'cat')).toBe(true);
    expect(match('[abc]at', [], 'fat')).toBe(false);
    expect(match('[!abc]at', [], 'fat')).toBe(true);
    expect(match('[!abc]at', [], 'cat')).toBe(false);
    expect(match('[a-c]at', [], 'bat')).toBe(true);
    expect(match('[a-c]at', [], 'fat')).toBe(false);
    expect(match('[!a-c]at', [], 'fat')).toBe(true);
    expect(match('[!0-9]', null, '')).toBe(false);
    // A class is not limited by the delimiters.
    expect(match('a[.]b', [], 'a.b')).toBe(true);
  });

  it('matches alternatives, including empty ones', () => {
    expect(match('{cat,bat,[fr]at}', [], 'bat')).toBe(true);
    expect(match('{cat,bat,[fr]at}', [], 'fat')).toBe(true);
    expect(match('{cat,bat,[fr]at}', [], 'at')).toBe(false);
    expect(match('{**/,}x', null, 'x')).toBe(true);
    expect(match('{**/,}x', null, 'a/b/x')).toBe(true);
    expect(match('a{b,c{d,e}}f', null, 'acef')).toBe(true);
    // Outside a group, `,` and `}` are plain characters.
    expect(match('a,b}', null, 'a,b}')).toBe(true);
  });

  it('never lets a wildcard swallow a literal of the pattern', () => {
    expect(match('?', null, '')).toBe(false);
    expect(match('a/*/b', null, 'a/b')).toBe(false);
    expect(match('a/*/b', null, 'a/x/b')).toBe(true);
    expect(match('a/**/b', null, 'a/b')).toBe(false);
    expect(match('a/**/b', null, 'a//b')).toBe(true);
    expect(match('**/x', null, 'x')).toBe(false);
    expect(match('***', ['.'], '')).toBe(true);
  });

  it('treats escaped characters literally and works on code points', () => {
    expect(match('\\*', null, '*')).toBe(true);
    expect(match('\\*', null, 'a')).toBe(false);
    expect(match('a\\{b\\}', null, 'a{b}')).toBe(true);
    expect(match('?', null, '😀')).toBe(true);
    expect(match('a.b', null, 'axb')).toBe(false);
  });

  it('reports malformed patterns as gobwas/glob does (offsets in UTF-8 bytes)', () => {
    expect(err('{a,b', null, 'abc')).toBe('glob: syntax error at 4: unclosed `{`');
    expect(err('a\\', null, 'abc')).toBe('glob: syntax error at 2: trailing backslash');
    expect(err('\\', null, 'abc')).toBe('glob: syntax error at 1: trailing backslash');
    expect(err('[]', null, 'abc')).toBe('glob: syntax error at 2: could not parse range');
    expect(err('[abc', null, 'abc')).toBe('glob: syntax error at 4: unexpected end of input');
    expect(err('[c-a]', null, 'abc')).toBe('glob: syntax error at 5: range hi character is less than lo');
    expect(err('é{', null, 'abc')).toBe('glob: syntax error at 3: unclosed `{`');
    expect(err('[a-bc]', null, 'abc')).toBe('glob: syntax error at 5: expected close range character');
  });

  it('compiles to an anchored RE2 pattern and caches it', () => {
    expect(globToRegex('a*', ['.'])).toBe('\\A(?:a[^\\x{2e}]*)\\z');
    const ctx = fakeContext();
    call(globBuiltins, 'glob.match', ['a*', null, 'ab'], ctx);
    call(globBuiltins, 'glob.match', ['a*', null, 'ac'], ctx);
    call(globBuiltins, 'glob.match', ['a*', [], 'ac'], ctx);
    expect(ctx.cache.size).toBe(2);
  });
});

describe('glob.quote_meta', () => {
  it('escapes the glob metacharacters', () => {
    expect(call(globBuiltins, 'glob.quote_meta', ['*.github.com'])).toBe('\\*.github.com');
    expect(call(globBuiltins, 'glob.quote_meta', ['[a]{b,c}?\\'])).toBe('\\[a\\]\\{b,c\\}\\?\\\\');
    const quoted = call(globBuiltins, 'glob.quote_meta', ['a*{b}']) as string;
    expect(match(quoted, null, 'a*{b}')).toBe(true);
    expect(match(quoted, null, 'axxb')).toBe(false);
  });
});

describe('glob builtins in a policy', () => {
  const policy = compilePolicy({
    modules: {
      'p.rego': `package p

allowed if glob.match("api.*.example.com", [], input.host)
any_path if glob.match("/v1/**", ["/"], input.path)
bad := glob.match("{a", null, "a")
`,
    },
    builtins: createDefaultRegistry().registerAll(globBuiltins),
  });

  it('evaluates glob.match', () => {
    expect(policy.evaluate('p.allowed', { host: 'api.eu.example.com' })).toBe(true);
    expect(policy.evaluate('p.allowed', { host: 'api.eu.west.example.com' })).toBeUndefined();
    expect(policy.evaluate('p.any_path', { path: '/v1/a/b' })).toBe(true);
    expect(() => policy.query('data.p.bad = x', { strictBuiltinErrors: true })).toThrow(/glob\.match: glob: syntax error at 2: unclosed `\{`/);
  });
});
