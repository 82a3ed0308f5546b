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
import { callFunction, fmtValue, goType, SIGNATURES, truth } from './go-template-funcs.js';
import {
  type At,
  type Command,
  type ControlNode,
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

/** Thrown by `{{break}}` / `{{continue}}` to the innermost range. */
class LoopSignal {
  constructor(readonly kind: 'break' | 'continue') {}
}

/** Go's maxExecDepth (64-bit): templates calling templates deeper than this fail. */
const MAX_DEPTH = 100_000;
/** Range turns and template calls between two checks of the evaluation budget. */
const STEPS_PER_BUDGET_CHECK = 4096;

const NONE: unique symbol = Symbol('none');
type Final = GoVal | typeof NONE;

/**
 * What a function's parameter is in Go: a `reflect.Value` (most), `any` (the printing ones) or a `string` (printf's
 * format), which decides how an argument is checked.
 */
type Param = 'value' | 'any' | 'string';

/**
 * Runs a parsed template as Go's text/template executor does, down to where it stands when it fails: `at` is the node
 * Go's `state.at` last recorded, so an error reads `template: template:1:9: executing "template" at <node>: …`.
 *
 * A value Go holds inside an interface (a map's or array's element, read as it is: a field, a range element) is
 * "boxed": a field of it names `interface {}` in errors, and a JSON null there is a nil interface, where a pipeline's
 * result is unwrapped (null becomes no value).
 */
class Exec {
  private vars: Array<[name: string, value: GoVal, boxed: boolean]>;
  private depth = 0;
  private steps = 0;
  private at: At | undefined;
  private name = 'template';
  private dotBoxed = false;
  out = '';

  constructor(
    root: GoVal,
    private readonly trees: Map<string, Node[]>,
    private readonly src: string,
    private readonly checkBudget: (() => void) | undefined,
  ) {
    this.vars = [['$', root, false]];
  }

  /** Go's state.errorf: the message after where the executor stands (line, byte column, template, node). */
  error(message: string): TemplateError {
    const at = this.at;
    if (at === undefined) return new TemplateError(`template: ${this.name}: ${message}`);
    const before = this.src.slice(0, at.pos);
    const line = before.split('\n').length;
    const col = Buffer.byteLength(before.slice(before.lastIndexOf('\n') + 1), 'utf8');
    return new TemplateError(`template: template:${line}:${col}: executing ${goQuote(this.name)} at <${at.text}>: ${message}`);
  }

  private fail(message: string): never {
    throw this.error(message);
  }

  /** Counts a step of unbounded work; the policy's evaluation budget stops a template that would run forever. */
  private step(): void {
    if (++this.steps % STEPS_PER_BUDGET_CHECK === 0) this.checkBudget?.();
  }

  private lookupVar(name: string): [GoVal, boolean] {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const [n, v, boxed] = this.vars[i] as [string, GoVal, boolean];
      if (n === name) return [v, boxed];
    }
    throw new TemplateError(`template: template:1: undefined variable "${name}"`);
  }

  private setVar(name: string, v: GoVal): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const e = this.vars[i] as [string, GoVal, boolean];
      if (e[0] === name) {
        e[1] = v;
        e[2] = false;
        return;
      }
    }
    throw new TemplateError(`template: template:1: undefined variable "${name}"`);
  }

  /** Go's evalFieldChain: each name looked up in the value before; the last one is given the command's arguments. */
  private fieldChain(v: GoVal, boxed: boolean, path: string[], hasArgs: boolean): GoVal {
    path.forEach((name, i) => {
      if (v === undefined) return;
      const type = boxed || v === null ? 'interface {}' : goType(v);
      if (v === null) this.fail(`nil pointer evaluating ${type}.${name}`);
      if (!(v instanceof Map)) this.fail(`can't evaluate field ${name} in type ${type}`);
      if (hasArgs && i === path.length - 1) this.fail(`${name} is not a method but has arguments`);
      v = v.has(name) ? v.get(name) : undefined;
      boxed = true;
    });
    return v;
  }

  private notAFunction(args: Operand[], final: Final): void {
    if (args.length > 1 || final !== NONE) this.fail(`can't give argument to non-function ${(args[0] as Operand).text}`);
  }

  /** Go's evalCommand: a function call, or one operand (which takes no arguments). */
  private command(cmd: Command, dot: GoVal, final: Final): GoVal {
    const first = cmd.args[0] as Operand;
    const hasArgs = cmd.args.length > 1 || final !== NONE;
    switch (first.t) {
      case 'ident':
        return this.func(first, cmd, dot, final);
      case 'field':
        if (first.path.length === 0) break;
        this.at = first;
        return this.fieldChain(dot, this.dotBoxed, first.path, hasArgs);
      case 'var': {
        this.at = first;
        const [v, boxed] = this.lookupVar(first.name);
        if (first.path.length === 0) {
          this.notAFunction(cmd.args, final);
          return v;
        }
        return this.fieldChain(v, boxed, first.path, hasArgs);
      }
      case 'pipe':
        if (first.path.length === 0) {
          this.notAFunction(cmd.args, final);
          return this.pipe(first.pipe, dot, false);
        }
        this.at = first;
        return this.fieldChain(this.pipe(first.pipe, dot, false), false, first.path, hasArgs);
      case 'lit':
        break;
    }
    this.at = first;
    this.notAFunction(cmd.args, final);
    if (first.t === 'field') return dot;
    if (first.t === 'lit' && first.v === null) this.fail('nil is not a command');
    return this.literal(first as Operand & { t: 'lit' });
  }

  private literal(o: Operand & { t: 'lit' }): GoVal {
    this.at = o;
    if (o.overflow === true) this.fail(`${o.text} overflows int`);
    return o.v;
  }

  /** Go's evalFunction and evalCall: arity first (at the name), then the arguments, `and`/`or` stopping early. */
  private func(ident: Operand & { t: 'ident' }, cmd: Command, dot: GoVal, final: Final): GoVal {
    this.at = ident;
    const name = ident.name;
    const sig = SIGNATURES.get(name);
    if (sig === undefined) throw new TemplateError(`template: template:1: function "${name}" not defined`);
    const args = cmd.args.slice(1);
    const numIn = args.length + (final === NONE ? 0 : 1);
    if (sig.variadic && numIn < sig.fixed) this.fail(`wrong number of args for ${name}: want at least ${sig.fixed} got ${args.length}`);
    if (!sig.variadic && numIn !== sig.fixed) this.fail(`wrong number of args for ${name}: want ${sig.fixed} got ${numIn}`);
    if (name === 'and' || name === 'or') {
      let v: GoVal = undefined;
      for (const a of args) {
        v = this.arg(a, dot, 'value');
        if (truth(v) === (name === 'or')) return v;
      }
      return final === NONE ? v : final;
    }
    const param = (i: number): Param => (name === 'printf' && i === 0 ? 'string' : PRINTING.has(name) || name === 'printf' ? 'any' : 'value');
    const values: GoVal[] = [];
    const boxed: boolean[] = [];
    args.forEach((a, i) => {
      const [v, b] = this.heldArg(a, dot, param(i));
      values.push(v);
      boxed.push(b);
    });
    if (final !== NONE) {
      if (param(values.length) === 'string') this.validate(final, 'string');
      values.push(final);
      boxed.push(false);
    }
    if (name === 'call') return this.call(cmd, args.length === 0 ? valueString(final as GoVal) : (args[0] as Operand).text, values[0]);
    try {
      return callFunction(name, values, boxed);
    } catch (e) {
      if (!(e instanceof TemplateError) || !e.message.startsWith('error calling')) throw e;
      this.at = cmd;
      return this.fail(e.message);
    }
  }

  /** `call fn args...`: data from Rego holds no functions, so every call fails as Go's does for a non-function. */
  private call(cmd: Command, callee: string, fn: GoVal): never {
    this.at = cmd;
    if (fn === undefined || fn === null) this.fail('error calling call: call of nil');
    return this.fail(`error calling call: non-function ${callee} of type ${goType(fn)}`);
  }

  private arg(o: Operand, dot: GoVal, param: Param): GoVal {
    return this.heldArg(o, dot, param)[0];
  }

  /** Go's evalArg: an argument evaluated and checked against its parameter, and whether Go holds it in an interface. */
  private heldArg(o: Operand, dot: GoVal, param: Param): [GoVal, boolean] {
    this.at = o;
    switch (o.t) {
      case 'field':
        if (o.path.length === 0) return [this.validate(dot, param), this.dotBoxed];
        return [this.validate(this.fieldChain(dot, this.dotBoxed, o.path, false), param), true];
      case 'var': {
        const [v, boxed] = this.lookupVar(o.name);
        if (o.path.length === 0) return [this.validate(v, param), boxed];
        return [this.validate(this.fieldChain(v, boxed, o.path, false), param), true];
      }
      case 'pipe': {
        const v = this.pipe(o.pipe, dot, false);
        if (o.path.length === 0) return [this.validate(v, param), false];
        this.at = o;
        return [this.validate(this.fieldChain(v, false, o.path, false), param), true];
      }
      case 'ident':
        return [this.validate(this.func(o, { args: [o], pos: o.pos, text: o.text }, dot, NONE), param), false];
      case 'lit':
        if (o.v === null) return [param === 'string' ? this.fail('cannot assign nil to string') : undefined, false];
        if (param === 'string' && typeof o.v !== 'string') this.fail(`expected string; found ${o.text}`);
        return [this.literal(o), false];
    }
  }

  /** Go's validateType, for printf's format (other parameters take any value). */
  private validate(v: GoVal, param: Param): GoVal {
    if (param !== 'string' || typeof v === 'string') return v;
    if (v === undefined) this.fail('invalid value; expected string');
    return this.fail(`wrong type for value; expected string; got ${v === null ? 'interface {}' : goType(v)}`);
  }

  /** Go's evalPipeline: commands in order, each given the previous result; declarations push variables. */
  pipe(p: Pipe, dot: GoVal, declare: boolean): GoVal {
    this.at = p;
    let v: Final = NONE;
    for (const cmd of p.cmds) v = this.command(cmd, dot, v);
    // Go unwraps the interface a result is in: a JSON null read from the data becomes no value.
    const value = v === null ? undefined : (v as GoVal);
    if (declare && p.decl.length > 0) {
      for (const name of p.decl) {
        if (p.assign) this.setVar(name, value);
        else this.vars.push([name, value, false]);
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
        if (n.t === 'if' && truth(v)) this.run(n.list, dot);
        else if (truth(v)) this.within(false, () => this.run(n.list, v));
        else this.run(n.alt, dot);
        this.vars.length = mark;
        return;
      }
      case 'range':
        this.range(n, dot);
        return;
      case 'template':
        this.template(n, dot);
        return;
      case 'break':
      case 'continue':
        throw new LoopSignal(n.t);
    }
  }

  /** Runs `f` with a new dot, boxed or not as Go holds it. */
  private within(boxed: boolean, f: () => void): void {
    const saved = this.dotBoxed;
    this.dotBoxed = boxed;
    try {
      f();
    } finally {
      this.dotBoxed = saved;
    }
  }

  /** Go's walkTemplate: runs a named tree with the pipeline's value as its `.` and `$`, in a scope of its own. */
  private template(n: Node & { t: 'template' }, dot: GoVal): void {
    this.at = n;
    const tree = this.trees.get(n.name);
    if (tree === undefined) this.fail(`template ${goQuote(n.name)} not defined`);
    if (this.depth >= MAX_DEPTH) this.fail(`exceeded maximum template depth (${MAX_DEPTH})`);
    const value = n.pipe === undefined ? undefined : this.pipe(n.pipe, dot, false);
    this.step();
    const saved = { vars: this.vars, name: this.name, boxed: this.dotBoxed };
    this.vars = [['$', value, false]];
    this.name = n.name;
    this.dotBoxed = false;
    this.depth++;
    try {
      this.run(tree as Node[], value);
    } finally {
      this.depth--;
      this.vars = saved.vars;
      this.name = saved.name;
      this.dotBoxed = saved.boxed;
    }
  }

  private range(n: ControlNode, dot: GoVal): void {
    const mark = this.vars.length;
    const v = this.pipe({ ...n.pipe, decl: [] }, dot, false);
    let count: bigint;
    let item: (i: bigint) => [GoVal, GoVal];
    // Elements of arrays and objects are boxed; the integers of a range over a number are not.
    let boxed = true;
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
      boxed = false;
    } else if (v === undefined || v === null) {
      count = 0n;
      item = () => [undefined, undefined];
    } else {
      return this.fail(`range can't iterate over ${fmtValue(v)}`);
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
      if (d.length === 1) this.vars.push([d[0] as string, e, boxed]);
      else if (d.length === 2) this.vars.push([d[0] as string, k, false], [d[1] as string, e, boxed]);
      try {
        this.within(boxed, () => this.run(n.list, e));
      } catch (signal) {
        if (!(signal instanceof LoopSignal)) throw signal;
        if (signal.kind === 'break') break;
      }
    }
    this.vars.length = mark;
  }
}

/** The functions whose parameters are Go's `...any` (printf's after the format). */
const PRINTING = new Set(['print', 'println', 'html', 'js', 'urlquery']);

/** reflect.Value's String() of a pipeline value `call` is given: a string is itself, anything else `<T Value>`. */
function valueString(v: GoVal): string {
  if (typeof v === 'string') return v;
  if (v instanceof JsonNumber) return v.text;
  return `<${v === undefined || v === null ? 'invalid' : goType(v)} Value>`;
}

/** Renders `src` with `data`; throws TemplateError (Go's error) or PolicyError (the evaluation budget ran out). */
export function renderGoTemplate(src: string, data: GoVal, checkBudget?: () => void): string {
  const parsed: ParsedTemplate = parseTemplate(src);
  const ex = new Exec(data, parsed.trees, src, checkBudget);
  try {
    ex.run(parsed.main, data);
  } catch (e) {
    // Deep template recursion runs out of JavaScript's stack before Go's depth limit: the same failure, reported as Go does.
    if (e instanceof RangeError && /call stack/.test(e.message)) throw ex.error(`exceeded maximum template depth (${MAX_DEPTH})`);
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
