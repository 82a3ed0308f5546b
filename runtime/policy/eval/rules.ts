/**
 * Evaluation of rule nodes: complete rules (with `else` chains, `default`
 * and conflict detection), multi-value (`contains`) rules, rules whose head
 * ref has variables (they build an object), and functions. Values are cached
 * per scope in `env.cache`; function results per argument list.
 */
import type { RuleNode } from '../compiler/rule-tree.js';
import { PolicyError, type SourceLocation } from '../errors.js';
import { formatValue } from '../value-format.js';
import { canonicalKey, equal, RegoObject, RegoSet, type Value } from '../value.js';
import { lookup } from './paths.js';
import { Env, type ExprFn, type Frame, NONE, type Cached } from './env.js';
import type { CTerm } from './terms.js';

export interface CompiledBranch {
  nslots: number;
  body: ExprFn;
  /** Head value (complete rules, functions, object rules). */
  value: CTerm | undefined;
  /** Head key (multi-value rules). */
  key: CTerm | undefined;
  /** Head ref terms after the node path (object rules). */
  suffix: CTerm[];
  /** Function parameters. */
  params: CTerm[] | undefined;
  /** The head value does not depend on the body's bindings. */
  constHead: boolean;
  multi: boolean;
  loc: SourceLocation;
  else: CompiledBranch | undefined;
}

export interface NodeRuntime {
  kind: 'complete' | 'multi' | 'object' | 'function';
  rules: CompiledBranch[];
  /**
   * The rules in the order their errors surface in OPA under strict builtin errors: those that never read `input`
   * first (OPA reports their conflicts before another rule's builtin error), then the rest, each group as written.
   */
  strictRules: CompiledBranch[];
  def: CompiledBranch | undefined;
  /** All branches produce the same constant: stop at the first value. */
  earlyExit: boolean;
  name: string;
}

const MAX_DEPTH = 4000;

function runtimeOf(node: RuleNode): NodeRuntime {
  return node.runtime as NodeRuntime;
}

function conflict(detail: string, loc: SourceLocation): PolicyError {
  return new PolicyError({ code: 'eval_conflict_error', detail, location: loc });
}

function conflictList(values: Array<[Value, SourceLocation]>): string {
  return values.map(([v, l]) => `\n  ${formatValue(v)} at ${l.file !== '' ? `${l.file}:${l.row}` : `${l.row}:${l.col}`}`).join('');
}

function completeConflict(rt: NodeRuntime, a: [Value, SourceLocation], b: [Value, SourceLocation]): PolicyError {
  return conflict(`complete rules must not produce multiple outputs: rule ${rt.name} produced conflicting values:${conflictList([a, b])}`, b[1]);
}

function enter(env: Env): void {
  if (++env.shared.depth > MAX_DEPTH) {
    env.shared.depth = 0;
    throw new PolicyError({ code: 'eval_internal_error', detail: 'maximum evaluation depth exceeded (recursive rules or functions?)' });
  }
}

/** The value of a rule node in this scope (undefined for functions and undefined rules). */
export function nodeValue(env: Env, node: RuleNode): Value | undefined {
  const cached = env.cache.get(node);
  if (cached !== undefined) return cached === NONE ? undefined : cached;
  const rt = runtimeOf(node);
  let v: Value | undefined;
  enter(env);
  try {
    switch (rt.kind) {
      case 'complete':
        v = evalComplete(env, rt);
        break;
      case 'multi':
        v = evalMulti(env, rt);
        break;
      case 'object':
        v = evalObject(env, node, rt);
        break;
      default:
        v = undefined;
    }
  } finally {
    env.shared.depth--;
  }
  env.cache.set(node, v === undefined ? NONE : v);
  return v;
}

/** Values of one branch: the first solution's head value; differing later values conflict. */
function branchValue(env: Env, b: CompiledBranch, rt: NodeRuntime, prev: [Value, SourceLocation] | undefined): Value | undefined {
  const f: Frame = new Array(b.nslots);
  let out: Value | undefined;
  const head = b.value as CTerm;
  b.body(env, f, () => {
    const v = head.get(env, f);
    if (v === undefined) return false;
    if (prev !== undefined && !equal(prev[0], v)) throw completeConflict(rt, prev, [v, b.loc]);
    if (out === undefined) {
      out = v;
      return b.constHead;
    }
    if (!equal(out, v)) throw completeConflict(rt, [out, b.loc], [v, b.loc]);
    return false;
  });
  return out;
}

/** The rules to evaluate, in OPA's order for the mode (see {@link NodeRuntime.strictRules}). */
function rulesOf(env: Env, rt: NodeRuntime): CompiledBranch[] {
  return env.shared.strict ? rt.strictRules : rt.rules;
}

function evalComplete(env: Env, rt: NodeRuntime): Value | undefined {
  let result: [Value, SourceLocation] | undefined;
  for (const r of rulesOf(env, rt)) {
    for (let b: CompiledBranch | undefined = r; b !== undefined; b = b.else) {
      const v = branchValue(env, b, rt, result);
      if (v !== undefined) {
        result ??= [v, b.loc];
        break;
      }
    }
    if (result !== undefined && rt.earlyExit) break;
  }
  if (result === undefined && rt.def !== undefined) return branchValue(env, rt.def, rt, undefined);
  return result?.[0];
}

function evalMulti(env: Env, rt: NodeRuntime): Value {
  const out = new RegoSet();
  for (const b of rulesOf(env, rt)) {
    const f: Frame = new Array(b.nslots);
    const key = b.key as CTerm;
    b.body(env, f, () => {
      const v = key.get(env, f);
      if (v !== undefined) out.add(v);
      return false;
    });
  }
  return out;
}

/** True when `node[key]` can be evaluated for the key alone (multi-value and object rules). */
export function keyedNode(node: RuleNode): boolean {
  const rt = node.runtime as NodeRuntime | undefined;
  return rt !== undefined && (rt.kind === 'multi' || rt.kind === 'object');
}

/**
 * `node[key]` for a multi-value or object rule node, evaluating only the rule
 * bodies whose head matches the key (as OPA does): conflicts and errors of
 * other keys are not raised.
 */
export function nodeKeyValue(env: Env, node: RuleNode, key: Value): Value | undefined {
  const full = env.cache.get(node);
  if (full !== undefined) return full === NONE ? undefined : lookup(full, key);
  const ck = typeof key === 'string' ? key : canonicalKey(key) + '\u0000';
  env.keyCache ??= new Map();
  let memo = env.keyCache.get(node);
  if (memo === undefined) env.keyCache.set(node, (memo = new Map()));
  const hit = memo.get(ck);
  if (hit !== undefined) return hit === NONE ? undefined : hit;
  const rt = runtimeOf(node);
  let v: Value | undefined;
  enter(env);
  try {
    v = rt.kind === 'multi' ? multiKey(env, rt, key) : objectKey(env, node, rt, key);
  } finally {
    env.shared.depth--;
  }
  memo.set(ck, v === undefined ? NONE : v);
  return v;
}

function multiKey(env: Env, rt: NodeRuntime, key: Value): Value | undefined {
  for (const b of rulesOf(env, rt)) {
    const f: Frame = new Array(b.nslots);
    let found = false;
    (b.key as CTerm).unify(env, f, key, () =>
      b.body(env, f, () => {
        found = true;
        return true;
      }),
    );
    if (found) return key;
  }
  return undefined;
}

function objectKey(env: Env, node: RuleNode, rt: NodeRuntime, key: Value): Value | undefined {
  const out = structure(new RegoObject());
  const own = new Set<RegoObject | RegoSet>([out]);
  for (const b of rulesOf(env, rt)) {
    const f: Frame = new Array(b.nslots);
    const first = b.suffix[0] as CTerm;
    first.unify(env, f, key, () =>
      b.body(env, f, () => {
        const path: Value[] = [key];
        for (let i = 1; i < b.suffix.length; i++) {
          const v = (b.suffix[i] as CTerm).get(env, f);
          if (v === undefined) return false;
          path.push(v);
        }
        const leaf = b.multi ? (b.key as CTerm).get(env, f) : (b.value as CTerm).get(env, f);
        if (leaf === undefined) return false;
        insert(out, own, path, leaf, b.multi, b.loc, rt);
        return false;
      }),
    );
  }
  const c = node.child(key);
  if (c !== undefined) {
    const v = childValue(env, c);
    if (v !== undefined) {
      const cur = out.get(key);
      out.set(key, cur === undefined ? v : mergeChild(cur, v, key, rt));
    }
  }
  return out.get(key);
}

function evalObject(env: Env, node: RuleNode, rt: NodeRuntime): Value {
  const out = structure(new RegoObject());
  const own = new Set<RegoObject | RegoSet>([out]);
  for (const b of rulesOf(env, rt)) {
    const f: Frame = new Array(b.nslots);
    b.body(env, f, () => {
      const path: Value[] = [];
      for (const s of b.suffix) {
        const v = s.get(env, f);
        if (v === undefined) return false;
        path.push(v);
      }
      const leaf = b.multi ? (b.key as CTerm).get(env, f) : (b.value as CTerm).get(env, f);
      if (leaf === undefined) return false;
      insert(out, own, path, leaf, b.multi, b.loc, rt);
      return false;
    });
  }
  for (const c of node.sortedChildren()) {
    const v = childValue(env, c);
    if (v === undefined) continue;
    const cur = out.get(c.key);
    out.set(c.key, cur === undefined ? v : mergeChild(cur, v, c.key, rt));
  }
  return out;
}

/**
 * Joins what a rule with a generic ref head (`p[q].r contains s`) produced
 * under a key with the value of a rule defined at that key (`p.b.r contains
 * "foo"`), as OPA does: objects that are document structure (made of rule
 * paths, not a rule's value) merge key by key, the sets of multi-value rules
 * (not a rule's set value) join, equal values agree, anything else conflicts.
 */
function mergeChild(a: Value, b: Value, key: Value, rt: NodeRuntime): Value {
  if (a instanceof RegoObject && b instanceof RegoObject && structural.has(a) && structural.has(b)) {
    const out = structure(a.copy());
    for (const [k, v] of b.entries()) {
      const cur = out.get(k);
      out.set(k, cur === undefined ? v : mergeChild(cur, v, k, rt));
    }
    return out;
  }
  if (a instanceof RegoSet && b instanceof RegoSet && multiValueSets.has(a) && multiValueSets.has(b)) {
    const out = RegoSet.of([...a.values(), ...b.values()]);
    multiValueSets.add(out);
    return out;
  }
  if (equal(a, b)) return a;
  throw conflict(`object keys must be unique: rule ${rt.name} produced conflicting values for key ${formatValue(key)}`, (rt.rules[0] as CompiledBranch).loc);
}

/** Objects built from rule paths (as opposed to values a rule produced); only these merge. */
const structural = new WeakSet<RegoObject>();
/** Sets that are the leaves of multi-value rules (`contains`), as opposed to a rule's set value; only these join. */
const multiValueSets = new WeakSet<RegoSet>();
function structure(o: RegoObject): RegoObject {
  structural.add(o);
  return o;
}

function childValue(env: Env, node: RuleNode): Value | undefined {
  if (node.hasRules) {
    if (node.isFunction) return undefined;
    const v = nodeValue(env, node);
    if (v instanceof RegoSet && runtimeOf(node).kind === 'multi') multiValueSets.add(v);
    return v;
  }
  const o = structure(new RegoObject());
  for (const c of node.sortedChildren()) {
    const v = childValue(env, c);
    if (v !== undefined) o.set(c.key, v);
  }
  return o;
}

function insert(root: RegoObject, own: Set<RegoObject | RegoSet>, path: Value[], leaf: Value, multi: boolean, loc: SourceLocation, rt: NodeRuntime): void {
  const keyConflict = (k: Value) => conflict(`object keys must be unique: rule ${rt.name} produced conflicting values for key ${formatValue(k)}`, loc);
  let cur = root;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i] as Value;
    const next = cur.get(k);
    let o: RegoObject;
    if (next === undefined) {
      o = structure(new RegoObject());
      own.add(o);
      cur.set(k, o);
    } else if (next instanceof RegoObject) {
      o = next;
      if (!own.has(o)) {
        o = structure(next.copy());
        own.add(o);
        cur.set(k, o);
      }
    } else throw keyConflict(k);
    cur = o;
  }
  const k = path[path.length - 1] as Value;
  const existing = cur.get(k);
  if (multi) {
    if (existing === undefined) {
      const s = RegoSet.of([leaf]);
      multiValueSets.add(s);
      own.add(s);
      cur.set(k, s);
    } else if (existing instanceof RegoSet) {
      if (own.has(existing)) existing.add(leaf);
      else {
        const s = RegoSet.of(existing.values());
        multiValueSets.add(s);
        s.add(leaf);
        own.add(s);
        cur.set(k, s);
      }
    } else throw keyConflict(k);
    return;
  }
  if (existing !== undefined && !equal(existing, leaf)) throw keyConflict(k);
  cur.set(k, leaf);
}

// ---------------------------------------------------------------------------
// Functions

function fnConflict(rt: NodeRuntime, a: [Value, SourceLocation], b: [Value, SourceLocation]): PolicyError {
  return conflict(
    `functions must not produce multiple outputs for same inputs: function ${rt.name} produced conflicting values for the same inputs:${conflictList([a, b])}`,
    b[1],
  );
}

function fnBranchValue(env: Env, b: CompiledBranch, rt: NodeRuntime, args: Value[], prev: [Value, SourceLocation] | undefined): Value | undefined {
  const f: Frame = new Array(b.nslots);
  let out: Value | undefined;
  const params = b.params as CTerm[];
  const head = b.value as CTerm;
  const onSolution = (): boolean => {
    const v = head.get(env, f);
    if (v === undefined) return false;
    if (prev !== undefined && !equal(prev[0], v)) throw fnConflict(rt, prev, [v, b.loc]);
    if (out === undefined) {
      out = v;
      return b.constHead;
    }
    if (!equal(out, v)) throw fnConflict(rt, [out, b.loc], [v, b.loc]);
    return false;
  };
  const bind = (i: number): boolean => {
    if (i === params.length) return b.body(env, f, onSolution);
    return (params[i] as CTerm).unify(env, f, args[i] as Value, () => bind(i + 1));
  };
  bind(0);
  return out;
}

/** Calls a user function node with argument values. */
export function callFunction(env: Env, node: RuleNode, args: Value[], _loc?: SourceLocation): Value | undefined {
  const rt = runtimeOf(node);
  let memo: Map<string, Cached> | undefined;
  let key = '';
  if (args.length <= 4) {
    env.fnCache ??= new Map();
    memo = env.fnCache.get(node);
    if (memo === undefined) env.fnCache.set(node, (memo = new Map()));
    key = args.length === 1 && typeof args[0] === 'string' ? '"' + (args[0] as string) : args.map(canonicalKey).join('\u0000');
    const hit = memo.get(key);
    if (hit !== undefined) return hit === NONE ? undefined : hit;
  }
  enter(env);
  let result: [Value, SourceLocation] | undefined;
  try {
    for (const r of rt.rules) {
      for (let b: CompiledBranch | undefined = r; b !== undefined; b = b.else) {
        const v = fnBranchValue(env, b, rt, args, result);
        if (v !== undefined) {
          result ??= [v, b.loc];
          break;
        }
      }
      if (result !== undefined && rt.earlyExit) break;
    }
    if (result === undefined && rt.def !== undefined) {
      const v = fnBranchValue(env, rt.def, rt, args, undefined);
      if (v !== undefined) result = [v, rt.def.loc];
    }
  } finally {
    env.shared.depth--;
  }
  const value = result?.[0];
  memo?.set(key, value === undefined ? NONE : value);
  return value;
}
