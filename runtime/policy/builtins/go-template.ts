/**
 * A subset of Go's text/template, for strings.render_template.
 *
 * Supported: text, `{{- -}}` trim markers, comments, `{{pipeline}}` output,
 * fields (`.a.b`), variables (`$`, `$x`, `$x.a`), literals (strings, raw
 * strings, numbers, true/false/nil), pipes (`|`), parentheses, variable
 * declaration and assignment, `if`/`else if`/`else`, `range` (with `$i, $v :=`
 * and `else`), `with`, and the functions and, or, not, len, index, eq, ne, lt,
 * le, gt, ge, print. Anything else (printf, define/template/block, break,
 * ...) raises `unsupported`.
 *
 * Values come from JSON as in OPA (numbers are json.Number, i.e. strings for
 * comparisons). A missing map key prints `<no value>`, which OPA then turns
 * into `<undefined>`.
 */
import { PolicyError, unsupported } from '../errors.js';
import { isNumber, type RegoObject, RegoSet, typeName, type Value } from '../value.js';
import { formatNumber } from '../value-format.js';
import { asObject, asString, type BuiltinDefinition, BuiltinError } from './registry.js';
import { fmtG } from './sprintf.js';
import {
  type ControlNode,
  GoFloat,
  GoInt,
  type GoVal,
  JsonNumber,
  type Node,
  type Operand,
  parseTemplate,
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
  if (ka !== kb) throw new TemplateError(`error calling ${op}: incompatible types for comparison`);
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
      throw new TemplateError(`error calling len: len of type ${kind(a)}`);
    }
    case 'index': {
      let v = args[0];
      for (const k of args.slice(1)) {
        if (Array.isArray(v)) {
          if (!(k instanceof GoInt)) throw new TemplateError('error calling index: cannot index slice/array with non-integer');
          const i = Number(k.v);
          if (i < 0 || i >= v.length) throw new TemplateError(`error calling index: index out of range: ${i}`);
          v = v[i];
        } else if (v instanceof Map) {
          if (typeof k !== 'string') throw new TemplateError('error calling index: value has type int; should be string');
          v = v.has(k) ? v.get(k) : null;
        } else {
          throw new TemplateError(`error calling index: can't index item of type ${kind(v)}`);
        }
      }
      return v;
    }
    case 'eq': {
      if (args.length < 2) throw new TemplateError('error calling eq: missing argument for comparison');
      return args.slice(1).some((b) => compareBasic(args[0], b, 'eq') === 0);
    }
    case 'ne':
      need(2);
      return compareBasic(args[0], args[1], 'ne') !== 0;
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
    case 'print': {
      let out = '';
      args.forEach((a, i) => {
        const isStr = (x: GoVal): boolean => typeof x === 'string' || x instanceof JsonNumber;
        if (i > 0 && !isStr(a) && !isStr(args[i - 1])) out += ' ';
        out += fmtValue(a === undefined ? null : a);
      });
      return out;
    }
    default:
      if (['printf', 'println', 'html', 'js', 'urlquery', 'slice', 'call'].includes(name)) {
        throw unsupported(`template function ${name} in strings.render_template`);
      }
      throw new TemplateError(`template: template:1: function "${name}" not defined`);
  }
}

class Exec {
  private vars: Array<[string, GoVal]>;
  out = '';

  constructor(root: GoVal) {
    this.vars = [['$', root]];
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
      const args = rest.map((o) => this.operand(o, dot));
      if (prev !== NONE) args.push(prev);
      return callFunction(first.name, args);
    }
    if (rest.length > 0 || prev !== NONE) throw new TemplateError("template: template:1: can't give argument to non-function");
    return this.operand(first, dot);
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
        if (n.pipe.decl.length === 0) this.out += fmtValue(v);
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
    }
  }

  private range(n: ControlNode, dot: GoVal): void {
    const mark = this.vars.length;
    const v = this.pipe({ ...n.pipe, decl: [] }, dot, false);
    const items: Array<[GoVal, GoVal]> = [];
    if (Array.isArray(v)) v.forEach((e, i) => items.push([new GoInt(BigInt(i)), e]));
    else if (v instanceof Map) for (const k of [...v.keys()].sort()) items.push([k, v.get(k)]);
    else if (v instanceof GoInt) for (let i = 0n; i < v.v; i++) items.push([new GoInt(i), new GoInt(i)]);
    else if (v !== undefined && v !== null) throw new TemplateError(`template: template:1: range can't iterate over ${fmtValue(v)}`);
    if (items.length === 0) {
      this.run(n.alt, dot);
      return;
    }
    for (const [k, e] of items) {
      this.vars.length = mark;
      const d = n.pipe.decl;
      if (d.length === 1) this.vars.push([d[0] as string, e]);
      else if (d.length === 2) this.vars.push([d[0] as string, k], [d[1] as string, e]);
      this.run(n.list, e);
    }
    this.vars.length = mark;
  }
}

const NONE: unique symbol = Symbol('none');

/** Renders `src` with `data`; throws TemplateError (Go's error) or an `unsupported` PolicyError. */
export function renderGoTemplate(src: string, data: GoVal): string {
  const list = parseTemplate(src);
  const ex = new Exec(data);
  ex.run(list, data);
  return ex.out;
}

// ---------------------------------------------------------------- builtin

/** Rego value → Go value as OPA converts it (through JSON; numbers stay json.Number). */
function toGo(v: Value): GoVal {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (isNumber(v)) return new JsonNumber(formatNumber(v));
  if (Array.isArray(v)) return v.map(toGo);
  if (v instanceof RegoSet) return v.values().map(toGo);
  const m = new Map<string, GoVal>();
  for (const [k, x] of (v as RegoObject).entries()) {
    if (typeof k !== 'string') throw new BuiltinError(`json: unsupported type: object key ${typeName(k)}`);
    m.set(k, toGo(x));
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
        return renderGoTemplate(src, data).replaceAll('<no value>', '<undefined>');
      } catch (e) {
        if (e instanceof TemplateError) throw new BuiltinError(e.message);
        if (PolicyError.isInstance(e) && e.location === undefined) throw new PolicyError({ code: e.code, detail: e.detail, location: ctx.location });
        throw e;
      }
    },
  },
];
