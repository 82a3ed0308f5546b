/**
 * A subset of Go's text/template, for strings.render_template.
 *
 * Supported: text, `{{- -}}` trim markers, comments, `{{pipeline}}` output,
 * fields (`.a.b`), variables (`$`, `$x`, `$x.a`), literals (strings, raw
 * strings, numbers, true/false/nil), pipes (`|`), parentheses, variable
 * declaration and assignment, `if`/`else if`/`else`, `range` (with `$i, $v :=`
 * and `else`), `with`, `define`/`template`/`block`, `break`/`continue`, and
 * every function of Go's text/template: and, or, not, len, index, slice, eq,
 * ne, lt, le, gt, ge, print, printf, println, html, js, urlquery and call
 * (which can only fail: data from Rego holds no functions).
 *
 * Values come from JSON as in OPA (numbers are json.Number, i.e. strings for
 * comparisons). A missing map key prints `<no value>`, which OPA then turns
 * into `<undefined>`.
 */
import { PolicyError } from '../errors.js';
import { isNumber, type RegoObject, RegoSet, typeName, type Value } from '../value.js';
import { formatNumber, goQuote } from '../value-format.js';
import { asObject, asString, type BuiltinDefinition, BuiltinError } from './registry.js';
import { fmtG, goFormat, type GoArg } from './sprintf.js';
import {
  type ControlNode,
  GoFloat,
  GoInt,
  type GoVal,
  JsonNumber,
  type Node,
  type Operand,
  parseTemplate,
  type ParsedTemplate,
  type Pipe,
  TemplateError,
} from './go-template-parse.js';

// ---------------------------------------------------------------- evaluation

function truth(v: GoVal): boolean {
  if (v === undefined || v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (v instanceof JsonNumber) return v.text.length > 0;
  if (v instanceof GoInt) return v.v !== 0n;
  if (v instanceof GoFloat) return v.v !== 0;
  if (Array.isArray(v)) return v.length > 0;
  return v.size > 0;
}

function fmtValue(v: GoVal): string {
  if (v === undefined) return '<no value>';
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (v instanceof JsonNumber) return v.text;
  if (v instanceof GoInt) return v.v.toString();
  if (v instanceof GoFloat) return (v.v < 0 ? '-' : '') + fmtG(Math.abs(v.v), undefined);
  if (Array.isArray(v)) return '[' + v.map((x) => fmtValue(x)).join(' ') + ']';
  return (
    'map[' +
    [...v.keys()]
      .sort()
      .map((k) => `${k}:${fmtValue(v.get(k))}`)
      .join(' ') +
    ']'
  );
}

type Kind = 'bool' | 'int' | 'float' | 'string' | 'nil' | 'other';
function kind(v: GoVal): Kind {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string' || v instanceof JsonNumber) return 'string';
  if (v instanceof GoInt) return 'int';
  if (v instanceof GoFloat) return 'float';
  return 'other';
}
function str(v: GoVal): string {
  return v instanceof JsonNumber ? v.text : (v as string);
}

function compareBasic(a: GoVal, b: GoVal, op: string): number {
  const ka = kind(a);
  const kb = kind(b);
  if (ka !== kb) throw new TemplateError(`error calling ${op}: incompatible types for comparison: ${goType(a)} and ${goType(b)}`);
  if (ka === 'other' || ka === 'nil') throw new TemplateError(`error calling ${op}: invalid type for comparison`);
  if (ka === 'int') return Number((a as GoInt).v - (b as GoInt).v);
  if (ka === 'float') return (a as GoFloat).v - (b as GoFloat).v;
  if (ka === 'bool') {
    if (op !== 'eq' && op !== 'ne') throw new TemplateError(`error calling ${op}: invalid type for comparison`);
    return a === b ? 0 : 1;
  }
  const x = str(a);
  const y = str(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Go's eq for one pair: nil (a missing key or JSON null) equals only nil, and differs from anything else without an error. */
function goEqual(a: GoVal, b: GoVal, op: string): boolean {
  const nilA = a === undefined || a === null;
  const nilB = b === undefined || b === null;
  if (nilA || nilB) return nilA && nilB;
  return compareBasic(a, b, op) === 0;
}

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

function callFunction(name: string, args: GoVal[]): GoVal {
  const need = (n: number): void => {
    if (args.length !== n) throw new TemplateError(`wrong number of args for ${name}: want ${n} got ${args.length}`);
  };
  switch (name) {
    case 'not':
      need(1);
      return !truth(args[0]);
    case 'and': {
      for (const a of args) if (!truth(a)) return a;
      return args[args.length - 1];
    }
    case 'or': {
      for (const a of args) if (truth(a)) return a;
      return args[args.length - 1];
    }
    case 'len': {
      need(1);
      const a = args[0];
      if (typeof a === 'string' || a instanceof JsonNumber) return new GoInt(BigInt(byteLength(str(a))));
      if (Array.isArray(a)) return new GoInt(BigInt(a.length));
      if (a instanceof Map) return new GoInt(BigInt(a.size));
      throw new TemplateError(`error calling len: len of type ${goType(a)}`);
    }
    case 'index':
      if (args.length === 0) throw new TemplateError('wrong number of args for index: want at least 1 got 0');
      return index(args[0], args.slice(1));
    case 'slice':
      if (args.length === 0) throw new TemplateError('wrong number of args for slice: want at least 1 got 0');
      return slice(args[0], args.slice(1));
    case 'eq': {
      if (args.length < 2) throw new TemplateError('error calling eq: missing argument for comparison');
      return args.slice(1).some((b) => goEqual(args[0], b, 'eq'));
    }
    case 'ne':
      need(2);
      return !goEqual(args[0], args[1], 'ne');
    case 'lt':
      need(2);
      return compareBasic(args[0], args[1], 'lt') < 0;
    case 'le':
      need(2);
      return compareBasic(args[0], args[1], 'le') <= 0;
    case 'gt':
      need(2);
      return compareBasic(args[0], args[1], 'gt') > 0;
    case 'ge':
      need(2);
      return compareBasic(args[0], args[1], 'ge') >= 0;
    case 'print':
      return sprint(args);
    case 'println':
      return args.map((a) => fmtValue(a === undefined ? null : a)).join(' ') + '\n';
    case 'printf': {
      if (args.length === 0) throw new TemplateError('wrong number of args for printf: want at least 1 got 0');
      return goFormat(formatArg(args[0]), args.slice(1).map(goArg));
    }
    case 'html':
      return htmlEscape(evalArgs(args));
    case 'js':
      return jsEscape(evalArgs(args));
    case 'urlquery':
      return queryEscape(evalArgs(args));
    default:
      throw new TemplateError(`template: template:1: function "${name}" not defined`);
  }
}

/** Go's dynamic type name of a template value. */
function goType(v: GoVal): string {
  if (v === undefined || v === null) return '<nil>';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof JsonNumber) return 'json.Number';
  if (v instanceof GoInt) return v.type;
  if (v instanceof GoFloat) return 'float64';
  return Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}';
}

/** A template value as Go's fmt receives it. */
function goArg(v: GoVal): GoArg {
  if (v === undefined || v === null) return { t: 'nil' };
  if (typeof v === 'string') return { t: 'string', v };
  if (typeof v === 'boolean') return { t: 'bool', v };
  if (v instanceof JsonNumber) return { t: 'string', v: v.text, type: 'json.Number' };
  if (v instanceof GoInt) return { t: 'int', v: v.v, type: v.type };
  if (v instanceof GoFloat) return { t: 'float', v: v.v };
  if (Array.isArray(v)) return { t: 'slice', v: v.map(goArg) };
  return { t: 'map', v: [...v.keys()].sort().map((k) => [k, goArg(v.get(k))]) };
}

/** printf's format: a Go string (a number, even json.Number, is a different type to Go). */
function formatArg(v: GoVal): string {
  if (typeof v === 'string') return v;
  if (v === undefined) throw new TemplateError('invalid value; expected string');
  if (v instanceof GoInt || v instanceof GoFloat) throw new TemplateError(`expected string; found ${fmtValue(v)}`);
  throw new TemplateError(`wrong type for value; expected string; got ${goType(v)}`);
}

/** fmt.Sprint: operands printed with %v, a space between two that are not strings. */
function sprint(args: GoVal[]): string {
  let out = '';
  const isStr = (x: GoVal): boolean => typeof x === 'string' || x instanceof JsonNumber;
  args.forEach((a, i) => {
    if (i > 0 && !isStr(a) && !isStr(args[i - 1])) out += ' ';
    out += fmtValue(a === undefined ? null : a);
  });
  return out;
}

/** text/template's evalArgs: one string argument as it is, anything else through fmt.Sprint, nil as `<no value>`. */
function evalArgs(args: GoVal[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (a === undefined || a === null ? NO_VALUE : a)));
}

const NO_VALUE = '<no value>';

const HTML_ESCAPES: Record<string, string> = { '\0': '\uFFFD', '"': '&#34;', "'": '&#39;', '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** template.HTMLEscapeString. */
function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => HTML_ESCAPES[c] as string);
}

const JS_ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '"': '\\"', '<': '\\u003C', '>': '\\u003E', '&': '\\u0026', '=': '\\u003D' };
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;

/** template.JSEscapeString: quotes, backslash, `<>&=` and control or unprintable characters as escapes. */
function jsEscape(s: string): string {
  let out = '';
  for (const c of s) {
    const code = c.codePointAt(0) as number;
    const special = JS_ESCAPES[c];
    if (special !== undefined) out += special;
    else if (code < 0x20) out += '\\u00' + code.toString(16).toUpperCase().padStart(2, '0');
    else if (code < 0x80 || PRINTABLE.test(c)) out += c;
    else out += '\\u' + code.toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

/** url.QueryEscape: unreserved bytes kept, space as `+`, every other byte `%XX`. */
function queryEscape(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** An index argument of `index` or `slice` (Go's indexArg), checked against `cap`. */
function indexArg(k: GoVal, cap: number): number {
  if (k === undefined || k === null) throw new TemplateError('cannot index slice/array with nil');
  if (!(k instanceof GoInt)) throw new TemplateError(`cannot index slice/array with type ${goType(k)}`);
  if (k.v < 0n || k.v > BigInt(cap)) throw new TemplateError(`index out of range: ${k.v}`);
  return Number(k.v);
}

/** Go's `index`: into arrays, strings (a byte) and maps (a missing key is nil). */
function index(item: GoVal, keys: GoVal[]): GoVal {
  if (item === undefined || item === null) throw new TemplateError('error calling index: index of untyped nil');
  let v: GoVal = item;
  for (const k of keys) {
    if (v === undefined || v === null) throw new TemplateError('error calling index: index of nil pointer');
    try {
      if (Array.isArray(v) || typeof v === 'string' || v instanceof JsonNumber) {
        const bytes: Buffer | undefined = Array.isArray(v) ? undefined : Buffer.from(str(v), 'utf8');
        const length: number = bytes === undefined ? (v as GoVal[]).length : bytes.length;
        const i = indexArg(k, length);
        if (i === length) throw new TemplateError(`index out of range: ${i}`);
        v = bytes === undefined ? (v as GoVal[])[i] : new GoInt(BigInt(bytes[i] as number), 'uint8');
      } else if (v instanceof Map) {
        if (k === undefined || k === null) throw new TemplateError('value is nil; should be of type string');
        if (typeof k !== 'string') throw new TemplateError(`value has type ${goType(k)}; should be string`);
        v = v.has(k) ? v.get(k) : null;
      } else {
        throw new TemplateError(`can't index item of type ${goType(v)}`);
      }
    } catch (e) {
      if (e instanceof TemplateError && !e.message.startsWith('error calling')) throw new TemplateError(`error calling index: ${e.message}`);
      throw e;
    }
  }
  return v;
}

/** Go's `slice`: `slice x 1 2` is x[1:2]; strings by bytes; at most three indexes, three only for arrays. */
function slice(item: GoVal, indexes: GoVal[]): GoVal {
  const fail = (message: string): never => {
    throw new TemplateError(`error calling slice: ${message}`);
  };
  if (item === undefined || item === null) return fail('slice of untyped nil');
  if (indexes.length > 3) return fail(`too many slice indexes: ${indexes.length}`);
  const text = typeof item === 'string' || item instanceof JsonNumber;
  if (!text && !Array.isArray(item)) return fail(`can't slice item of type ${goType(item)}`);
  if (text && indexes.length === 3) return fail('cannot 3-index slice a string');
  const bytes = text ? Buffer.from(str(item), 'utf8') : undefined;
  const length = bytes === undefined ? (item as GoVal[]).length : bytes.length;
  const idx = [0, length, length];
  indexes.forEach((k, i) => {
    try {
      idx[i] = indexArg(k, length);
    } catch (e) {
      fail((e as Error).message);
    }
  });
  const [from, to, max] = idx as [number, number, number];
  if (from > to) return fail(`invalid slice index: ${from} > ${to}`);
  if (indexes.length === 3 && to > max) return fail(`invalid slice index: ${to} > ${max}`);
  return bytes === undefined ? (item as GoVal[]).slice(from, to) : goUtf8(bytes.subarray(from, to));
}

/** Bytes as Go's JSON writes them: a string cut inside a character reads U+FFFD for each byte of the broken sequence. */
function goUtf8(bytes: Buffer): string {
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    const n = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    const chunk = n === 0 ? undefined : bytes.subarray(i, i + n);
    const text = chunk?.toString('utf8');
    if (chunk !== undefined && chunk.length === n && Buffer.from(text as string, 'utf8').equals(chunk)) {
      out += text;
      i += n;
    } else {
      out += '\uFFFD';
      i++;
    }
  }
  return out;
}

/** Thrown by `{{break}}` / `{{continue}}` to the innermost range. */
class LoopSignal {
  constructor(readonly kind: 'break' | 'continue') {}
}

/** Go's maxExecDepth (64-bit): templates calling templates deeper than this fail. */
const MAX_DEPTH = 100_000;
const DEPTH_ERROR = `template: template:1: exceeded maximum template depth (${MAX_DEPTH})`;
/** Range turns and template calls between two checks of the evaluation budget. */
const STEPS_PER_BUDGET_CHECK = 4096;

class Exec {
  private vars: Array<[string, GoVal]>;
  private depth = 0;
  private steps = 0;
  out = '';

  constructor(
    root: GoVal,
    private readonly trees: Map<string, Node[]>,
    private readonly checkBudget: (() => void) | undefined,
  ) {
    this.vars = [['$', root]];
  }

  /** Counts a step of unbounded work; the policy's evaluation budget stops a template that would run forever. */
  private step(): void {
    if (++this.steps % STEPS_PER_BUDGET_CHECK === 0) this.checkBudget?.();
  }

  private lookupVar(name: string): GoVal {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const [n, v] = this.vars[i] as [string, GoVal];
      if (n === name) return v;
    }
    throw new TemplateError(`template: template:1: undefined variable "${name}"`);
  }

  private setVar(name: string, v: GoVal): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const e = this.vars[i] as [string, GoVal];
      if (e[0] === name) {
        e[1] = v;
        return;
      }
    }
    throw new TemplateError(`template: template:1: undefined variable "${name}"`);
  }

  private field(v: GoVal, path: string[]): GoVal {
    for (const name of path) {
      if (v instanceof Map) v = v.has(name) ? v.get(name) : undefined;
      else if (v === undefined || v === null) throw new TemplateError(`template: template:1: nil pointer evaluating interface {}.${name}`);
      else throw new TemplateError(`template: template:1: can't evaluate field ${name} in type ${kind(v)}`);
    }
    return v;
  }

  private operand(o: Operand, dot: GoVal): GoVal {
    switch (o.t) {
      case 'field':
        return this.field(dot, o.path);
      case 'var':
        return this.field(this.lookupVar(o.name), o.path);
      case 'lit':
        if (o.overflow === true) throw new TemplateError(`template: template:1: ${o.text ?? ''} overflows int`);
        return o.v;
      case 'pipe':
        return this.field(this.pipe(o.pipe, dot, false), o.path);
      case 'ident':
        return callFunction(o.name, []);
    }
  }

  private command(cmd: Operand[], dot: GoVal, prev: GoVal | typeof NONE): GoVal {
    const [first, ...rest] = cmd as [Operand, ...Operand[]];
    if (first.t === 'ident') {
      if (first.name === 'call') return this.call(rest, dot);
      const args = rest.map((o) => this.operand(o, dot));
      if (prev !== NONE) args.push(prev);
      return callFunction(first.name, args);
    }
    if (rest.length > 0 || prev !== NONE) throw new TemplateError("template: template:1: can't give argument to non-function");
    return this.operand(first, dot);
  }

  /** `call fn args...`: data from Rego holds no functions, so every call fails as Go's does for a non-function. */
  private call(args: Operand[], dot: GoVal): never {
    const [fn] = args;
    if (fn === undefined) throw new TemplateError('wrong number of args for call: want at least 1 got 0');
    const v = this.operand(fn, dot);
    if (v === undefined || v === null) throw new TemplateError('error calling call: call of nil');
    throw new TemplateError(`error calling call: non-function ${operandText(fn)} of type ${goType(v)}`);
  }

  /** Evaluates a pipeline; declarations push variables (`scoped` ones are popped by the caller). */
  pipe(p: Pipe, dot: GoVal, declare: boolean): GoVal {
    let v: GoVal | typeof NONE = NONE;
    for (const cmd of p.cmds) v = this.command(cmd, dot, v);
    const value = v as GoVal;
    if (declare && p.decl.length > 0) {
      for (const name of p.decl) {
        if (p.assign) this.setVar(name, value);
        else this.vars.push([name, value]);
      }
    }
    return value;
  }

  run(list: Node[], dot: GoVal): void {
    const mark = this.vars.length;
    for (const n of list) this.node(n, dot);
    this.vars.length = mark;
  }

  private node(n: Node, dot: GoVal): void {
    switch (n.t) {
      case 'text':
        this.out += n.s;
        return;
      case 'action': {
        const v = this.pipe(n.pipe, dot, true);
        // A pipeline's nil result (JSON null, a missing key) is Go's invalid value once the interface is unwrapped: `<no value>`.
        if (n.pipe.decl.length === 0) this.out += v === null ? NO_VALUE : fmtValue(v);
        return;
      }
      case 'if':
      case 'with': {
        const mark = this.vars.length;
        const v = this.pipe(n.pipe, dot, true);
        if (truth(v)) this.run(n.list, n.t === 'with' ? v : dot);
        else this.run(n.alt, dot);
        this.vars.length = mark;
        return;
      }
      case 'range':
        this.range(n, dot);
        return;
      case 'template':
        this.template(n.name, n.pipe === undefined ? undefined : this.pipe(n.pipe, dot, false));
        return;
      case 'break':
      case 'continue':
        throw new LoopSignal(n.t);
    }
  }

  /** Runs a named tree with `dot` as its `.` and `$`, in a scope of its own. */
  private template(name: string, dot: GoVal): void {
    const tree = this.trees.get(name);
    if (tree === undefined) throw new TemplateError(`template: template:1: template ${goQuote(name)} not defined`);
    if (this.depth >= MAX_DEPTH) throw new TemplateError(DEPTH_ERROR);
    this.step();
    const saved = this.vars;
    this.vars = [['$', dot]];
    this.depth++;
    try {
      this.run(tree, dot);
    } finally {
      this.depth--;
      this.vars = saved;
    }
  }

  private range(n: ControlNode, dot: GoVal): void {
    const mark = this.vars.length;
    const v = this.pipe({ ...n.pipe, decl: [] }, dot, false);
    let count: bigint;
    let item: (i: bigint) => [GoVal, GoVal];
    if (Array.isArray(v)) {
      count = BigInt(v.length);
      item = (i) => [new GoInt(i), v[Number(i)]];
    } else if (v instanceof Map) {
      const keys = [...v.keys()].sort();
      count = BigInt(keys.length);
      item = (i) => {
        const k = keys[Number(i)] as string;
        return [k, v.get(k)];
      };
    } else if (v instanceof GoInt) {
      // Go 1.22's range over an integer, counted without building a list: the budget bounds it, not memory.
      count = v.v < 0n ? 0n : v.v;
      item = (i) => [new GoInt(i), new GoInt(i)];
    } else if (v === undefined || v === null) {
      count = 0n;
      item = () => [undefined, undefined];
    } else {
      throw new TemplateError(`template: template:1: range can't iterate over ${fmtValue(v)}`);
    }
    if (count === 0n) {
      this.run(n.alt, dot);
      return;
    }
    const d = n.pipe.decl;
    for (let i = 0n; i < count; i++) {
      this.step();
      const [k, e] = item(i);
      this.vars.length = mark;
      if (d.length === 1) this.vars.push([d[0] as string, e]);
      else if (d.length === 2) this.vars.push([d[0] as string, k], [d[1] as string, e]);
      try {
        this.run(n.list, e);
      } catch (signal) {
        if (!(signal instanceof LoopSignal)) throw signal;
        if (signal.kind === 'break') break;
      }
    }
    this.vars.length = mark;
  }
}

/** An operand as written, for Go's messages (`non-function .a of type json.Number`). */
function operandText(o: Operand): string {
  switch (o.t) {
    case 'field':
      return o.path.length === 0 ? '.' : `.${o.path.join('.')}`;
    case 'var':
      return [o.name, ...o.path].join('.');
    case 'lit':
      return o.text ?? (typeof o.v === 'string' ? JSON.stringify(o.v) : fmtValue(o.v));
    case 'ident':
      return o.name;
    case 'pipe':
      return `(...)${o.path.map((p) => `.${p}`).join('')}`;
  }
}

const NONE: unique symbol = Symbol('none');

/** Renders `src` with `data`; throws TemplateError (Go's error) or PolicyError (the evaluation budget ran out). */
export function renderGoTemplate(src: string, data: GoVal, checkBudget?: () => void): string {
  const parsed: ParsedTemplate = parseTemplate(src);
  const ex = new Exec(data, parsed.trees, checkBudget);
  try {
    ex.run(parsed.main, data);
  } catch (e) {
    // Deep template recursion runs out of JavaScript's stack before Go's depth limit: the same failure, reported as Go does.
    if (e instanceof RangeError && /call stack/.test(e.message)) throw new TemplateError(DEPTH_ERROR);
    throw e;
  }
  return ex.out;
}

// ---------------------------------------------------------------- builtin

/**
 * OPA v1.20.2 hands the variables to Go through their Rego text read back as
 * JSON, so a string Go quotes with an escape JSON lacks (`\x01`, `\a`, `\v`,
 * `\U0001…`) fails as Go's JSON decoder fails on it.
 */
function checkJsonEscapes(s: string): string {
  for (const m of goQuote(s).matchAll(/\\(.)/g)) {
    const c = m[1] as string;
    if (!'"\\/bfnrtu'.includes(c)) throw new BuiltinError(`invalid character '${c}' in string escape code`);
  }
  return s;
}

/** Rego value → Go value as OPA converts it (through JSON; numbers stay json.Number). */
function toGo(v: Value): GoVal {
  if (typeof v === 'string') return checkJsonEscapes(v);
  if (v === null || typeof v === 'boolean') return v;
  if (isNumber(v)) return new JsonNumber(formatNumber(v));
  if (Array.isArray(v)) return v.map(toGo);
  if (v instanceof RegoSet) return v.values().map(toGo);
  const m = new Map<string, GoVal>();
  for (const [k, x] of (v as RegoObject).entries()) {
    if (typeof k !== 'string') throw new BuiltinError(`json: unsupported type: object key ${typeName(k)}`);
    m.set(checkJsonEscapes(k), toGo(x));
  }
  return m;
}

export const templateBuiltins: BuiltinDefinition[] = [
  {
    name: 'strings.render_template',
    args: ['string', 'object'],
    result: 'string',
    impl: ([tpl, vars], ctx) => {
      const src = asString(tpl, 1);
      const data = toGo(asObject(vars, 2));
      try {
        return renderGoTemplate(src, data, ctx.checkBudget?.bind(ctx)).replaceAll('<no value>', '<undefined>');
      } catch (e) {
        if (e instanceof TemplateError) throw new BuiltinError(e.message);
        if (PolicyError.isInstance(e) && e.location === undefined) throw new PolicyError({ code: e.code, detail: e.detail, location: ctx.location });
        throw e;
      }
    },
  },
];
