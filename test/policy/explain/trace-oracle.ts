/**
 * Drives OPA's tracer (opa_trace_oracle.py, through the wheel named by
 * FRAMEWORK_OPA_PYLIB) and puts its events and ours in one comparable shape:
 * op, query and parent ids, `file:row`, node type, message.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TraceEvent } from '../../../runtime/policy/trace/trace-event.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface TraceCase {
  name: string;
  modules: Record<string, string>;
  path: string;
  input?: unknown;
}

/** One event in the shape both traces are compared in. */
export interface Comparable {
  op: string;
  queryId: number;
  parentId: number;
  /** `file:row`, or `query` for the top query. */
  location: string;
  type: 'rule' | 'body' | 'expr' | 'none';
  message: string;
  text: string;
}

interface OpaEvent {
  op: string;
  query_id: number;
  parent_id: number;
  location?: string;
  node?: string | null;
  message?: string;
}

/** OPA's trace of each case (one python process for all). */
export function opaTraces(pylib: string, cases: readonly TraceCase[]): OpaEvent[][] {
  const lines = cases.map((c) => JSON.stringify({ modules: Object.entries(c.modules), path: c.path, input: c.input ?? null }));
  const proc = spawnSync(process.env.FRAMEWORK_OPA_PYTHON ?? 'python3', [join(here, 'opa_trace_oracle.py'), pylib], {
    input: lines.join('\n') + '\n',
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  if (proc.status !== 0) throw new Error(`opa_trace_oracle.py exited with ${proc.status}: ${proc.stderr}`);
  return proc.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const r = JSON.parse(l) as { trace?: OpaEvent[]; error?: string };
      if (r.error !== undefined) throw new Error(`OPA: ${r.error}`);
      return r.trace ?? [];
    });
}

/**
 * OPA's events in the comparable shape. The bridge gives the node's text but
 * not its type: an `Enter` is of a rule (its text has a head with `if {` or
 * is a default), of an `every` expression, or of a body; an `Exit` is of the
 * query's node; a `Redo` with the query's node text right after its `Exit`
 * is the query's, later ones with the same text are the expression's.
 */
export function fromOpa(events: readonly OpaEvent[]): Comparable[] {
  const queryType = new Map<number, Comparable['type']>();
  const queryText = new Map<number, string>();
  const pending = new Map<number, number>();
  return events
    .filter((e) => e.op !== 'Unify' && e.op !== 'Index')
    .map((e) => {
      const text = e.node ?? '';
      let type: Comparable['type'] = e.op === 'Note' ? 'none' : 'expr';
      if (e.op === 'Enter') {
        type = text.startsWith('every ') ? 'expr' : text.startsWith('default ') || / if \{ /.test(text) ? 'rule' : 'body';
        queryType.set(e.query_id, type);
        queryText.set(e.query_id, text);
      } else if (e.op === 'Exit') {
        type = queryType.get(e.query_id) ?? 'body';
        pending.set(e.query_id, (pending.get(e.query_id) ?? 0) + 1);
      } else if (e.op === 'Redo' && queryText.get(e.query_id) === text && (pending.get(e.query_id) ?? 0) > 0) {
        type = queryType.get(e.query_id) ?? 'body';
        pending.set(e.query_id, (pending.get(e.query_id) ?? 0) - 1);
      }
      const loc = e.location ?? '';
      return {
        op: e.op,
        queryId: e.query_id,
        parentId: e.parent_id,
        location: /:\d+$/.test(loc) ? loc : 'query',
        type,
        message: e.message ?? '',
        text,
      };
    });
}

export function fromOurs(events: readonly TraceEvent[]): Comparable[] {
  return events.map((e) => ({
    op: e.op,
    queryId: e.queryId,
    parentId: e.parentId,
    location: e.location === undefined || e.location.file === '' || e.location.file === 'query' ? 'query' : `${e.location.file}:${e.location.row}`,
    type: e.node?.type ?? 'none',
    message: e.message ?? '',
    text: e.node?.text ?? '',
  }));
}

/** OPA's lineage filter over comparable events (the same algorithm as runtime/policy/trace/lineage.ts, written again here so that a bug there cannot hide). */
export function lineageOf(events: readonly Comparable[], keep: (e: Comparable) => boolean): Comparable[] {
  const out: Comparable[] = [];
  let byQuery = new Map<number, Comparable>();
  for (const e of events) {
    if (keep(e)) {
      const path = [e];
      let cur = byQuery.get(e.queryId);
      let prev: Comparable | undefined;
      while (cur !== undefined && cur !== prev) {
        path.push(cur);
        prev = cur;
        cur = byQuery.get(cur.parentId);
      }
      out.push(...path.reverse());
      byQuery = new Map();
    }
    if ((e.op === 'Enter' || e.op === 'Redo') && (e.type === 'rule' || e.type === 'body')) byQuery.set(e.queryId, e);
  }
  return out;
}

/** One line per event: what the comparison looks at. */
export function key(e: Comparable): string {
  return `${e.op} q${e.queryId}<q${e.parentId} ${e.location} ${e.type}${e.message ? ` "${e.message}"` : ''}`;
}
