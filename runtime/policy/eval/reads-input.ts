/**
 * Whether a rule reads `input` anywhere in its heads, bodies, `with`s or
 * `else` branches (written there; what the rules it reads read is not
 * followed). Under strict builtin errors OPA reports the errors of rules that
 * do not read `input` before those of rules that do (see `NodeRuntime.strictRules`).
 */
import type { Rule } from '../ast.js';

const SKIP = new Set(['module', 'loc']);

export function readsInput(rule: Rule): boolean {
  const seen = new WeakSet<object>();
  const visit = (x: unknown): boolean => {
    if (x === null || typeof x !== 'object' || seen.has(x)) return false;
    seen.add(x);
    if (Array.isArray(x)) return x.some(visit);
    const o = x as Record<string, unknown>;
    if (o.type === 'var' && o.name === 'input') return true;
    for (const [k, v] of Object.entries(o)) if (!SKIP.has(k) && visit(v)) return true;
    return false;
  };
  return visit(rule);
}
