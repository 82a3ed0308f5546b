/**
 * YAML builtins: yaml.marshal, yaml.unmarshal, yaml.is_valid, as OPA runs
 * them through go-yaml v2 and sigs.k8s.io/yaml:
 * - read by go-yaml's scanner and parser (yaml-go-parser.ts: its first
 *   document only, its refusals in its words), then with YAML 1.1 scalar
 *   resolution: `yes`/`on` are booleans, `0x1F` and `0777` integers,
 *   timestamps stay strings, and keys become strings;
 * - written in go-yaml v2's style: block collections, sequences not
 *   indented under a key, keys in natural order, go-yaml's quoting rules and
 *   line folding at 80 columns.
 */
import type { Node } from 'yaml';
import { foldDeep, MAX_JSON_DEPTH } from '../deep-fold.js';
import { parseNumberText } from '../value-json.js';
import { yamlLibrary } from '../yaml-library.js';
import { bigNum, RegoDecimal, RegoNumText, RegoObject, RegoSet, type Value } from '../value.js';
import { jsonEntries } from '../value-gojson.js';
import { hasRawBytes, stringFromBytes, validUTF8 } from '../go-bytes.js';
import { asString, BuiltinError, type BuiltinDefinition } from './registry.js';
import { goSharpV, type GoScalar, type GoValueContext } from './yaml-go-values.js';
import { GoYamlFault } from './yaml-go-fault.js';
import { aliasTarget, composeFirstDocument } from './yaml-go-parser.js';

// ---------------------------------------------------------------------------
// Go number formatting, for YAML

/** `strconv.FormatFloat(x, 'g', -1, bits)`. */
function formatFloatG(x: number, bits: 32 | 64): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf';
  if (x === 0) return Object.is(x, -0) ? '-0' : '0';
  let exp = x.toExponential();
  if (bits === 32) {
    for (let p = 1; p <= 9; p++) {
      const e = x.toExponential(p - 1);
      if (Math.fround(Number(e)) === x) {
        exp = e;
        break;
      }
    }
  }
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(exp) as RegExpExecArray;
  const sign = m[1] as string;
  const digits = (m[2] as string) + (m[3] ?? '');
  const e = Number(m[4]);
  if (e < -4 || e >= 6) {
    const mant = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const ee = Math.abs(e).toString().padStart(2, '0');
    return `${sign}${mant}e${e < 0 ? '-' : '+'}${ee}`;
  }
  if (e < 0) return `${sign}0.${'0'.repeat(-e - 1)}${digits}`;
  if (digits.length <= e + 1) return sign + digits + '0'.repeat(e + 1 - digits.length);
  return `${sign}${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
}

// ---------------------------------------------------------------------------
// Reading YAML (go-yaml v2 resolution, then sigs.k8s.io/yaml's JSON conversion)

const YAML_BOOLS: Record<string, boolean> = {};
for (const w of ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']) YAML_BOOLS[w] = true;
for (const w of ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']) YAML_BOOLS[w] = false;
const YAML_NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const YAML_SPECIAL_FLOATS: Record<string, number> = {};
for (const [ws, v] of [
  [['.nan', '.NaN', '.NAN'], NaN],
  [['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'], Infinity],
  [['-.inf', '-.Inf', '-.INF'], -Infinity],
] as const) {
  for (const w of ws) YAML_SPECIAL_FLOATS[w] = v;
}
const YAML_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const INT64_MIN = -(2n ** 63n);
const UINT64_MAX = 2n ** 64n - 1n;
const INT64_MAX = 2n ** 63n - 1n;

/** A scalar as go-yaml resolves it. */
type Resolved = GoScalar;

/** Go's `strconv.ParseInt(s, 0, 64)` then `ParseUint`, as one range check. */
function parseGoInt(s: string): bigint | null {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[bB][01]+|0[oO]?[0-7]+|[1-9][0-9]*|0)$/.exec(s);
  if (m === null) return null;
  let body = m[2] as string;
  if (/^0[0-7]/.test(body)) body = `0o${body.slice(1)}`;
  else if (/^0[oO]/.test(body)) body = `0o${body.slice(2)}`;
  const v = m[1] === '-' ? -BigInt(body) : BigInt(body);
  if (v < INT64_MIN || v > UINT64_MAX || (m[1] !== '' && v > 2n ** 63n - 1n)) return null;
  return v;
}

const DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** go-yaml's timestamp check: `2006-1-2`, with an optional `T15:4:5.999Z07:00` (or ` 15:4:5.999`). */
function isTimestamp(s: string): boolean {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?$/.exec(
      s,
    );
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  if (month < 1 || month > 12 || day < 1 || day > (month === 2 && !leap ? 28 : (DAYS[month - 1] as number))) return false;
  const [h, min, sec] = m[4] !== undefined ? [m[4], m[5], m[6]] : [m[7], m[8], m[9]];
  return h === undefined || (Number(h) < 24 && Number(min) < 60 && Number(sec) < 60);
}

/** go-yaml v2's `resolve` for an untagged plain scalar. */
function resolvePlain(s: string): Resolved {
  if (YAML_NULLS.has(s)) return { kind: 'null' };
  const b = YAML_BOOLS[s];
  if (b !== undefined) return { kind: 'bool', v: b };
  const special = YAML_SPECIAL_FLOATS[s];
  if (special !== undefined) return { kind: 'float', v: special };
  const c = s[0] as string;
  if (c === '.') {
    const f = Number(s);
    if (/^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s) && Number.isFinite(f)) return { kind: 'float', v: f };
  } else if (/[-+0-9]/.test(c)) {
    if (isTimestamp(s)) return { kind: 'timestamp', v: s };
    const plain = s.replaceAll('_', '');
    const i = parseGoInt(plain);
    if (i !== null) return { kind: 'int', v: i };
    if (YAML_FLOAT.test(plain)) {
      const f = Number(plain);
      if (Number.isFinite(f)) return { kind: 'float', v: f };
    }
    const bin = /^-0b([01]+)$/.exec(plain);
    if (bin !== null) {
      const v = -BigInt(`0b${bin[1]}`);
      if (v >= INT64_MIN) return { kind: 'int', v };
    }
  }
  return { kind: 'str', v: s };
}

const TAG = 'tag:yaml.org,2002:';

/** Our refusal of collections nested deeper than this reader goes (go-yaml, on growing Go stacks, reads on). */
const TOO_DEEP = 'collections nested too deeply for this reader (a limit of ours, not of go-yaml)';

function yamlError(message: string): BuiltinError {
  return new BuiltinError(`yaml: ${message}`);
}

/** A map key sigs.k8s.io/yaml refuses: Go's type and `%+#v` of it. */
interface BadKey {
  type: string;
  text: string;
}

/** Converts a YAML node to a Rego value as OPA sees it after the YAML → JSON round trip. */
class YamlReader {
  private budget = 1_000_000;
  private depth = 0;
  /** Anchored nodes being converted, to catch aliases that refer to themselves. */
  private readonly expanding = new Set<Node>();
  /** Stand-ins for the `.inf` / `.nan` values read, with encoding/json's error for each (see finish). */
  private readonly unsupported = new Map<RegoObject, string>();
  /** Maps that had a key sigs.k8s.io/yaml cannot write in JSON (null, a uint64), with that key and its value. */
  private readonly badKeyed = new Map<RegoObject, { key: BadKey; node: Node | null }>();

  scalar(node: Node): Resolved {
    if (!yamlLibrary().isScalar(node)) throw yamlError('cannot use a collection here');
    // The parser decodes !!binary itself.
    if (node.value instanceof Uint8Array) return { kind: 'str', v: validUTF8(stringFromBytes(node.value)) };
    // A `!!timestamp` the parser made a Date of stays its text, as go-yaml keeps it for an interface{} value.
    const text = node.value instanceof Date ? String(node.source) : String(node.value);
    const tag = node.tag;
    if (tag === undefined || tag === '!') return node.type === 'PLAIN' && tag === undefined ? resolvePlain(text) : { kind: 'str', v: text };
    if (!tag.startsWith(TAG)) return { kind: 'str', v: text };
    const want = tag.slice(TAG.length);
    if (want === 'str') return { kind: 'str', v: text };
    if (want === 'binary') return { kind: 'str', v: validUTF8(stringFromBytes(Buffer.from(text, 'base64'))) };
    // go-yaml resolves only these tags; a scalar with any other (`!!seq`, `!!foo`) stays its text.
    if (!['null', 'bool', 'int', 'float', 'timestamp'].includes(want)) return { kind: 'str', v: text };
    const r = resolvePlain(text);
    if (r.kind === want) return r;
    if (want === 'float' && r.kind === 'int') return { kind: 'float', v: Number(r.v) };
    throw yamlError(`cannot decode !!${r.kind === 'timestamp' ? 'timestamp' : r.kind} \`${text}\` as a !!${want}`);
  }

  value(node: Node | null): Value {
    if (--this.budget < 0) throw yamlError('document contains excessive aliasing');
    if (this.depth > 2000) throw yamlError(TOO_DEEP);
    if (node === null) return null;
    this.depth++;
    try {
      return this.convert(node);
    } finally {
      this.depth--;
    }
  }

  /** The node an alias stands for; an alias inside its own anchor is an error, as in go-yaml. */
  private resolve(node: Node | null): Node | null {
    if (!yamlLibrary().isAlias(node)) return node;
    const target = aliasTarget(node) ?? null;
    if (target !== null && this.expanding.has(target)) throw yamlError(`anchor '${node.source}' value contains itself`);
    return target;
  }

  private convert(node: Node): Value {
    if (yamlLibrary().isAlias(node)) return this.value(this.resolve(node));
    if (yamlLibrary().isSeq(node) || yamlLibrary().isMap(node)) {
      this.expanding.add(node);
      try {
        if (yamlLibrary().isSeq(node)) return node.items.map((n) => this.value(n as Node | null));
        const out = new RegoObject();
        this.mergeInto(out, node);
        return out;
      } finally {
        this.expanding.delete(node);
      }
    }
    const r = this.scalar(node);
    switch (r.kind) {
      case 'null':
        return null;
      case 'bool':
        return r.v;
      case 'int':
        return bigNum(r.v);
      case 'float':
        // encoding/json refuses it after sigs.k8s.io/yaml has converted the whole tree (see finish).
        if (!Number.isFinite(r.v)) {
          const standIn = new RegoObject();
          this.unsupported.set(standIn, `json: unsupported value: ${formatFloatG(r.v, 64)}`);
          return standIn;
        }
        // Go writes the float64 as its shortest decimal text, which OPA reads exactly.
        return parseNumberText(String(r.v));
      default:
        return r.v;
    }
  }

  /** Map entries in order; `<<` merges a map (or a list of maps, the first winning) at its place. */
  private mergeInto(out: RegoObject, node: Node | null): void {
    // go-yaml checks what an alias stands for before following it.
    const aliased = yamlLibrary().isAlias(node) ? (aliasTarget(node) ?? null) : node;
    if (!yamlLibrary().isMap(aliased)) throw yamlError('map merge requires map or sequence of maps as the value');
    const target = this.resolve(node);
    if (!yamlLibrary().isMap(target)) throw yamlError('map merge requires map or sequence of maps as the value');
    for (const pair of target.items) {
      const key = pair.key as Node | null;
      if (yamlLibrary().isScalar(key) && key.type === 'PLAIN' && key.tag === undefined && key.value === '<<') {
        // go-yaml merges the items of a sequence written here (not of an alias to one), the last first.
        const src = pair.value as Node | null;
        if (yamlLibrary().isSeq(src)) for (const item of [...src.items].reverse()) this.mergeInto(out, item as Node);
        else this.mergeInto(out, src);
        continue;
      }
      const k = this.key(key);
      const v = this.value(pair.value as Node | null);
      // go-yaml keeps a null or uint64 key; sigs.k8s.io/yaml refuses it when it converts the whole tree to JSON (see checkBadKeys).
      if (typeof k === 'string') out.set(k, v);
      else this.badKeyed.set(out, { key: k, node: pair.value as Node | null });
    }
  }

  /** sigs.k8s.io/yaml's refusal of a null or uint64 key in a map that is still in the decoded tree (a later duplicate key drops it). */
  finish(v: Value): Value {
    this.checkBadKeys(v);
    this.checkUnsupported(v);
    return v;
  }

  /** encoding/json's refusal of the first `.inf` / `.nan` left in the tree (a later duplicate key drops one), in its order: sorted keys. */
  private checkUnsupported(v: Value): void {
    if (this.unsupported.size === 0) return;
    if (Array.isArray(v)) for (const x of v) this.checkUnsupported(x);
    if (!(v instanceof RegoObject)) return;
    const error = this.unsupported.get(v);
    if (error !== undefined) throw new BuiltinError(error);
    const entries = [...v.entries()].sort(([a], [b]) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
    for (const [, x] of entries) this.checkUnsupported(x);
  }

  private checkBadKeys(v: Value): void {
    if (this.badKeyed.size === 0) return;
    if (Array.isArray(v)) for (const x of v) this.checkBadKeys(x);
    if (!(v instanceof RegoObject)) return;
    const bad = this.badKeyed.get(v);
    if (bad !== undefined) {
      throw new BuiltinError(`unsupported map key of type: ${bad.key.type}, key: ${bad.key.text}, value: ${goSharpV(bad.node, this.go)}`);
    }
    for (const [, x] of v.entries()) this.checkBadKeys(x);
  }

  private readonly go: GoValueContext = {
    scalar: (n) => this.scalar(n),
    target: (n) => (yamlLibrary().isAlias(n) ? (aliasTarget(n) ?? null) : n),
    formatFloat: (x) => formatFloatG(x, 64),
  };

  /** A key as sigs.k8s.io/yaml writes it in JSON, or one it refuses (null, a uint64); a collection is go-yaml's `invalid map key`. */
  private key(node: Node | null): string | BadKey {
    const target = this.resolve(node);
    if (yamlLibrary().isCollection(target)) throw yamlError(`invalid map key: ${goSharpV(target, this.go)}`);
    const k = target === null ? ({ kind: 'null' } as const) : this.scalar(target);
    switch (k.kind) {
      case 'str':
      case 'timestamp':
        return k.v;
      case 'int':
        // go-yaml decodes an integer past int64 as a uint64, a key type sigs.k8s.io/yaml does not take.
        return k.v > INT64_MAX ? { type: 'uint64', text: `0x${k.v.toString(16)}` } : k.v.toString();
      case 'bool':
        return k.v ? 'true' : 'false';
      case 'float': {
        const s = formatFloatG(Math.fround(k.v), 32);
        return s === '+Inf' ? '.inf' : s === '-Inf' ? '-.inf' : s === 'NaN' ? '.nan' : s;
      }
      default:
        return { type: '%!s(<nil>)', text: '<nil>' };
    }
  }
}

/**
 * The first document of a YAML stream, as go-yaml's `Unmarshal` reads it
 * (yaml-go-parser.ts): the text after it is not parsed, so its faults are
 * not errors; a fault go-yaml sees is refused in go-yaml's words.
 */
function parseYaml(text: string): Node | null | undefined {
  try {
    return composeFirstDocument(text);
  } catch (e) {
    if (e instanceof GoYamlFault) throw new BuiltinError(e.message);
    throw e;
  }
}

export function unmarshalYaml(text: string): Value {
  try {
    const root = parseYaml(text);
    if (root === undefined) return null;
    const reader = new YamlReader();
    return reader.finish(reader.value(root));
  } catch (e) {
    // Collections nested some thousands deep exhaust the stack here, where go-yaml (growing Go stacks) reads on: refused, and said so.
    if (e instanceof RangeError) throw yamlError(TOO_DEEP);
    throw e;
  }
}

// ---------------------------------------------------------------------------
// Writing YAML (go-yaml v2's emitter, for JSON-shaped values)

const BEST_WIDTH = 80;

/** go-yaml's key order: runs of digits compare as numbers, letters before other characters. */
function naturalLess(a: string, b: string): boolean {
  const ar = Array.from(a);
  const br = Array.from(b);
  const isLetter = (c: string): boolean => /\p{L}/u.test(c);
  const isDigit = (c: string | undefined): boolean => c !== undefined && /\p{Nd}/u.test(c);
  for (let i = 0; i < ar.length && i < br.length; i++) {
    const x = ar[i] as string;
    const y = br[i] as string;
    if (x === y) continue;
    const al = isLetter(x);
    const bl = isLetter(y);
    if (al && bl) return x < y;
    if (al || bl) return bl;
    let an = 0;
    let bn = 0;
    if (x === '0' || y === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1;
          bn = 1;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10 + Number(ar[ai]);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10 + Number(br[bi]);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return x < y;
  }
  return ar.length < br.length;
}

/** A number as go-yaml prints what it read from OPA's JSON text (an int64/uint64, else a float64). */
function yamlNumber(n: number | bigint | RegoDecimal): string {
  // Text no float64 holds (1e400) stays as written: go-yaml keeps it as it read it.
  if (n instanceof RegoDecimal) {
    const f = n.toNumber();
    if (n instanceof RegoNumText) {
      if (/^-?\d+$/.test(n.text)) return yamlNumber(n.value);
      const g = Number(n.text);
      return Number.isFinite(g) ? formatFloatG(g, 64) : n.text;
    }
    return Number.isFinite(f) ? formatFloatG(f, 64) : n.toString();
  }
  if (typeof n === 'bigint') {
    if (n >= INT64_MIN && n <= UINT64_MAX) return n.toString();
    const f = Number(n);
    return Number.isFinite(f) ? formatFloatG(f, 64) : n.toString();
  }
  return Number.isInteger(n) ? n.toString() : formatFloatG(n, 64);
}

const isBreak = (c: number): boolean => c === 0x0a || c === 0x0d || c === 0x85 || c === 0x2028 || c === 0x2029;
const isPrintable = (c: number): boolean =>
  c === 0x0a || (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff);
const BASE60_FLOAT = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

interface ScalarAnalysis {
  multiline: boolean;
  blockPlain: boolean;
  singleQuoted: boolean;
  block: boolean;
}

/** go-yaml's `yaml_emitter_analyze_scalar`, for block context. */
function analyzeScalar(cps: number[]): ScalarAnalysis {
  if (cps.length === 0) return { multiline: false, blockPlain: true, singleQuoted: true, block: false };
  let blockIndicators = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let prevSpace = false;
  let prevBreak = false;
  let precededByWhitespace = true;
  const first3 = String.fromCodePoint(...cps.slice(0, 3));
  if (first3 === '---' || first3 === '...') blockIndicators = true;
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i] as number;
    const next = cps[i + 1];
    const followedByWhitespace = next === undefined || next === 0x20 || next === 0x09;
    const ch = String.fromCodePoint(c);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockIndicators = true;
      else if ((ch === '?' || ch === ':' || ch === '-') && followedByWhitespace) blockIndicators = true;
    } else if ((ch === ':' && followedByWhitespace) || (ch === '#' && precededByWhitespace)) blockIndicators = true;
    if (!isPrintable(c)) special = true;
    if (c === 0x20) {
      if (i === 0) leadingSpace = true;
      if (i === cps.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreak(c)) {
      lineBreaks = true;
      if (i === 0) leadingBreak = true;
      if (i === cps.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWhitespace = c === 0x20 || c === 0x09 || isBreak(c) || c === 0;
  }
  let blockPlain = !(leadingSpace || leadingBreak || trailingSpace || trailingBreak || breakSpace || spaceBreak || special || lineBreaks || blockIndicators);
  let singleQuoted = !(breakSpace || spaceBreak || special);
  // Single-quoted line breaks are not written here; such strings go double-quoted.
  if (lineBreaks) singleQuoted = false;
  if (blockIndicators) blockPlain = false;
  return { multiline: lineBreaks, blockPlain, singleQuoted, block: !(trailingSpace || spaceBreak || special) };
}

const ESCAPES: Record<number, string> = {
  0x00: '0',
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x1b: 'e',
  0x22: '"',
  0x5c: '\\',
  0x85: 'N',
  0xa0: '_',
  0x2028: 'L',
  0x2029: 'P',
};

/** The state go-yaml's emitter keeps while writing. */
class YamlWriter {
  out = '';
  column = 0;
  whitespace = true;
  indention = true;

  put(s: string): void {
    this.out += s;
    this.column += Array.from(s).length;
  }

  newline(): void {
    this.out += '\n';
    this.column = 0;
  }

  writeIndent(indent: number): void {
    const ind = Math.max(indent, 0);
    if (!this.indention || this.column > ind || (this.column === ind && !this.whitespace)) this.newline();
    if (this.column < ind) {
      this.out += ' '.repeat(ind - this.column);
      this.column = ind;
    }
    this.whitespace = true;
    this.indention = true;
  }

  indicator(s: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(s);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }
}

/** What the emitter has left to write: a value, a sequence item (`- ` then its value) or a mapping entry (the key then its value). */
type EmitTask =
  | { kind: 'node'; v: Value; indent: number; mappingValue: boolean }
  | { kind: 'item'; v: Value; indent: number }
  | { kind: 'entry'; key: string; v: Value; indent: number };

class YamlEmitter {
  readonly w = new YamlWriter();

  /** Writes a value; `indent` is the emitter's current indentation (-1 at the top). Collections are written from a stack of what is left to write, not by recursion (a value may nest 10,000 deep). */
  node(root: Value, indent: number, mappingValue: boolean): void {
    const tasks: EmitTask[] = [{ kind: 'node', v: root, indent, mappingValue }];
    for (let task = tasks.pop(); task !== undefined; task = tasks.pop()) {
      if (task.kind === 'node') this.open(task.v, task.indent, task.mappingValue, tasks);
      else if (task.kind === 'item') {
        this.w.writeIndent(task.indent);
        this.w.indicator('-', true, false, true);
        tasks.push({ kind: 'node', v: task.v, indent: task.indent, mappingValue: false });
      } else {
        this.key(task.key, task.indent);
        tasks.push({ kind: 'node', v: task.v, indent: task.indent, mappingValue: true });
      }
    }
  }

  /** Writes a scalar or an empty collection, or pushes a collection's entries (the first on top). */
  private open(v: Value, indent: number, mappingValue: boolean, tasks: EmitTask[]): void {
    if (v instanceof RegoObject && v.size > 0) {
      const at = indent < 0 ? 0 : indent + 2;
      const entries = jsonEntries(v).sort((a, b) => (naturalLess(a[0], b[0]) ? -1 : naturalLess(b[0], a[0]) ? 1 : 0));
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, x] = entries[i] as [string, Value];
        tasks.push({ kind: 'entry', key, v: x, indent: at });
      }
    } else if ((Array.isArray(v) || v instanceof RegoSet) && (Array.isArray(v) ? v.length : v.size) > 0) {
      const indentless = mappingValue && !this.w.indention;
      const at = indent < 0 ? 0 : indentless ? indent : indent + 2;
      const items = Array.isArray(v) ? v : v.values();
      for (let i = items.length - 1; i >= 0; i--) tasks.push({ kind: 'item', v: items[i] as Value, indent: at });
    } else if (v instanceof RegoObject) this.w.indicator('{}', true, false, false);
    else if (Array.isArray(v) || v instanceof RegoSet) this.w.indicator('[]', true, false, false);
    else if (typeof v === 'string') this.string(v, indent < 0 ? 2 : indent + 2, false);
    else this.plain(v === null ? 'null' : typeof v === 'boolean' ? String(v) : yamlNumber(v), indent < 0 ? 2 : indent + 2, true);
  }

  /** A mapping key and its colon, at the mapping's indentation. */
  private key(k: string, indent: number): void {
    this.w.writeIndent(indent);
    const simple = !k.includes('\n') && !/[\r\u0085\u2028\u2029]/.test(k) && Buffer.byteLength(k) <= 128;
    if (simple) {
      this.string(k, indent + 2, true);
      this.w.indicator(':', false, false, false);
    } else {
      this.w.indicator('?', true, false, true);
      this.string(k, indent + 2, false);
      this.w.writeIndent(indent);
      this.w.indicator(':', true, false, true);
    }
  }

  private string(s: string, indent: number, simpleKey: boolean): void {
    const cps = Array.from(s, (c) => c.codePointAt(0) as number);
    const a = analyzeScalar(cps);
    const canPlain = s !== '<<' && resolvePlain(s).kind === 'str' && !(/^[-+0-9]/.test(s) && s.includes(':') && BASE60_FLOAT.test(s));
    let style = s.includes('\n') ? 'literal' : canPlain ? 'plain' : 'double';
    if (simpleKey && a.multiline) style = 'double';
    if (style === 'plain' && !a.blockPlain) style = 'single';
    if (style === 'single' && !a.singleQuoted) style = 'double';
    if (style === 'literal' && (!a.block || simpleKey)) style = 'double';
    if (style === 'plain') this.plain(s, indent, !simpleKey);
    else if (style === 'single') this.quoted(cps, "'", indent, !simpleKey);
    else if (style === 'double') this.quoted(cps, '"', indent, !simpleKey);
    else this.literal(cps, indent);
  }

  private plain(text: string, indent: number, allowBreaks: boolean): void {
    const w = this.w;
    if (!w.whitespace) w.put(' ');
    const cps = Array.from(text);
    let spaces = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i] as string;
      if (c === ' ') {
        if (allowBreaks && !spaces && w.column > BEST_WIDTH && cps[i + 1] !== ' ') w.writeIndent(indent);
        else w.put(c);
        spaces = true;
      } else {
        w.put(c);
        w.indention = false;
        spaces = false;
      }
    }
    w.whitespace = false;
    w.indention = false;
  }

  private quoted(cps: number[], quote: "'" | '"', indent: number, allowBreaks: boolean): void {
    const w = this.w;
    w.indicator(quote, true, false, false);
    let spaces = false;
    for (let i = 0; i < cps.length; i++) {
      const c = cps[i] as number;
      const inner = i !== 0 && i !== cps.length - 1;
      if (quote === '"' && (!isPrintable(c) || isBreak(c) || c === 0xfeff || c === 0x22 || c === 0x5c)) {
        const esc = ESCAPES[c];
        const hex = (width: number): string => c.toString(16).toUpperCase().padStart(width, '0');
        w.put(`\\${esc ?? (c <= 0xff ? `x${hex(2)}` : c <= 0xffff ? `u${hex(4)}` : `U${hex(8)}`)}`);
        spaces = false;
      } else if (c === 0x20) {
        const fold = allowBreaks && !spaces && w.column > BEST_WIDTH && inner && (quote === '"' || cps[i + 1] !== 0x20);
        if (fold) {
          w.writeIndent(indent);
          if (quote === '"' && cps[i + 1] === 0x20) w.put('\\');
        } else w.put(' ');
        spaces = true;
      } else {
        if (quote === "'" && c === 0x27) w.put("'");
        w.put(String.fromCodePoint(c));
        w.indention = false;
        spaces = false;
      }
    }
    w.indicator(quote, false, false, false);
    w.whitespace = false;
    w.indention = false;
  }

  private literal(cps: number[], indent: number): void {
    const w = this.w;
    w.indicator('|', true, false, false);
    const first = cps[0] as number;
    if (first === 0x20 || isBreak(first)) w.indicator('2', false, false, false);
    const last = cps[cps.length - 1] as number;
    const chomp = !isBreak(last) ? '-' : cps.length === 1 || isBreak(cps[cps.length - 2] as number) ? '+' : '';
    if (chomp !== '') w.indicator(chomp, false, false, false);
    w.newline();
    w.indention = true;
    w.whitespace = true;
    let breaks = true;
    for (const c of cps) {
      if (isBreak(c)) {
        w.out += String.fromCodePoint(c);
        w.column = 0;
        w.indention = true;
        breaks = true;
      } else {
        if (breaks) w.writeIndent(indent);
        w.put(String.fromCodePoint(c));
        w.indention = false;
        breaks = false;
      }
    }
  }
}

/** The value as OPA's JSON step leaves it: each raw byte (go-bytes.ts) of a string or key as U+FFFD (folded without recursion). */
function validStrings(root: Value): Value {
  return foldDeep<Value, Value>(root, {
    open: (v) => (Array.isArray(v) ? v : v instanceof RegoSet ? v.values() : v instanceof RegoObject ? v.entries().flat(1) : undefined),
    leaf: (v) => (typeof v === 'string' ? validUTF8(v) : v),
    close: (v, _parts, out) => {
      if (Array.isArray(v)) return out;
      if (v instanceof RegoSet) return RegoSet.of(out);
      const o = new RegoObject();
      for (let i = 0; i < out.length; i += 2) o.set(out[i] as Value, out[i + 1] as Value);
      return o;
    },
  });
}

function holdsRawBytes(root: Value): boolean {
  const pending: Value[] = [root];
  for (let v = pending.pop(); v !== undefined; v = pending.pop()) {
    if (typeof v === 'string') {
      if (hasRawBytes(v)) return true;
    } else if (Array.isArray(v) || v instanceof RegoSet) for (const x of Array.isArray(v) ? v : v.values()) pending.push(x);
    else if (v instanceof RegoObject) for (const [k, x] of v.entries()) pending.push(k, x);
  }
  return false;
}

/** How deeply arrays, objects and sets nest in a value (1 for `[]`), counted without recursion. */
function nestingOf(root: Value): number {
  let deepest = 0;
  const pending: Array<[Value, number]> = [[root, 1]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [v, depth] = next;
    const parts = Array.isArray(v) ? v : v instanceof RegoSet ? v.values() : v instanceof RegoObject ? v.keys().map((k) => v.get(k) as Value) : undefined;
    if (parts === undefined) continue;
    if (depth > deepest) deepest = depth;
    for (const x of parts) pending.push([x, depth + 1]);
  }
  return deepest;
}

function marshalYaml(v: Value): string {
  // OPA's yaml.marshal (sigs.k8s.io/yaml) writes JSON and reads it back with go-yaml, whose scanner refuses JSON nested past 10,000.
  if (nestingOf(v) > MAX_JSON_DEPTH) throw yamlError(`exceeded max depth of ${MAX_JSON_DEPTH}`);
  const e = new YamlEmitter();
  e.node(holdsRawBytes(v) ? validStrings(v) : v, -1, false);
  e.w.writeIndent(-1);
  return e.w.out;
}

export const yamlBuiltins: BuiltinDefinition[] = [
  { name: 'yaml.marshal', args: ['any'], result: 'string', keepsNumberText: true, impl: ([v]) => marshalYaml(v as Value) },
  { name: 'yaml.unmarshal', args: ['string'], result: 'any', impl: ([s]) => unmarshalYaml(asString(s, 1)) },
  {
    name: 'yaml.is_valid',
    args: ['string'],
    result: 'boolean',
    impl: ([s]) => {
      if (typeof s !== 'string') return false;
      try {
        unmarshalYaml(s);
        return true;
      } catch {
        return false;
      }
    },
  },
];
