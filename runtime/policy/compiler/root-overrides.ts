/**
 * OPA's `checkRootDocumentOverrides`, a compile stage for Rego v1 modules: a
 * rule named `input` or `data` (`input := 1`, `data.x := 1`) and an
 * assignment to one (`input := 1` in a body) shadow the root documents.
 */
import type { Body, Expr, Module, Rule, Term } from '../ast.js';
import { PolicyError } from '../errors.js';
import { isOp } from './resolve.js';

const ROOTS = new Set(['input', 'data']);

/** `input` or `data` when `t` is that root alone (the parser reads it as a one-term ref). */
function rootName(t: Term | undefined): string | undefined {
  const v = t?.type === 'ref' && t.terms.length === 1 ? t.terms[0] : t;
  return v?.type === 'var' && ROOTS.has(v.name) ? v.name : undefined;
}

/** Adds the errors of `module`, rules first, then assignments, in the order OPA walks them. */
export function checkRootDocumentOverrides(module: Module, errors: PolicyError[]): void {
  for (const rule of module.rules) {
    const head = rule.head.ref[0];
    if (head?.type === 'var' && ROOTS.has(head.name)) {
      errors.push(
        new PolicyError({ code: 'rego_compile_error', detail: `rules must not shadow ${head.name} (use a different rule name)`, location: rule.loc }),
      );
    }
    for (const arg of rule.head.args ?? []) {
      const name = rootName(arg);
      if (name !== undefined) {
        errors.push(
          new PolicyError({ code: 'rego_compile_error', detail: `args must not shadow ${name} (use a different variable name)`, location: rule.loc }),
        );
      }
    }
  }
  const visit = (body: Body): void => {
    for (const e of body) expr(e);
  };
  const term = (t: Term): void => {
    switch (t.type) {
      case 'ref':
        t.terms.forEach(term);
        return;
      case 'array':
      case 'set':
        t.items.forEach(term);
        return;
      case 'object':
        for (const [k, v] of t.entries) {
          term(k);
          term(v);
        }
        return;
      case 'call':
        t.args.forEach(term);
        return;
      case 'arraycomp':
      case 'setcomp':
        term(t.term);
        visit(t.body);
        return;
      case 'objectcomp':
        term(t.key);
        term(t.value);
        visit(t.body);
        return;
      default:
        return;
    }
  };
  const expr = (e: Expr): void => {
    switch (e.kind) {
      case 'call': {
        const name = isOp(e.op, 'assign') ? rootName(e.args[0]) : undefined;
        if (name !== undefined) {
          errors.push(
            new PolicyError({ code: 'rego_compile_error', detail: `variables must not shadow ${name} (use a different variable name)`, location: e.loc }),
          );
        }
        e.args.forEach(term);
        break;
      }
      case 'term':
        term(e.term);
        break;
      case 'every':
        term(e.domain);
        visit(e.body);
        break;
      case 'notbody':
        visit(e.body);
        break;
      case 'some':
        if (e.inDomain !== undefined) term(e.inDomain);
        break;
    }
    for (const w of e.with) {
      term(w.target);
      term(w.value);
    }
  };
  for (const rule of module.rules) {
    for (let r: Rule | undefined = rule; r !== undefined; r = r.else) {
      if (r.head.value !== undefined) term(r.head.value);
      visit(r.body);
    }
  }
}
