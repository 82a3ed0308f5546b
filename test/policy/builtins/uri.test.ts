/**
 * `uri.parse` and `uri.is_valid`: every expectation below is what OPA v1.20.2
 * answered (the differential oracle), Go's net/url.Parse behind both.
 */
import { describe, expect, it } from 'vitest';
import { uriBuiltins } from '../../../runtime/policy/builtins/uri.js';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { PolicyError } from '../../../runtime/policy/errors.js';
import { toJS } from '../../../runtime/policy/value-json.js';
import type { Value } from '../../../runtime/policy/value.js';
import { call, callError } from './builtin-test-kit.js';

const parse = (s: Value): Record<string, string> => toJS(call(uriBuiltins, 'uri.parse', [s]) as Value) as Record<string, string>;
const parseError = (s: string): string => callError(uriBuiltins, 'uri.parse', [s]).message;
const valid = (s: Value): Value | undefined => call(uriBuiltins, 'uri.is_valid', [s]);

describe('uri.parse', () => {
  it('reports the non-empty parts, never the userinfo', () => {
    expect(parse('http://u:p@x.com:80/a%20b?q=1#f')).toEqual({
      fragment: 'f',
      hostname: 'x.com',
      path: '/a b',
      port: '80',
      raw_path: '/a b',
      raw_query: 'q=1',
      scheme: 'http',
    });
    expect(parse('HTTP://X.COM/')).toEqual({ hostname: 'X.COM', path: '/', raw_path: '/', scheme: 'http' });
    expect(parse('')).toEqual({});
    expect(parse('?')).toEqual({});
    expect(parse('#')).toEqual({});
    expect(parse('http://x?')).toEqual({ hostname: 'x', scheme: 'http' });
    expect(parse('http://:80')).toEqual({ port: '80', scheme: 'http' });
    expect(parse('http://x@')).toEqual({ scheme: 'http' });
    expect(parse('http://x:/')).toEqual({ hostname: 'x', path: '/', raw_path: '/', scheme: 'http' });
  });

  it('gives raw_path as written, or the decoded path when writing it back gives the same text', () => {
    expect(parse('http://x/a%2fb')).toEqual({ hostname: 'x', path: '/a/b', raw_path: '/a%2fb', scheme: 'http' });
    expect(parse('/a%2bb')).toEqual({ path: '/a+b', raw_path: '/a%2bb' });
    expect(parse('/a%21b')).toEqual({ path: '/a!b', raw_path: '/a!b' });
    expect(parse('/a%00b')).toEqual({ path: '/a\u0000b', raw_path: '/a\u0000b' });
    expect(parse('/%ff')).toEqual({ path: '/\ufffd', raw_path: '/%ff' });
    expect(parse('/%e6%97')).toEqual({ path: '/\ufffd\ufffd', raw_path: '/%e6%97' });
    expect(parse('http://é.com/ü?ö#ä')).toEqual({ fragment: 'ä', hostname: 'é.com', path: '/ü', raw_path: '/ü', raw_query: 'ö', scheme: 'http' });
  });

  it('reads opaque URLs, relative references and authorities without a scheme', () => {
    expect(parse('mailto:a@b')).toEqual({ scheme: 'mailto' });
    expect(parse('mailto:x?y#z')).toEqual({ fragment: 'z', raw_query: 'y', scheme: 'mailto' });
    expect(parse('a:b/c')).toEqual({ scheme: 'a' });
    expect(parse('a b')).toEqual({ path: 'a b', raw_path: 'a b' });
    expect(parse('./a:b')).toEqual({ path: './a:b', raw_path: './a:b' });
    expect(parse('*')).toEqual({ path: '*', raw_path: '*' });
    expect(parse('//x/y')).toEqual({ hostname: 'x', path: '/y', raw_path: '/y' });
    expect(parse('///x/y')).toEqual({ path: '///x/y', raw_path: '///x/y' });
    expect(parse('http:///a')).toEqual({ path: '/a', raw_path: '/a', scheme: 'http' });
    expect(parse('a??')).toEqual({ path: 'a', raw_path: 'a', raw_query: '?' });
    expect(parse('http://x#a#b')).toEqual({ fragment: 'a#b', hostname: 'x', scheme: 'http' });
    // Control bytes are refused before the fragment only.
    expect(parse('http://x#\u0001')).toEqual({ fragment: '\u0001', hostname: 'x', scheme: 'http' });
  });

  it('reads hosts: IPv6 literals with zones, escapes, ports, and colons outside http(s)', () => {
    expect(parse('http://[::1]:8080/p')).toEqual({ hostname: '::1', path: '/p', port: '8080', raw_path: '/p', scheme: 'http' });
    expect(parse('http://[fe80::1%25en0]:80/')).toEqual({ hostname: 'fe80::1%en0', path: '/', port: '80', raw_path: '/', scheme: 'http' });
    expect(parse('http://[fe80::1%25en%200]/').hostname).toBe('fe80::1%en 0');
    expect(parse('http://[fe80::1%25a%3a1]/').hostname).toBe('fe80::1%a:1');
    expect(parse('http://[::ffff:1.2.3.4]:0/')).toEqual({ hostname: '::ffff:1.2.3.4', path: '/', port: '0', raw_path: '/', scheme: 'http' });
    expect(parse('http://[::1]:/').port).toBeUndefined();
    expect(parse('http://%c3%a9/').hostname).toBe('é');
    expect(parse('http://x%25y:1')).toEqual({ hostname: 'x%y', port: '1', scheme: 'http' });
    expect(parse('http://x:99999').port).toBe('99999');
    expect(parse("http://x!$&'()*+,;=/").hostname).toBe("x!$&'()*+,;=");
    expect(parse('http://x<y>/').hostname).toBe('x<y>');
    expect(parse('http://a@b@[::1]/').hostname).toBe('::1');
    expect(parse('foo://a:1:2/')).toEqual({ hostname: 'a:1', path: '/', port: '2', raw_path: '/', scheme: 'foo' });
    expect(parse('//::1/')).toEqual({ hostname: ':', path: '/', port: '1', raw_path: '/' });
  });

  it("refuses what Go refuses, in Go's words", () => {
    expect(parseError('::')).toBe('parse "::": missing protocol scheme');
    expect(parseError('%zz')).toBe('parse "%zz": invalid URL escape "%zz"');
    expect(parseError(' http://x')).toBe('parse " http://x": first path segment in URL cannot contain colon');
    expect(parseError('1http://x')).toBe('parse "1http://x": first path segment in URL cannot contain colon');
    expect(parseError('http://x y')).toBe('parse "http://x y": invalid character " " in host name');
    expect(parseError('http://x\\y/')).toBe('parse "http://x\\\\y/": invalid character "\\\\" in host name');
    expect(parseError('http://x:abc')).toBe('parse "http://x:abc": invalid port ":abc" after host');
    expect(parseError('http://x:1é/')).toBe('parse "http://x:1é/": invalid port ":1é" after host');
    expect(parseError('http://[::1')).toBe('parse "http://[::1": missing \']\' in host');
    expect(parseError('http://[::1]x/')).toBe('parse "http://[::1]x/": invalid port "x" after host');
    expect(parseError('http://a[b]/')).toBe('parse "http://a[b]/": invalid IP-literal');
    expect(parseError('http://[1.2.3.4]/')).toBe('parse "http://[1.2.3.4]/": invalid IP-literal');
    expect(parseError('http://%41/')).toBe('parse "http://%41/": invalid URL escape "%41"');
    expect(parseError('http://a b@c/')).toBe('parse "http://a b@c/": net/url: invalid userinfo');
    expect(parseError('http://é@x/')).toBe('parse "http://é@x/": net/url: invalid userinfo');
    expect(parseError('http://a%zz@b/')).toBe('parse "http://a%zz@b/": invalid URL escape "%zz"');
    expect(parseError('http://x.com/a\u0000')).toBe('parse "http://x.com/a\\x00": net/url: invalid control character in URL');
    // The fragment's error quotes the whole text; the rest quote the text before `#`.
    expect(parseError('http://x/#%zz')).toBe('parse "http://x/#%zz": invalid URL escape "%zz"');
    expect(parseError('http://x/%zz#f')).toBe('parse "http://x/%zz": invalid URL escape "%zz"');
    // Go quotes an escape's three bytes, a cut character included.
    expect(parseError('http://x/%a日')).toBe('parse "http://x/%a日": invalid URL escape "%a\\xe6"');
    expect(parseError('http://x/%é')).toBe('parse "http://x/%é": invalid URL escape "%é"');
  });

  it('refuses a second colon in an http(s) host (Go 1.26)', () => {
    expect(parseError('http://localhost:80:80/')).toBe('parse "http://localhost:80:80/": invalid port ":80:80" after host');
    expect(parseError('http://::1/')).toBe('parse "http://::1/": invalid port "::1" after host');
    expect(parseError('HTTP://a:1:2/')).toBe('parse "HTTP://a:1:2/": invalid port ":1:2" after host');
  });

  it('checks a bracketed host as netip.ParseAddr does, with its reasons', () => {
    const host = (h: string): string => parseError(`http://[${h}]/`).replace(/^parse "[^"]*": /, '');
    expect(host('example.com')).toBe('invalid host: ParseAddr("example.com"): unexpected character (at "example.com")');
    expect(host('')).toBe('invalid host: ParseAddr(""): unable to parse IP');
    expect(host(':')).toBe('invalid host: ParseAddr(":"): each colon-separated field must have at least one digit (at ":")');
    expect(host('::1%25')).toBe('invalid host: ParseAddr("::1%"): zone must be a non-empty string');
    expect(host('1::2::3')).toBe('invalid host: ParseAddr("1::2::3"): multiple :: in address (at ":3")');
    expect(host('12345::')).toBe('invalid host: ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")');
    expect(host('1:2:3:4:5:6:7:8:9')).toBe('invalid host: ParseAddr("1:2:3:4:5:6:7:8:9"): trailing garbage after address (at "9")');
    expect(host('1:2:3:4:5:6:7')).toBe('invalid host: ParseAddr("1:2:3:4:5:6:7"): address string too short');
    expect(host('1:2:3:4:5:6:7:8::')).toBe('invalid host: ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros');
    expect(host('::1.2.3')).toBe('invalid host: ParseAddr("::1.2.3"): IPv4 address too short');
    expect(host('::1.2.3.04')).toBe('invalid host: ParseAddr("::1.2.3.04"): IPv4 field has octet with leading zero');
    expect(host('::1.2.3.256')).toBe('invalid host: ParseAddr("::1.2.3.256"): IPv4 field has value >255');
    expect(host('1:2:3:4:5:1.2.3.4')).toBe(
      'invalid host: ParseAddr("1:2:3:4:5:1.2.3.4"): embedded IPv4 address must replace the final 2 fields of the address (at "1.2.3.4")',
    );
    expect(host('::1:')).toBe('invalid host: ParseAddr("::1:"): colon must be followed by more characters (at ":")');
    expect(host('::1x')).toBe('invalid host: ParseAddr("::1x"): unexpected character, want colon (at "x")');
    expect(host('1..2.3')).toBe('invalid host: ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")');
    expect(host('1.2.3.4.5')).toBe('invalid host: ParseAddr("1.2.3.4.5"): IPv4 address too long');
    expect(host('1.2.3.4%25x')).toBe('invalid host: ParseAddr("1.2.3.4%x"): unexpected character (at "%x")');
    // Escaped bytes reach ParseAddr undecoded as text: Go quotes them as \xNN.
    expect(host('%ff')).toBe('invalid host: ParseAddr("\\xff"): unable to parse IP');
    expect(host('::%ffz')).toBe('invalid host: ParseAddr("::\\xffz"): each colon-separated field must have at least one digit (at "\\xffz")');
    // Zones: escapes of what a host may hold, or a space; never a raw space.
    expect(host('::1%en0')).toBe('invalid URL escape "%en"');
    expect(host('fe80::1%25%0a')).toBe('invalid URL escape "%0a"');
    expect(host('fe80::1%25%2f')).toBe('invalid URL escape "%2f"');
    expect(host('fe80::1%25en 0')).toBe('invalid character " " in host name');
  });

  it('reads long texts', () => {
    const path = `/${'a'.repeat(1_000_000)}`;
    expect(parse(`http://x${path}`).path).toBe(path);
    expect(parse(`/${'é%41'.repeat(100_000)}`).path).toBe(`/${'éA'.repeat(100_000)}`);
  });

  it('takes only strings', () => {
    const e = callError(uriBuiltins, 'uri.parse', [1]);
    expect(e.kind).toBe('type');
    expect(e.message).toBe('operand 1 must be string but got number');
  });
});

describe('uri.is_valid', () => {
  it('is false for the empty string, refused URLs and other types', () => {
    expect(valid('')).toBe(false);
    expect(valid('x')).toBe(true);
    expect(valid('://x')).toBe(false);
    expect(valid('http://x:99999')).toBe(true);
    expect(valid('a b')).toBe(true);
    expect(valid('mailto:a@b')).toBe(true);
    expect(valid('%zz')).toBe(false);
    expect(valid(' http://x')).toBe(false);
    expect(valid('http://x y')).toBe(false);
    expect(valid('http://x:abc')).toBe(false);
    expect(valid('http://[::1')).toBe(false);
    expect(valid('http://[example.com]/')).toBe(false);
    expect(valid(1)).toBe(false);
    expect(valid(null)).toBe(false);
  });
});

describe('uri builtins in a policy', () => {
  const evaluate = (source: string, input: unknown, strict = false): unknown => {
    const policy = compilePolicy({ modules: [{ file: 'p.rego', source }] });
    return policy.query('x = data.p', { input, strictBuiltinErrors: strict })[0]?.x;
  };
  const module = 'package p\n\nx := uri.parse(input.s)\ny := uri.is_valid(input.s)\nz := urlquery.decode_object(uri.parse(input.s).raw_query)\n';

  it('feeds raw_query to urlquery.decode_object; a refused URL is undefined', () => {
    expect(toJS(evaluate(module, { s: 'https://a/?x=1&x=2&y=%20' }) as Value)).toEqual({
      x: { hostname: 'a', path: '/', raw_path: '/', raw_query: 'x=1&x=2&y=%20', scheme: 'https' },
      y: true,
      z: { x: ['1', '2'], y: [' '] },
    });
    expect(toJS(evaluate(module, { s: '::' }) as Value)).toEqual({ y: false });
    expect(toJS(evaluate(module, { s: 1 }) as Value)).toEqual({ y: false });
  });

  it('fails on a refused URL under strict builtin errors, and on a non-string operand at compile time', () => {
    expect(() => evaluate(module, { s: '::' }, true)).toThrow('p.rego:3: eval_builtin_error: uri.parse: parse "::": missing protocol scheme');
    expect(() => evaluate(module, { s: 1 }, true)).toThrow('p.rego:3: eval_type_error: uri.parse: operand 1 must be string but got number');
    const compileError = (source: string): string => {
      try {
        compilePolicy({ modules: [{ file: 'p.rego', source }] });
      } catch (e) {
        if (PolicyError.isInstance(e)) return e.message;
        throw e;
      }
      return 'compiled';
    };
    expect(compileError('package p\n\nx := uri.parse(1)\n')).toBe(
      'p.rego:3: rego_type_error: uri.parse: invalid argument(s)\n\thave: (number, ???)\n\twant: (uri: string, output: object[string: string])',
    );
    expect(compileError('package p\n\nx := uri.is_valid([1])\n')).toBe(
      'p.rego:3: rego_type_error: uri.is_valid: invalid argument(s)\n\thave: (array<number>, ???)\n\twant: (uri: string, result: boolean)',
    );
  });
});
