/**
 * Compile-time checks: recursion between rules (`rego_recursion_error`),
 * calls to undefined functions and wrong numbers of arguments
 * (`rego_type_error`), and `with` targets.
 */
import type { Body, Expr, RefTerm, Rule, Term } from '../ast.js';
import { mkVar, refName, refToString } from '../ast.js';
import type { BuiltinRegistry } from '../builtins/registry.js';
import { PolicyError } from '../errors.js';
import type { Value } from '../value.js';
import { arityMismatchError } from './arity-error.js';
import { builtinDecl } from './builtin-decls.js';
import { constantValue } from './constant.js';
import { printType } from './rego-type.js';
import type { RuleNode } from './rule-tree.js';
import type { RuleTypes } from './type-infer.js';

/** Path of a `data` ref while its operands are constants; `rest` is true when a non-constant operand follows. */
export function dataRefPrefix(ref: RefTerm): { path: Value[]; rest: boolean } | undefined {
  const head = ref.terms[0];
  if (head === undefined || head.type !== 'var' || head.name !== 'data') return undefined;
  const path: Value[] = [];
  for (let i = 1; i < ref.terms.length; i++) {
    const v = constantValue(ref.terms[i] as Term);
    if (v === undefined) return { path, rest: true };
    path.push(v);
  }
  return { path, rest: false };
}

/** The function node a call operator names, if it is a `data` ref to functions. */
export function functionNode(root: RuleNode, op: RefTerm): RuleNode | undefined {
  const p = dataRefPrefix(op);
  if (p === undefined || p.rest) return undefined;
  const n = root.find(p.path);
  return n !== undefined && n.isFunction ? n : undefined;
}

/** Calls `f` for every term of a body (descending into everything). */
function walkBodyTerms(body: Body, f: (t: Term) => void): void {
  for (const e of body) walkExprTerms(e, f);
}

function walkExprTerms(e: Expr, f: (t: Term) => void): void {
  const term = (t: Term): void => {
    f(t);
    switch (t.type) {
      case 'ref':
        t.terms.forEach(term);
        break;
      case 'array':
      case 'set':
        t.items.forEach(term);
        break;
      case 'object':
        t.entries.forEach(([k, v]) => {
          term(k);
          term(v);
        });
        break;
      case 'call':
        term(t.op);
        t.args.forEach(term);
        break;
      case 'arraycomp':
      case 'setcomp':
        term(t.term);
        walkBodyTerms(t.body, f);
        break;
      case 'objectcomp':
        term(t.key);
        term(t.value);
        walkBodyTerms(t.body, f);
        break;
      default:
        break;
    }
  };
  switch (e.kind) {
    case 'term':
      term(e.term);
      break;
    case 'call':
      term(e.op);
      e.args.forEach(term);
      break;
    case 'every':
      term(e.domain);
      walkBodyTerms(e.body, f);
      break;
    case 'notbody':
      walkBodyTerms(e.body, f);
      break;
    case 'some':
      if (e.inDomain) term(e.inDomain);
      break;
  }
  // A `with` target is a ref of the rule too: OPA's dependency graph counts it (`with data.p.a` in `a` is recursion).
  for (const w of e.with) {
    term(w.target);
    term(w.value);
  }
}

function ruleTerms(rule: Rule, f: (t: Term) => void): void {
  for (let b: Rule | undefined = rule; b !== undefined; b = b.else) {
    walkBodyTerms(b.body, f);
    const h = b.head;
    h.ref.slice(1).forEach((t) => walkBodyTerms([{ kind: 'term', term: t, negated: false, with: [], loc: t.loc }], f));
    if (h.key) walkBodyTerms([{ kind: 'term', term: h.key, negated: false, with: [], loc: h.key.loc }], f);
    if (h.value) walkBodyTerms([{ kind: 'term', term: h.value, negated: false, with: [], loc: h.value.loc }], f);
  }
}

/**
 * Rule nodes a `data` ref may read (as OPA's GetRulesDynamic): constant
 * operands select one child, a variable operand tries every child, rules met
 * on the way are included, and everything under the node where the ref ends.
 */
function refDeps(root: RuleNode, ref: RefTerm, out: Set<RuleNode>): void {
  const head = ref.terms[0];
  if (head === undefined || head.type !== 'var' || head.name !== 'data') return;
  const walk = (node: RuleNode, i: number): void => {
    if (i >= ref.terms.length) {
      for (const n of node.ruleNodes()) out.add(n);
      return;
    }
    const v = constantValue(ref.terms[i] as Term);
    const next = v !== undefined ? [node.child(v)] : node.sortedChildren();
    for (const c of next) {
      if (c === undefined) continue;
      if (c.hasRules) out.add(c);
      walk(c, i + 1);
    }
  };
  walk(root, 1);
}

export function checkRecursion(root: RuleNode, errors: PolicyError[]): void {
  const deps = new Map<RuleNode, Set<RuleNode>>();
  for (const node of root.ruleNodes()) {
    const out = new Set<RuleNode>();
    for (const r of [...node.rules, ...node.defaults]) {
      ruleTerms(r.rule, (t) => {
        if (t.type === 'ref') refDeps(root, t, out);
      });
    }
    deps.set(node, out);
  }
  const state = new Map<RuleNode, 1 | 2>();
  const stack: RuleNode[] = [];
  const reported = new Set<RuleNode>();
  const visit = (n: RuleNode): void => {
    state.set(n, 1);
    stack.push(n);
    for (const d of deps.get(n) ?? []) {
      const s = state.get(d);
      if (s === 1) {
        const cycle = stack.slice(stack.indexOf(d));
        if (!reported.has(d)) {
          reported.add(d);
          const first = d.rules[0] ?? d.defaults[0];
          errors.push(
            new PolicyError({
              code: 'rego_recursion_error',
              detail: `rule ${d.name} is recursive: ${[...cycle, d].map((x) => x.name).join(' -> ')}`,
              location: first?.rule.loc,
            }),
          );
        }
      } else if (s === undefined) visit(d);
    }
    stack.pop();
    state.set(n, 2);
  };
  for (const n of deps.keys()) if (!state.has(n)) visit(n);
}

export interface CallCheck {
  root: RuleNode;
  builtins: BuiltinRegistry;
  errors: PolicyError[];
  /** The compiled rules' types, when a query is checked: OPA then words a user function's wrong arity with its type. */
  rules?: RuleTypes;
}

/**
 * Checks that every call names a known function with a valid number of operands, counted as OPA counts them: a call
 * the expander moved out of a term (`y := f(1)` is `f(1, $t)`, `generated`) has its output and takes exactly one
 * operand more than the function's arguments; a call written as an expression takes its arguments, with or without
 * an output.
 */
export function checkCalls(body: Body, c: CallCheck): void {
  const { root, builtins, errors } = c;
  const check = (op: RefTerm, operands: Term[], e: { loc: Expr['loc']; generated?: boolean }): void => {
    const nargs = operands.length;
    const fits = (arity: number): boolean => (e.generated === true ? nargs === arity + 1 : nargs === arity || nargs === arity + 1);
    const name = refName(op);
    const head = op.terms[0];
    if (head !== undefined && head.type === 'var' && head.name === 'data') {
      const node = functionNode(root, op);
      const label = refToString(op);
      if (node === undefined) {
        const p = dataRefPrefix(op);
        const n = p !== undefined && !p.rest ? root.find(p.path) : undefined;
        // As OPA words it: a rule has arity 0, so a call with operands beyond an output has the wrong arity (counted
        // without the output the compiler added to `y := r(1)`); with none, or only an output, it is no function at all.
        if (n !== undefined && n.hasRules && !fits(0)) {
          const given = e.generated === true ? nargs - 1 : nargs;
          const detail = `function ${label} has arity 0, got ${given} argument${given === 1 ? '' : 's'}`;
          errors.push(new PolicyError({ code: 'rego_type_error', detail, location: e.loc }));
        } else {
          errors.push(new PolicyError({ code: 'rego_type_error', detail: `undefined function ${label}`, location: e.loc }));
        }
        return;
      }
      const arity = (node.rules[0] ?? node.defaults[0])?.rule.head.args?.length ?? 0;
      if (fits(arity)) return;
      if (c.rules !== undefined) {
        // A query's check has the function's type: its arguments as the bodies type them (`any` where we are not certain).
        const fn = c.rules.functionType(op);
        const want = `(${(fn?.types.slice(0, -1).map(printType) ?? Array.from({ length: arity }, () => 'any')).join(', ')})`;
        errors.push(arityMismatchError({ label, want, operands, loc: e.loc, rules: c.rules }));
        return;
      }
      const given = e.generated === true ? nargs - 1 : nargs;
      const detail = `function ${label} has arity ${arity}, got ${given} argument${given === 1 ? '' : 's'}`;
      errors.push(new PolicyError({ code: 'rego_type_error', detail, location: e.loc }));
      return;
    }
    const def = name === undefined ? undefined : builtins.resolve(name);
    const label = name ?? refToString(op);
    if (def === undefined) {
      errors.push(new PolicyError({ code: 'rego_type_error', detail: `undefined function ${label}`, location: e.loc }));
      return;
    }
    const decl = builtinDecl(label);
    if (decl !== undefined) {
      if (!fits(decl.types.length - 1))
        errors.push(arityMismatchError({ label, want: decl.wantArgs, operands, loc: e.loc, ...(c.rules ? { rules: c.rules } : {}) }));
      return;
    }
    // A builtin OPA does not declare: ours alone, worded our way.
    const arity = def.args.length;
    if (nargs < arity) errors.push(new PolicyError({ code: 'rego_type_error', detail: `${label}: too few arguments`, location: e.loc }));
    else if (nargs > arity + (def.result === undefined ? 0 : 1)) {
      errors.push(new PolicyError({ code: 'rego_type_error', detail: `${label}: too many arguments`, location: e.loc }));
    }
  };
  const visitTerm = (t: Term): void => {
    switch (t.type) {
      case 'call':
        // A call left in a term has its output added when evaluated, as one the expander moved out.
        check(t.op, [...t.args, mkVar('$out', t.loc)], { loc: t.loc, generated: true });
        t.args.forEach(visitTerm);
        break;
      case 'ref':
        t.terms.forEach(visitTerm);
        break;
      case 'array':
      case 'set':
        t.items.forEach(visitTerm);
        break;
      case 'object':
        t.entries.forEach(([k, v]) => {
          visitTerm(k);
          visitTerm(v);
        });
        break;
      case 'arraycomp':
      case 'setcomp':
        visitTerm(t.term);
        visitBody(t.body);
        break;
      case 'objectcomp':
        visitTerm(t.key);
        visitTerm(t.value);
        visitBody(t.body);
        break;
      default:
        break;
    }
  };
  const visitBody = (b: Body): void => {
    for (const e of b) {
      switch (e.kind) {
        case 'call': {
          const n = refName(e.op);
          if (n !== 'eq' && n !== 'assign') check(e.op, e.args, e);
          e.args.forEach(visitTerm);
          break;
        }
        case 'term':
          visitTerm(e.term);
          break;
        case 'every':
          visitTerm(e.domain);
          visitBody(e.body);
          break;
        case 'notbody':
          visitBody(e.body);
          break;
        case 'some':
          if (e.inDomain) visitTerm(e.inDomain);
          break;
      }
      for (const w of e.with) visitTerm(w.value);
    }
  };
  visitBody(body);
}
