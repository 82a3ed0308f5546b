/**
 * What OPA's parser refuses in a `default` rule (its `validateDefaultRuleValue`
 * and `validateDefaultRuleArgs`): a value holding a ref, a var or a call
 * anywhere outside a comprehension, and arguments that are not distinct vars.
 * Each is reported at the rule, in the order met; the arguments are checked
 * only when the value passes.
 */
import type { Head, Term } from './ast.js';
import { typeName } from './parser-terms.js';

/** The messages for a default rule's head, none when OPA accepts it. */
export function defaultRuleProblems(head: Head): string[] {
  const problems: string[] = [];
  if (head.value !== undefined) valueProblems(head.value, problems);
  if (problems.length > 0 || head.args === undefined) return problems;
  const seen = new Set<string>();
  for (const arg of head.args) {
    if (arg.type !== 'var') problems.push(`illegal default rule (arguments cannot contain ${typeName(arg)})`);
    else if (arg.name !== '_' && seen.has(arg.name)) problems.push(`illegal default rule (arguments cannot be repeated ${arg.name})`);
    else seen.add(arg.name);
  }
  return problems;
}

function valueProblems(t: Term, out: string[]): void {
  switch (t.type) {
    case 'ref':
      out.push(`illegal default rule (value cannot contain ${t.zeroArgCall === true ? 'call' : 'ref'})`);
      return;
    case 'var':
      out.push('illegal default rule (value cannot contain var)');
      return;
    case 'call':
      if (t.template === undefined) {
        out.push('illegal default rule (value cannot contain call)');
        return;
      }
      // OPA walks into a template string's expressions: a call expression's operator is a ref there.
      for (const part of t.template.parts) {
        if (!('kind' in part)) continue;
        if (part.kind === 'term') valueProblems(part.term, out);
        else if (part.kind === 'call') {
          out.push('illegal default rule (value cannot contain ref)');
          for (const arg of part.args) valueProblems(arg, out);
        }
      }
      return;
    case 'array':
    case 'set':
      for (const item of t.items) valueProblems(item, out);
      return;
    case 'object':
      for (const [k, v] of t.entries) {
        valueProblems(k, out);
        valueProblems(v, out);
      }
      return;
    default:
      return;
  }
}
