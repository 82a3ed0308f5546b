import { describe, expect, it } from 'vitest';
import { encodingBuiltins, goQuoteBytes, goString } from '../../../runtime/policy/builtins/encoding.js';
import { createDefaultRegistry } from '../../../runtime/policy/builtins/index.js';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { fromJS, toJS } from '../../../runtime/policy/value-json.js';
import { RegoObject, RegoSet, type Value } from '../../../runtime/policy/value.js';
import { call, callError } from './builtin-test-kit.js';

const e = (name: string, ...args: Value[]): Value | undefined => call(encodingBuiltins, name, args);
const err = (name: string, ...args: Value[]): string => callError(encodingBuiltins, name, args).message;
const kind = (name: string, ...args: Value[]): string => callError(encodingBuiltins, name, args).kind;

describe('base64', () => {
  it('encodes and decodes UTF-8 text', () => {
    expect(e('base64.encode', 'there')).toBe('dGhlcmU=');
    expect(e('base64.encode', 'subjects?_d')).toBe('c3ViamVjdHM/X2Q=');
    expect(e('base64.encode', 'é')).toBe('w6k=');
    expect(e('base64.decode', 'dGhlcmU=')).toBe('there');
    expect(e('base64.decode', 'w6k=')).toBe('é');
    expect(e('base64.decode', '')).toBe('');
  });

  it('ignores newlines and requires padding, as Go does', () => {
    expect(e('base64.decode', 'dGhl\ncmU=\r\n')).toBe('there');
    expect(err('base64.decode', 'dGhlcmU')).toBe('illegal base64 data at input byte 4');
    expect(err('base64.decode', 'a')).toBe('illegal base64 data at input byte 0');
    expect(err('base64.decode', 'dG!h')).toBe('illegal base64 data at input byte 2');
    expect(err('base64.decode', 'dG=')).toBe('illegal base64 data at input byte 3');
    expect(err('base64.decode', 'dGhlcmU=x')).toBe('illegal base64 data at input byte 8');
    expect(err('base64.decode', 'c3ViamVjdHM_X2Q=')).toBe('illegal base64 data at input byte 11');
    expect(kind('base64.decode', 'a')).toBe('builtin');
  });

  it('keeps each byte of invalid UTF-8 as a raw byte (U+DC80 + the byte), one per byte, and writes it back out', () => {
    expect(e('base64.decode', '/w==')).toBe('\udcff');
    expect(goString(Uint8Array.from([0x61, 0xe2, 0x82, 0x41]))).toBe('a\udce2\udc82A');
    expect(goString(Uint8Array.from([0xf0, 0x9f, 0x98, 0x80]))).toBe('😀');
    expect(goString(Uint8Array.from([0xed, 0xa0, 0x80]))).toBe('\udced\udca0\udc80');
    expect(e('base64.encode', '\udcff')).toBe('/w==');
    expect(e('hex.encode', 'a\udce2\udc82A')).toBe('61e28241');
  });

  it("quotes byte strings as Go's strconv.Quote: invalid bytes as \\xNN, unprintable characters escaped", () => {
    expect(goQuoteBytes(Uint8Array.from([0x61, 0xff, 0xc2, 0xad, 0x0a, 0x22, 0xc3, 0xa9, 0xe6, 0x97]))).toBe('"a\\xff\\u00ad\\n\\"é\\xe6\\x97"');
  });

  it('decodes long payloads (a 300 kB ASCII run once overflowed the stack: the call was undefined)', () => {
    const text = 'a'.repeat(300_000) + 'é';
    expect(e('base64.decode', Buffer.from(text).toString('base64'))).toBe(text);
    expect(goString(Uint8Array.from([0x78, 0xff, 0x79]).subarray(1))).toBe('\udcffy');
  });

  it('validates', () => {
    expect(e('base64.is_valid', 'dGhlcmU=')).toBe(true);
    expect(e('base64.is_valid', 'dGhlcmU')).toBe(false);
    expect(e('base64.is_valid', 1)).toBe(false);
    expect(err('base64.encode', 1)).toBe('operand 1 must be string but got number');
  });
});

describe('base64url', () => {
  it('encodes with and without padding', () => {
    expect(e('base64url.encode', 'hello')).toBe('aGVsbG8=');
    expect(e('base64url.encode', 'subjects?_d')).toBe('c3ViamVjdHM_X2Q=');
    expect(e('base64url.encode_no_pad', 'hello')).toBe('aGVsbG8');
    expect(e('base64url.encode_no_pad', 'there')).toBe('dGhlcmU');
  });

  it('decodes padded and unpadded input', () => {
    expect(e('base64url.decode', 'aGVsbG8=')).toBe('hello');
    expect(e('base64url.decode', 'aGVsbG8')).toBe('hello');
    expect(e('base64url.decode', 'c3ViamVjdHM_X2Q')).toBe('subjects?_d');
    expect(err('base64url.decode', 'a')).toBe('illegal base64url string: a');
    expect(err('base64url.decode', 'c3ViamVjdHM/X2Q=')).toBe('illegal base64 data at input byte 11');
  });
});

describe('hex', () => {
  it('encodes and decodes', () => {
    expect(e('hex.encode', 'lorem ipsum')).toBe('6c6f72656d20697073756d');
    expect(e('hex.encode', 'é')).toBe('c3a9');
    expect(e('hex.decode', '6C6f72656d')).toBe('lorem');
  });

  it('reports bad input as encoding/hex does', () => {
    expect(err('hex.decode', '6g')).toBe("encoding/hex: invalid byte: U+0067 'g'");
    expect(err('hex.decode', 'a')).toBe('encoding/hex: odd length hex string');
    expect(err('hex.decode', 'aaz')).toBe("encoding/hex: invalid byte: U+007A 'z'");
    expect(err('hex.decode', '0\n')).toBe('encoding/hex: invalid byte: U+000A');
  });
});

describe('urlquery', () => {
  it('escapes as url.QueryEscape does', () => {
    expect(e('urlquery.encode', 'a b&c=d/é?~-_.')).toBe('a+b%26c%3Dd%2F%C3%A9%3F~-_.');
    expect(e('urlquery.decode', 'a+b%26c%3dd%2F%C3%A9')).toBe('a b&c=d/é');
  });

  it('reports bad escapes', () => {
    expect(err('urlquery.decode', 'a%zzb')).toBe('invalid URL escape "%zz"');
    expect(err('urlquery.decode', 'a%4')).toBe('invalid URL escape "%4"');
    expect(err('urlquery.decode', '%')).toBe('invalid URL escape "%"');
    // Go quotes the escape's three bytes, a cut character included (OPA v1.20.2's texts).
    expect(err('urlquery.decode', '%a日')).toBe('invalid URL escape "%a\\xe6"');
    expect(err('urlquery.decode', '%é')).toBe('invalid URL escape "%é"');
    expect(err('urlquery.decode_object', 'a=%a日')).toBe('invalid URL escape "%a\\xe6"');
  });

  it('encodes objects with sorted keys, repeating a key for each value', () => {
    const obj = RegoObject.fromEntries([
      ['b', ['x y', 'z']],
      ['a', 'q'],
      ['c', RegoSet.of(['2', '1'])],
      ['d', []],
    ]);
    expect(e('urlquery.encode_object', obj)).toBe('a=q&b=x+y&b=z&c=1&c=2');
    expect(e('urlquery.encode_object', new RegoObject())).toBe('');
  });

  it('rejects values that are not strings or string collections', () => {
    expect(err('urlquery.encode_object', fromJS({ a: 1 }))).toBe('operand 1 values must be string, array[string], or set[string]');
    expect(err('urlquery.encode_object', fromJS({ a: [1] }))).toBe('operand 1 values must be string, array[string], or set[string]');
    expect(kind('urlquery.encode_object', fromJS({ a: 1 }))).toBe('type');
    expect(err('urlquery.encode_object', 'a=b')).toBe('operand 1 must be object but got string');
  });

  it('decodes objects into arrays of values', () => {
    expect(toJS(e('urlquery.decode_object', 'a=1&b=x+y&a=2&c&=e') as Value)).toEqual({ a: ['1', '2'], b: ['x y'], c: [''], '': ['e'] });
    expect(toJS(e('urlquery.decode_object', '') as Value)).toEqual({});
    expect(err('urlquery.decode_object', 'a=1;b=2')).toBe('invalid semicolon separator in query');
    expect(err('urlquery.decode_object', 'a=%x&b=%y')).toBe('invalid URL escape "%x"');
  });
});

describe('encoding builtins in a policy', () => {
  const policy = compilePolicy({
    modules: {
      'p.rego': `package p

token := base64url.encode_no_pad(input.secret)
round_trip := base64.decode(base64.encode(input.secret))
query := urlquery.encode_object({"q": input.secret, "tags": {"b", "a"}})
bad := base64.decode("%%%")
`,
    },
    builtins: createDefaultRegistry().registerAll(encodingBuiltins),
  });

  it('evaluates the builtins', () => {
    const input = { secret: 'hi there' };
    expect(policy.evaluate('p.token', input)).toBe('aGkgdGhlcmU');
    expect(policy.evaluate('p.round_trip', input)).toBe('hi there');
    expect(policy.evaluate('p.query', input)).toBe('q=hi+there&tags=a&tags=b');
    expect(() => policy.query('data.p.bad = x', { strictBuiltinErrors: true })).toThrow(/base64\.decode: illegal base64 data at input byte 0/);
  });
});
