/**
 * References into `data`: one tree merging base documents (JSON data) and
 * virtual documents (rules). Walking a ref follows the rule tree and the base
 * data side by side; reaching a node with rules evaluates it (its value is
 * cached per scope) and continues inside the value. Enumeration yields each
 * key once even when it exists in both base and virtual documents. The
 * value of an interior node (its "extent") is the object of its children's
 * values merged with the base data below it (base wins where both define a
 * leaf, as in OPA). `with data...` replacements take precedence at and below
 * their target path.
 */
import type { RuleNode } from '../compiler/rule-tree.js';
import { equal as equalValue, RegoObject, RegoSet, type Value } from '../value.js';
import { Env, type Frame, type K, NONE, type ValK } from './env.js';
import { getPath, keysOf, lookup, mergeObjects, setPath } from './paths.js';
import { keyedNode, nodeKeyValue, nodeValue } from './rules.js';
import { ConstT, type CTerm, walkValue } from './terms.js';

/** Lookup in base data, where keys are storage path segments (`data[2]` finds key "2"). */
function baseLookup(base: Value | undefined, key: Value): Value | undefined {
  const v = lookup(base, key);
  if (v !== undefined) return v;
  if (base instanceof RegoObject && (typeof key === 'number' || typeof key === 'bigint')) return base.get(String(key));
  if (Array.isArray(base) && typeof key === 'string' && /^(0|[1-9]\d*)$/.test(key)) return base[Number(key)];
  return undefined;
}

/** Value of the interior node `node` (and base data `base`) at `path`. */
export function extent(env: Env, node: RuleNode | undefined, base: Value | undefined, path: readonly Value[]): Value | undefined {
  let result: Value | undefined;
  if (node === undefined) result = base;
  else if (node.hasRules) result = nodeValue(env, node);
  else {
    const cached = env.cache.get(node);
    if (cached !== undefined) {
      result = cached === NONE ? undefined : cached;
    } else {
      const virtual = leaves(env, node);
      result = base === undefined ? virtual : base instanceof RegoObject ? mergeObjects(base, virtual) : base;
      env.cache.set(node, result === undefined ? NONE : result);
    }
  }
  if (env.overrides !== null && env.overridesBelow(path)) {
    for (const t of env.overrides.targets) {
      if (t.length <= path.length || !path.every((k, i) => k === t[i])) continue;
      const v = getPath(env.overrides.value, t);
      if (v !== undefined) result = setPath(result, t.slice(path.length), v);
    }
  }
  return result;
}

function leaves(env: Env, node: RuleNode): RegoObject {
  const out = new RegoObject();
  for (const c of node.sortedChildren()) {
    if (c.hasRules) {
      if (c.isFunction) continue;
      const v = nodeValue(env, c);
      if (v !== undefined) out.set(c.key, v);
    } else out.set(c.key, leaves(env, c));
  }
  return out;
}

function step(
  env: Env,
  f: Frame,
  node: RuleNode | undefined,
  base: Value | undefined,
  path: Value[],
  key: Value,
  ops: readonly CTerm[],
  i: number,
  k: ValK,
): boolean {
  // Paths are only needed to apply `with data...` replacements.
  const childPath = env.overrides === null ? path : path.concat([key]);
  if (env.overrides !== null && env.overridden(childPath)) {
    const v = env.overrideValue(childPath);
    return v !== undefined && walkValue(env, f, v, ops, i + 1, k);
  }
  const child = node?.child(key);
  if (child !== undefined && child.hasRules) {
    const next = ops[i + 1];
    if (next !== undefined && keyedNode(child)) {
      const nextKey = next.dynamic ? undefined : next.get(env, f);
      if (nextKey !== undefined) {
        const v = nodeKeyValue(env, child, nextKey);
        return v !== undefined && walkValue(env, f, v, ops, i + 2, k);
      }
    }
    const v = nodeValue(env, child);
    return v !== undefined && walkValue(env, f, v, ops, i + 1, k);
  }
  const childBase = baseLookup(base, key);
  if (child === undefined && childBase === undefined && !(env.overrides !== null && env.overridesBelow(childPath))) return false;
  return walkData(env, f, child, childBase, childPath, ops, i + 1, k);
}

/** Walks a `data` ref from `node`/`base` at `path`, operand `i` onwards. */
export function walkData(
  env: Env,
  f: Frame,
  node: RuleNode | undefined,
  base: Value | undefined,
  path: Value[],
  ops: readonly CTerm[],
  i: number,
  k: ValK,
): boolean {
  if (i === ops.length) {
    const v = extent(env, node, base, path);
    return v !== undefined && k(v);
  }
  const op = ops[i] as CTerm;
  if (!op.dynamic) {
    const key = op.get(env, f);
    if (key !== undefined) return step(env, f, node, base, path, key, ops, i, k);
    // Enumerate keys of base, virtual and replaced documents, each once.
    const seen = new RegoSet();
    const keys: Value[] = [];
    const add = (x: Value) => {
      if (seen.add(x)) keys.push(x);
    };
    keysOf(base).forEach(add);
    if (node !== undefined) for (const c of node.sortedChildren()) add(c.key);
    if (env.overrides !== null && env.overridesBelow(path)) keysOf(env.overrideValue(path)).forEach(add);
    for (const key of keys) {
      if (op.unify(env, f, key, () => step(env, f, node, base, path, key, ops, i, k))) return true;
    }
    return false;
  }
  return op.eval(env, f, (key) => step(env, f, node, base, path, key, ops, i, k));
}

/** `data...` ref term. */
export class DataRefT implements CTerm {
  readonly dynamic = true;
  /** When the constant operand prefix reaches a rule node: that node and the remaining operands. */
  private readonly ruleNode: RuleNode | undefined;
  private readonly restOps: CTerm[];
  private readonly restPath: Value[] | undefined;

  constructor(
    readonly root: RuleNode,
    readonly ops: CTerm[],
  ) {
    let node: RuleNode | undefined = root;
    let i = 0;
    let found: RuleNode | undefined;
    for (; i < ops.length && node !== undefined; i++) {
      const op = ops[i] as CTerm;
      if (!(op instanceof ConstT)) break;
      node = node.child(op.value);
      if (node !== undefined && node.hasRules) {
        found = node;
        i++;
        break;
      }
    }
    this.ruleNode = found;
    this.restOps = found === undefined ? [] : ops.slice(i);
    this.restPath = this.restOps.every((o) => o instanceof ConstT) ? this.restOps.map((o) => (o as ConstT).value) : undefined;
  }

  get(env: Env, f: Frame): Value | undefined {
    if (this.ruleNode !== undefined && env.overrides === null && this.restPath !== undefined) {
      if (this.restPath.length > 0 && keyedNode(this.ruleNode)) {
        const x = nodeKeyValue(env, this.ruleNode, this.restPath[0] as Value);
        return x === undefined ? undefined : getPath(x, this.restPath.slice(1));
      }
      const v = nodeValue(env, this.ruleNode);
      return v === undefined ? undefined : getPath(v, this.restPath);
    }
    let out: Value | undefined;
    this.eval(env, f, (v) => {
      out = v;
      return true;
    });
    return out;
  }

  eval(env: Env, f: Frame, k: ValK): boolean {
    if (this.ruleNode !== undefined && env.overrides === null) {
      const next = this.restOps[0];
      if (next !== undefined && keyedNode(this.ruleNode)) {
        const key = next.dynamic ? undefined : next.get(env, f);
        if (key !== undefined) {
          const x = nodeKeyValue(env, this.ruleNode, key);
          return x !== undefined && walkValue(env, f, x, this.restOps, 1, k);
        }
      }
      const v = nodeValue(env, this.ruleNode);
      if (v === undefined) return false;
      if (this.restPath !== undefined) {
        const x = getPath(v, this.restPath);
        return x !== undefined && k(x);
      }
      return walkValue(env, f, v, this.restOps, 0, k);
    }
    return walkData(env, f, this.root, env.data, [], this.ops, 0, k);
  }

  unify(env: Env, f: Frame, v: Value, k: K): boolean {
    return this.eval(env, f, (x) => (x === v || equalValue(x, v)) && k());
  }
}
