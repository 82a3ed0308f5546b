/**
 * The rule tree: one node per path segment of `data` that rules (or
 * packages) define. A rule sits at the node of its head's ground prefix
 * (`data.pkg.p` for `p := 1` or `p[x] := 1`); the rest of its head ref is its
 * suffix. Interior nodes have no rules; their value is the object of their
 * children (merged with base data at evaluation).
 */
import type { Module, Rule, Term } from '../ast.js';
import { refToString } from '../ast.js';
import { PolicyError } from '../errors.js';
import { formatValue } from '../value-format.js';
import { canonicalKey, compare, RegoNumText, type Scalar, type Value } from '../value.js';
import { constantValue } from './constant.js';

export type RuleKind = 'complete' | 'multi' | 'function';

export interface PreparedRule {
  rule: Rule;
  node: RuleNode;
  /** Head ref terms after the node's path (vars or constants). */
  suffix: Term[];
  kind: RuleKind;
  /** Data path of the rule head as text, e.g. `data.test.p`. */
  name: string;
  /** Compiled form, attached by the evaluator. */
  compiled?: unknown;
}

export class RuleNode {
  readonly children = new Map<Scalar, RuleNode>();
  private compChildren: Map<string, RuleNode> | null = null;
  private sorted: RuleNode[] | null = null;
  readonly rules: PreparedRule[] = [];
  readonly defaults: PreparedRule[] = [];
  /** Evaluator-owned data (compiled node evaluator). */
  runtime: unknown = undefined;

  constructor(
    readonly key: Value,
    readonly path: readonly Value[],
  ) {}

  get name(): string {
    return 'data' + this.path.map((k) => (typeof k === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? '.' + k : '[' + formatValue(k) + ']')).join('');
  }

  get hasRules(): boolean {
    return this.rules.length > 0 || this.defaults.length > 0;
  }

  get isFunction(): boolean {
    const r = this.rules[0] ?? this.defaults[0];
    return r !== undefined && r.kind === 'function';
  }

  child(key: Value): RuleNode | undefined {
    if (key instanceof RegoNumText) key = key.value;
    if (key === null || typeof key !== 'object') return this.children.get(key);
    return this.compChildren?.get(canonicalKey(key));
  }

  ensureChild(key: Value): RuleNode {
    const existing = this.child(key);
    if (existing !== undefined) return existing;
    if (key instanceof RegoNumText) key = key.value;
    const n = new RuleNode(key, [...this.path, key]);
    if (key === null || typeof key !== 'object') this.children.set(key, n);
    else (this.compChildren ??= new Map()).set(canonicalKey(key), n);
    this.sorted = null;
    return n;
  }

  /** Children in key order. */
  sortedChildren(): readonly RuleNode[] {
    if (this.sorted === null) {
      const all = [...this.children.values(), ...(this.compChildren?.values() ?? [])];
      all.sort((a, b) => compare(a.key, b.key));
      this.sorted = all;
    }
    return this.sorted;
  }

  /** Finds the node at `path` (relative to this node). */
  find(path: readonly Value[]): RuleNode | undefined {
    let n: RuleNode | undefined = this;
    for (const k of path) {
      n = n.child(k);
      if (n === undefined) return undefined;
    }
    return n;
  }

  /** All nodes with rules in this subtree (including this one). */
  *ruleNodes(): Generator<RuleNode> {
    if (this.hasRules) yield this;
    for (const c of this.sortedChildren()) yield* c.ruleNodes();
  }
}

function typeErr(detail: string, rule: Rule): PolicyError {
  return new PolicyError({ code: 'rego_type_error', detail, location: rule.loc });
}

/** Package path of a module (without `data`). */
function packagePath(m: Module): string[] {
  return m.package.path.terms.slice(1).map((t) => (t.type === 'string' ? t.value : ''));
}

/** Builds the rule tree of all rules; every module's package is a (possibly empty) node. */
export function buildRuleTree(rules: Rule[], modules: readonly Module[], errors: PolicyError[]): RuleNode {
  const root = new RuleNode('data', []);
  const packageNodes = new Map<RuleNode, Module[]>();
  for (const m of modules) {
    let n = root;
    for (const k of packagePath(m)) n = n.ensureChild(k);
    const list = packageNodes.get(n);
    if (list === undefined) packageNodes.set(n, [m]);
    else list.push(m);
  }
  for (const rule of rules) {
    const pkg = packagePath(rule.module);
    const head = rule.head;
    const refTerms = head.ref;
    const first = refTerms[0] as Term;
    const segs: Value[] = [...pkg, first.type === 'var' ? first.name : ''];
    let i = 1;
    for (; i < refTerms.length; i++) {
      const v = constantValue(refTerms[i] as Term);
      if (v === undefined) break;
      segs.push(v);
    }
    const suffix = refTerms.slice(i);
    let node = root;
    for (const k of segs) node = node.ensureChild(k);
    const kind: RuleKind = head.args !== undefined ? 'function' : head.key !== undefined ? 'multi' : 'complete';
    if (kind === 'function' && suffix.length > 0) {
      errors.push(typeErr('function rule heads must be ground refs', rule));
      continue;
    }
    const name = 'data.' + [...pkg.map((s) => String(s))].join('.') + '.' + refToString(refTerms);
    if (suffix.length === 0) checkPackageConflict(rule, packageNodes.get(node), errors);
    const prepared: PreparedRule = { rule, node, suffix, kind, name };
    if (rule.default) {
      if (suffix.length > 0) {
        errors.push(typeErr(`default rules must have a ground ref head`, rule));
        continue;
      }
      if (node.defaults.length > 0) {
        errors.push(typeErr(`multiple default rules ${node.name} found`, rule));
        continue;
      }
      node.defaults.push(prepared);
    } else node.rules.push(prepared);
  }
  checkConflicts(root, errors);
  return root;
}

function packageName(m: Module): string {
  return packagePath(m)
    .map((k, i) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? (i === 0 ? k : '.' + k) : `[${JSON.stringify(k)}]`))
    .join('');
}

/** A rule whose (ground) path is also another module's package (OPA: `package a.b conflicts with rule b defined at f:3`). */
function checkPackageConflict(rule: Rule, packages: Module[] | undefined, errors: PolicyError[]): void {
  for (const m of packages ?? []) {
    if (m === rule.module) continue;
    const detail = `package ${packageName(m)} conflicts with rule ${refToString(rule.head.ref)} defined at ${rule.loc.file}:${rule.loc.row}`;
    errors.push(new PolicyError({ code: 'rego_type_error', detail, location: rule.module.package.loc }));
  }
}

function checkConflicts(node: RuleNode, errors: PolicyError[]): void {
  if (node.hasRules) {
    const all = [...node.rules, ...node.defaults];
    const kinds = new Set(
      all.map((r) => (r.kind === 'complete' && r.suffix.length > 0 ? 'object' : r.kind === 'multi' && r.suffix.length > 0 ? 'object' : r.kind)),
    );
    const first = all[0] as PreparedRule;
    if (kinds.size > 1) {
      errors.push(typeErr(`conflicting rules ${node.name} found`, first.rule));
    } else if (first.kind === 'function') {
      const arities = new Set(all.map((r) => r.rule.head.args?.length ?? 0));
      if (arities.size > 1) errors.push(typeErr(`conflicting rules ${node.name} found`, first.rule));
    }
    const grounded = kinds.has('complete') || kinds.has('multi') || kinds.has('function');
    if (grounded && node.children.size + node.sortedChildren().length > 0) {
      const childRule = [...node.sortedChildren()].flatMap((c) => [...c.ruleNodes()])[0];
      if (childRule !== undefined) {
        errors.push(typeErr(`rule ${node.name} conflicts with [${childRule.name}]`, first.rule));
      }
    }
    for (const d of node.defaults) {
      if (d.kind === 'multi') errors.push(typeErr('default rules cannot be multi-value', d.rule));
    }
  }
  for (const c of node.sortedChildren()) checkConflicts(c, errors);
}
