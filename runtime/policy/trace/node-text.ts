/**
 * The text of a compiled rule, body or expression as OPA's `String()` prints
 * it in traces: calls in prefix form (`gt(x, 1)`), `=` for unification,
 * rules as `head if { body }`. Variables renamed by the compiler are shown
 * by their names in the policy; its temporaries as `__localN__`.
 */
import type { Body, Expr, Rule, Term } from '../ast.js';
import { refName } from '../ast.js';
import type { VarGen } from '../compiler/locals.js';
import { termVars } from '../compiler/walk.js';
import { goQuote } from '../value-format.js';

function isGround(t: Term): boolean {
  const vars = new Set<string>();
  termVars(t, vars);
  return vars.size === 0;
}

export class NodeText {
  constructor(private readonly gen: VarGen) {}

  varName(name: string): string {
    if (!name.includes('$')) return name;
    const orig = this.gen.original.get(name);
    if (orig !== undefined) return orig;
    return `__local${name.replace(/\D/g, '')}__`;
  }

  body(b: Body): string {
    return b.length === 0 ? 'true' : b.map((e) => this.expr(e)).join('; ');
  }

  expr(e: Expr): string {
    let s: string;
    switch (e.kind) {
      case 'term':
        s = this.term(e.term);
        break;
      case 'call': {
        const name = refName(e.op);
        if (name === 'eq' && e.args.length === 2) s = `${this.term(e.args[0] as Term)} = ${this.term(e.args[1] as Term)}`;
        else if (name === 'assign' && e.args.length === 2) s = `${this.term(e.args[0] as Term)} := ${this.term(e.args[1] as Term)}`;
        else s = `${this.ref(e.op.terms)}(${e.args.map((a) => this.term(a)).join(', ')})`;
        break;
      }
      case 'some':
        s = e.inDomain
          ? `some ${e.inKey ? `${this.term(e.inKey)}, ` : ''}${this.term(e.inValue as Term)} in ${this.term(e.inDomain)}`
          : `some ${e.vars.map((v) => this.term(v)).join(', ')}`;
        break;
      case 'every':
        s = `every ${e.key ? `${this.term(e.key)}, ` : ''}${this.term(e.value)} in ${this.term(e.domain)} { ${this.body(e.body)} }`;
        break;
      case 'notbody':
        s = `not { ${this.body(e.body)} }`;
        break;
    }
    if (e.negated) s = `not ${s}`;
    for (const w of e.with) s += ` with ${this.term(w.target)} as ${this.term(w.value)}`;
    return s;
  }

  /** `allow = true if { ... }`, `default allow := false`, `f(x) := y if { ... } else = z if { ... }`. */
  rule(r: Rule): string {
    const h = r.head;
    let head = this.ref(h.ref);
    if (h.args) head += `(${h.args.map((a) => this.term(a)).join(', ')})`;
    if (h.key !== undefined && h.value === undefined) head += ` contains ${this.term(h.key)}`;
    else head += ` ${h.assign ? ':=' : '='} ${h.value === undefined ? 'true' : this.term(h.value)}`;
    if (r.default) return `default ${head}`;
    let s = `${head} if { ${this.body(r.body)} }`;
    for (let e = r.else; e !== undefined; e = e.else) {
      s += ` else ${e.head.assign ? ':=' : '='} ${e.head.value === undefined ? 'true' : this.term(e.head.value)} if { ${this.body(e.body)} }`;
    }
    return s;
  }

  /**
   * `data.p.allow`: the rule's package path followed by the ground prefix of
   * its head ref, as OPA's `Rule.Path()` (`test_x[name] if …` is `data.p.test_x`).
   */
  rulePath(r: Rule): string {
    const end = r.head.ref.findIndex((t, i) => i > 0 && !isGround(t));
    const ground = end < 0 ? r.head.ref : r.head.ref.slice(0, end);
    return `${this.ref(r.module.package.path.terms)}${this.ref(ground).replace(/^([^.[]+)/, '.$1')}`;
  }

  term(t: Term): string {
    switch (t.type) {
      case 'null':
        return 'null';
      case 'boolean':
        return String(t.value);
      case 'number':
        return String(t.value);
      case 'string':
        return goQuote(t.value);
      case 'var':
        return this.varName(t.name);
      case 'ref':
        return this.ref(t.terms);
      case 'array':
        return `[${t.items.map((x) => this.term(x)).join(', ')}]`;
      case 'set':
        return t.items.length === 0 ? 'set()' : `{${t.items.map((x) => this.term(x)).join(', ')}}`;
      case 'object':
        return `{${t.entries.map(([k, v]) => `${this.term(k)}: ${this.term(v)}`).join(', ')}}`;
      case 'arraycomp':
        return `[${this.term(t.term)} | ${this.body(t.body)}]`;
      case 'setcomp':
        return `{${this.term(t.term)} | ${this.body(t.body)}}`;
      case 'objectcomp':
        return `{${this.term(t.key)}: ${this.term(t.value)} | ${this.body(t.body)}}`;
      case 'call':
        return `${this.ref(t.op.terms)}(${t.args.map((a) => this.term(a)).join(', ')})`;
    }
  }

  ref(terms: Term[]): string {
    let out = '';
    terms.forEach((t, i) => {
      if (i === 0) out += t.type === 'var' ? this.varName(t.name) : this.term(t);
      else if (t.type === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value)) out += `.${t.value}`;
      else out += `[${this.term(t)}]`;
    });
    return out;
  }
}
