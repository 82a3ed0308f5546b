/**
 * OPA's explain modes (`topdown/lineage`): `full` is every event but
 * `Unify` (which this engine does not record, so it equals `debug`);
 * `notes` and `fails` keep the Note (Fail) events, each preceded by the
 * chain of `Enter`/`Redo` events of the rules and bodies that led to it.
 */
import type { TraceEvent } from './trace-event.js';

export const EXPLAIN_MODES = ['notes', 'fails', 'full', 'debug'] as const;
export type ExplainMode = (typeof EXPLAIN_MODES)[number];

export function isExplainMode(x: string): x is ExplainMode {
  return (EXPLAIN_MODES as readonly string[]).includes(x);
}

/** The events `?explain=<mode>` shows. */
export function explainEvents(options: { events: readonly TraceEvent[]; mode: ExplainMode }): TraceEvent[] {
  const { events, mode } = options;
  switch (mode) {
    case 'debug':
    case 'full':
      return [...events];
    case 'notes':
      return filterWithLineage(events, (e) => e.op === 'Note');
    case 'fails':
      return filterWithLineage(events, (e) => e.op === 'Fail');
  }
}

/** What `opa test -v` shows of a failed test's trace when no `--explain` mode is given: Fail and Note events with their lineage. */
export function failsAndNotes(events: readonly TraceEvent[]): TraceEvent[] {
  return filterWithLineage(events, (e) => e.op === 'Fail' || e.op === 'Note');
}

/**
 * OPA's `lineage.Filter`: each kept event comes after the path of the latest
 * rule/body `Enter` or `Redo` of its query, of that query's parent, and so
 * on; the remembered events are forgotten after each kept one.
 */
export function filterWithLineage(events: readonly TraceEvent[], keep: (e: TraceEvent) => boolean): TraceEvent[] {
  const out: TraceEvent[] = [];
  let byQuery = new Map<number, TraceEvent>();
  for (const e of events) {
    if (keep(e)) {
      const path = [e];
      let cur = byQuery.get(e.queryId);
      let prev: TraceEvent | undefined;
      while (cur !== undefined && cur !== prev) {
        path.push(cur);
        prev = cur;
        cur = byQuery.get(cur.parentId);
      }
      for (let i = path.length - 1; i >= 0; i--) out.push(path[i] as TraceEvent);
      byQuery = new Map();
    }
    if ((e.op === 'Enter' || e.op === 'Redo') && (e.node?.type === 'rule' || e.node?.type === 'body')) byQuery.set(e.queryId, e);
  }
  return out;
}
