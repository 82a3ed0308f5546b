/**
 * The support modules of a partial evaluation, as OPA's partial evaluator
 * saves them: a rule that is not inlined (a default rule, a multi-value rule,
 * a function, a path in `disableInlining`) is partially evaluated rule by rule
 * and kept under `data.partial.<its path>`, in a module whose package is
 * `partial.<the rule's package>`; the residual queries then refer to it there.
 */
import { type Body, type Loc, mkRef, mkVar, type Module, type RefTerm, type Rule, type Term } from '../ast.js';
import type { RuleNode } from '../compiler/rule-tree.js';

/** The namespace OPA saves support rules under (`data.partial.…`). */
export const SUPPORT_NAMESPACE = 'partial';

/** `data.p.r[x]` → `data.partial.p.r[x]`. */
export function namespacedRef(ref: RefTerm): RefTerm {
  const [head, ...rest] = ref.terms as [Term, ...Term[]];
  return { ...ref, terms: [head, { type: 'string', value: SUPPORT_NAMESPACE, loc: head.loc }, ...rest] };
}

/** A saved rule: head parts already partially evaluated. */
export interface SupportRule {
  default: boolean;
  /** Head ref after the rule's name (an object rule's keys), plugged. */
  suffix: Term[];
  args?: Term[];
  key?: Term;
  value?: Term;
  body: Body;
  loc: Loc;
  /** The next link of an `else` chain. */
  else?: SupportRule;
}

/** The modules of one partial evaluation, one per package, rules in the order they were saved. */
export class SupportModules {
  private readonly modules = new Map<string, Module>();
  private readonly saved = new Set<RuleNode>();

  /** Whether the rules at `node` are saved (or being saved: a recursive reference stops here). */
  has(node: RuleNode): boolean {
    return this.saved.has(node);
  }

  /** Marks `node` as saved before its rules are evaluated, so rules referring to each other terminate. */
  claim(node: RuleNode): void {
    this.saved.add(node);
  }

  /** Adds one rule at the node's path (`data.p.r` goes to package `partial.p` as `r`). */
  add(node: RuleNode, rule: SupportRule): void {
    this.addBeside(node, node.path.map((k) => String(k)).pop() as string, rule);
  }

  /** Adds one rule named `name` to the package the node's rules are saved in (a helper of theirs). */
  addBeside(node: RuleNode, name: string, rule: SupportRule): void {
    const segments = node.path.map((k) => String(k));
    const pkg = [SUPPORT_NAMESPACE, ...segments.slice(0, -1)];
    const key = pkg.join('\u0000');
    let module = this.modules.get(key);
    if (module === undefined) {
      const loc = rule.loc;
      module = {
        file: '',
        package: { path: mkRef([mkVar('data', loc), ...pkg.map((s): Term => ({ type: 'string', value: s, loc }))], loc), loc },
        imports: [],
        rules: [],
        regoV2: false,
        notKeyword: false,
      };
      this.modules.set(key, module);
    }
    module.rules.push(this.rule(name, rule, module));
  }

  private rule(name: string, rule: SupportRule, module: Module): Rule {
    return {
      default: rule.default,
      head: {
        ref: [mkVar(name, rule.loc), ...rule.suffix],
        ...(rule.args !== undefined ? { args: rule.args } : {}),
        ...(rule.key !== undefined ? { key: rule.key } : {}),
        ...(rule.value !== undefined ? { value: rule.value } : {}),
        assign: false,
        loc: rule.loc,
      },
      body: rule.body,
      ...(rule.else !== undefined ? { else: this.rule(name, rule.else, module) } : {}),
      loc: rule.loc,
      module,
    };
  }

  /** The modules, in the order their first rule was saved. */
  list(): Module[] {
    return [...this.modules.values()];
  }
}
