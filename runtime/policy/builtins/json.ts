/**
 * JSON builtins: json.marshal, json.marshal_with_options, json.unmarshal,
 * json.is_valid. OPA runs these through Go's `encoding/json`, and their
 * output is what policies and tests compare against, so this file
 * reproduces it: object keys sorted bytewise, sets as sorted arrays, `<`,
 * `>`, `&`, U+2028 and U+2029 escaped, non-string keys turned into their
 * JSON text (`ast.JSON`); errors worded as Go's decoder words them
 * (`unexpected EOF`, `invalid character 'x' looking for beginning of
 * value`, ...); big integers stay exact.
 */
import { foldDeep, MAX_JSON_DEPTH } from '../deep-fold.js';
import { formatValue, goQuote } from '../value-format.js';
import { goJSON, goJSONString, jsonEntries } from '../value-gojson.js';
import { ExactDigits, parseNumberLiteral } from '../value-json.js';
import { RegoObject, RegoSet, typeName, type Value } from '../value.js';
import { asObject, asString, BuiltinError, type BuiltinDefinition } from './registry.js';

// ---------------------------------------------------------------------------
// Writing JSON: compact text comes from value-gojson (Go's encoding/json over OPA's ast.JSON conversion)

/** `json.MarshalIndent(v, prefix, indent)`; like OPA, the first line is prefixed too. Folded on an explicit stack (values may nest 10,000 deep). */
function goJSONIndent(root: Value, prefix: string, indent: string): string {
  type At = readonly [Value, number];
  const nl = (d: number): string => `\n${prefix}${indent.repeat(d)}`;
  return foldDeep<At, string>([root, 0], {
    open: ([v, d]) => {
      const items = v instanceof RegoObject ? jsonEntries(v).map((e) => e[1]) : Array.isArray(v) ? v : v instanceof RegoSet ? v.values() : undefined;
      return items?.map((x): At => [x, d + 1]);
    },
    leaf: ([v]) => goJSON(v),
    close: ([v, d], _parts, texts) => {
      if (texts.length === 0) return v instanceof RegoObject ? '{}' : '[]';
      if (!(v instanceof RegoObject)) return `[${texts.map((t) => nl(d + 1) + t).join(',')}${nl(d)}]`;
      const keys = jsonEntries(v).map((e) => e[0]);
      return `{${texts.map((t, i) => `${nl(d + 1)}${goJSONString(keys[i] as string)}: ${t}`).join(',')}${nl(d)}}`;
    },
  });
}

function marshalWithOptions(v: Value, opts: RegoObject): string {
  let indent = '\t';
  let prefix = '';
  let implicitPretty = false;
  let explicitPretty: boolean | null = null;
  opts.keys().forEach((k, idx) => {
    const val = opts.get(k) as Value;
    if (typeof k !== 'string') {
      throw BuiltinError.type(`operand 2 failed to stringify key ${formatValue(k)} at index ${idx}: operand ${idx} must be string but got ${typeName(k)}`);
    }
    switch (k) {
      case 'prefix':
      case 'indent':
        if (typeof val !== 'string')
          throw BuiltinError.type(`operand 2 key ${k} failed cast to string: operand ${idx} must be string but got ${typeName(val)}`);
        if (k === 'prefix') prefix = val;
        else indent = val;
        implicitPretty = true;
        break;
      case 'pretty':
        if (typeof val !== 'boolean') throw BuiltinError.type('operand 2 key pretty failed cast to bool');
        explicitPretty = val;
        break;
      default:
        throw BuiltinError.type(`operand 2 object contained unknown key ${typeof k === 'string' ? goQuote(k) : formatValue(k)}`);
    }
  });
  return (explicitPretty ?? implicitPretty) ? prefix + goJSONIndent(v, prefix, indent) : goJSON(v);
}

// ---------------------------------------------------------------------------
// Reading JSON: a reader that follows Go's scanner, so validity and error
// messages match; numbers are read exactly (big integers, long decimals).

class JSONScanError extends Error {}

/** Go's `quoteChar`: the offending byte in single quotes (the first byte of a multi-byte character). */
function quoteChar(ch: string): string {
  if (ch === "'") return `'\\''`;
  if (ch === '"') return `'"'`;
  const cp = ch.codePointAt(0) as number;
  const byte = cp < 0x80 ? cp : (Buffer.from(ch, 'utf8')[0] as number);
  return `'${goQuote(String.fromCharCode(byte)).slice(1, -1)}'`;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

class JSONReader {
  pos = 0;
  /** The exact digits of this text's numbers, bounded as a request body's are. */
  private readonly exact = new ExactDigits();
  constructor(private readonly s: string) {}

  atEnd(): boolean {
    return this.pos >= this.s.length;
  }

  skipSpace(): void {
    while (this.pos < this.s.length && ' \t\n\r'.includes(this.s[this.pos] as string)) this.pos++;
  }

  private fail(context: string): never {
    if (this.atEnd()) throw new JSONScanError('unexpected EOF');
    throw new JSONScanError(`invalid character ${quoteChar(String.fromCodePoint(this.s.codePointAt(this.pos) as number))} ${context}`);
  }

  private peek(): string {
    if (this.atEnd()) throw new JSONScanError('unexpected EOF');
    return this.s[this.pos] as string;
  }

  /** Reads one value, leaving `pos` right after it: on an explicit stack of the arrays and objects open around it. */
  value(): Value {
    const open: Array<Value[] | RegoObject> = [];
    /** The key of the member being read, for each open object ('' for an array). */
    const keys: string[] = [];
    for (;;) {
      this.skipSpace();
      const c = this.peek();
      let v: Value;
      if (c === '{' || c === '[') {
        if (open.length >= MAX_JSON_DEPTH) this.fail('exceeded max depth');
        this.pos++;
        this.skipSpace();
        if (this.peek() === (c === '{' ? '}' : ']')) {
          this.pos++;
          v = c === '{' ? new RegoObject() : [];
        } else {
          open.push(c === '{' ? new RegoObject() : []);
          keys.push(c === '{' ? this.key() : '');
          continue;
        }
      } else v = this.scalar(c);
      // Put v in the innermost open array or object; close those that end.
      for (;;) {
        const top = open.length - 1;
        if (top < 0) return v;
        const into = open[top] as Value[] | RegoObject;
        const isArray = Array.isArray(into);
        if (isArray) into.push(v);
        else into.set(keys[top] as string, v);
        if (!this.close(isArray ? ']' : '}', isArray ? 'after array element' : 'after object key:value pair')) {
          if (!isArray) keys[top] = this.key();
          break;
        }
        open.pop();
        keys.pop();
        v = into;
      }
    }
  }

  private scalar(c: string): Value {
    if (c === '"') return this.string();
    if (c === '-' || isDigit(c)) return this.number();
    if (c === 't') return this.literal('true', true);
    if (c === 'f') return this.literal('false', false);
    if (c === 'n') return this.literal('null', null);
    return this.fail('looking for beginning of value');
  }

  /** After a member or element: true at the closing bracket, false after a comma. */
  private close(bracket: string, context: string): boolean {
    this.skipSpace();
    const c = this.peek();
    if (c !== bracket && c !== ',') this.fail(context);
    this.pos++;
    return c === bracket;
  }

  /** An object's key and the colon after it. */
  private key(): string {
    this.skipSpace();
    if (this.peek() !== '"') this.fail('looking for beginning of object key string');
    const k = this.string();
    this.skipSpace();
    if (this.peek() !== ':') this.fail('after object key');
    this.pos++;
    return k;
  }

  private string(): string {
    const start = this.pos++;
    let escaped = false;
    for (;;) {
      const c = this.peek();
      if (c === '"') break;
      if (c === '\\') {
        escaped = true;
        this.pos++;
        const e = this.peek();
        if ('bfnrt\\/"'.includes(e)) this.pos++;
        else if (e === 'u') {
          this.pos++;
          for (let k = 0; k < 4; k++) {
            if (!/[0-9a-fA-F]/.test(this.peek())) this.fail('in \\u hexadecimal character escape');
            this.pos++;
          }
        } else this.fail('in string escape code');
      } else if (c.charCodeAt(0) < 0x20) this.fail('in string literal');
      else this.pos++;
    }
    this.pos++;
    if (!escaped) return this.s.slice(start + 1, this.pos - 1);
    // Go decodes an unpaired surrogate escape as U+FFFD.
    return (JSON.parse(this.s.slice(start, this.pos)) as string).replace(LONE_SURROGATE, '\ufffd');
  }

  private digits(): void {
    while (isDigit(this.s[this.pos])) this.pos++;
  }

  private number(): Value {
    const start = this.pos;
    if (this.s[this.pos] === '-') {
      this.pos++;
      if (!isDigit(this.peek())) this.fail('in numeric literal');
    }
    if (this.s[this.pos] === '0') this.pos++;
    else this.digits();
    if (this.s[this.pos] === '.') {
      this.pos++;
      if (!isDigit(this.peek())) this.fail('after decimal point in numeric literal');
      this.digits();
    }
    if (this.s[this.pos] === 'e' || this.s[this.pos] === 'E') {
      this.pos++;
      if (this.peek() === '+' || this.peek() === '-') this.pos++;
      if (!isDigit(this.peek())) this.fail('in exponent of numeric literal');
      this.digits();
    }
    try {
      return parseNumberLiteral(this.s.slice(start, this.pos), this.exact);
    } catch (e) {
      throw new JSONScanError((e as Error).message);
    }
  }

  private literal<T extends Value>(word: string, v: T): T {
    for (let i = 1; i < word.length; i++) {
      this.pos++;
      if (this.peek() !== word[i]) this.fail(`in literal ${word} (expecting ${quoteChar(word[i] as string)})`);
    }
    this.pos++;
    return v;
  }
}

function readOrThrow(r: JSONReader): Value {
  try {
    return r.value();
  } catch (e) {
    if (e instanceof JSONScanError) throw new BuiltinError(e.message);
    throw e;
  }
}

/**
 * OPA's `util.UnmarshalJSON`: Go's decoder reads one value, then one more
 * token; anything but the end of the input (or, as Go lets through, `null`)
 * is an error.
 */
export function unmarshalJSON(text: string): Value {
  const r = new JSONReader(text);
  r.skipSpace();
  if (r.atEnd()) throw new BuiltinError('EOF');
  const v = readOrThrow(r);
  r.skipSpace();
  if (!r.atEnd()) {
    const c = text[r.pos] as string;
    if (c === '{' || c === '[') throw new BuiltinError(`error: invalid character '${c}' after top-level value`);
    if ('}],:'.includes(c)) throw new BuiltinError(`invalid character ${quoteChar(c)} looking for beginning of value`);
    const start = r.pos;
    const next = readOrThrow(r);
    if (next !== null) {
      const shown = typeof next === 'boolean' ? `%!s(bool=${next})` : typeof next === 'string' ? next : text.slice(start, r.pos);
      throw new BuiltinError(`error: invalid character '${shown}' after top-level value`);
    }
  }
  return v;
}

/** Go's `json.Valid`. */
function validJSON(text: string): boolean {
  const r = new JSONReader(text);
  try {
    r.value();
  } catch (e) {
    if (e instanceof JSONScanError) return false;
    throw e;
  }
  r.skipSpace();
  return r.atEnd();
}

export const jsonBuiltins: BuiltinDefinition[] = [
  { name: 'json.marshal', args: ['any'], result: 'string', keepsNumberText: true, impl: ([v]) => goJSON(v as Value) },
  {
    name: 'json.marshal_with_options',
    keepsNumberText: true,
    args: ['any', 'object'],
    result: 'string',
    impl: ([v, o]) => marshalWithOptions(v as Value, asObject(o, 2)),
  },
  { name: 'json.unmarshal', args: ['string'], result: 'any', impl: ([s]) => unmarshalJSON(asString(s, 1)) },
  { name: 'json.is_valid', args: ['string'], result: 'boolean', impl: ([s]) => typeof s === 'string' && validJSON(s) },
];
