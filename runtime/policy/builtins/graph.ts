/**
 * Graph builtins: graph.reachable and graph.reachable_paths. A graph is an
 * object mapping each node to an array or set of neighbours; nodes may be any
 * value. Nodes absent from the graph are never reached (as in OPA).
 */
import { RegoObject, RegoSet, type Value } from '../value.js';
import { asObject, type BuiltinDefinition, operandTypeError } from './registry.js';

/** Members of an array or set; anything else has none. */
function vertices(v: Value | undefined): readonly Value[] {
  if (Array.isArray(v)) return v;
  if (v instanceof RegoSet) return v.values();
  return [];
}

function initialNodes(v: Value | undefined): readonly Value[] {
  if (Array.isArray(v) || v instanceof RegoSet) return vertices(v);
  throw operandTypeError(2, v ?? null, '{array, set}');
}

function reachable(graph: RegoObject, initial: readonly Value[]): RegoSet {
  const reached = new RegoSet();
  const queue: Value[] = [...initial];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as Value;
    const edges = graph.get(node);
    if (edges === undefined) continue;
    for (const next of vertices(edges)) if (!reached.has(next)) queue.push(next);
    reached.add(node);
  }
  return reached;
}

/**
 * Depth-first walk from `node`; each maximal path (leaf, missing node or
 * cycle) is one result. Each branch has its own copy of the nodes seen, as in
 * OPA v1.20.2 (checked through the differential oracle). The conformance
 * case reachable_paths/cycle_1022_3 expects otherwise; OPA itself does not
 * give that answer (OPA issues 5871 and 6128), so it stays a listed gap.
 */
function walkPaths(graph: RegoObject, node: Value, path: readonly Value[], seen: RegoSet, out: RegoSet): void {
  const edges = graph.get(node);
  if (edges === undefined) {
    out.add([...path]);
    return;
  }
  const here = [...path, node];
  const next = vertices(edges);
  if (next.length === 0) {
    out.add(here);
    return;
  }
  const seenHere = RegoSet.of(seen.values());
  seenHere.add(node);
  for (const n of next) {
    if (seenHere.has(n)) out.add(here);
    else walkPaths(graph, n, here, seenHere, out);
  }
}

function reachablePaths(graph: RegoObject, initial: readonly Value[]): RegoSet {
  const out = new RegoSet();
  for (const node of initial) {
    const edges = graph.get(node);
    if (edges === undefined) continue;
    const next = vertices(edges);
    if (next.length === 0) {
      out.add([node]);
      continue;
    }
    for (const n of next) walkPaths(graph, n, [node], RegoSet.of([node]), out);
  }
  return out;
}

export const graphBuiltins: BuiltinDefinition[] = [
  {
    name: 'graph.reachable',
    args: ['object', 'any'],
    result: 'set',
    impl: ([g, init]) => reachable(asObject(g, 1), initialNodes(init)),
  },
  {
    name: 'graph.reachable_paths',
    args: ['object', 'any'],
    result: 'set',
    impl: ([g, init]) => reachablePaths(asObject(g, 1), initialNodes(init)),
  },
];
