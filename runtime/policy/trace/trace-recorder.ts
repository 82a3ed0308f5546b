/**
 * Collects the events of one traced evaluation. Query ids are handed out as
 * OPA's `queryIDFactory` does: the top query is 0, and every rule body,
 * negation, comprehension and `every` evaluated gets the next id, its parent
 * being the query it was evaluated from.
 */
import { PolicyError, type SourceLocation } from '../errors.js';
import type { Value } from '../value.js';
import type { TraceEvent, TraceNode, TraceOp } from './trace-event.js';

/** Events one evaluation may record before it is stopped: a bound on the memory a trace (and its JSON answer) takes. */
export const MAX_TRACE_EVENTS = 100_000;

export class TraceRecorder {
  readonly events: TraceEvent[] = [];
  /** The query the next event belongs to, and its parent. */
  queryId = 0;
  parentId = 0;
  private nextId = 1;

  /** A fresh query id (one per body evaluated). */
  open(): number {
    return this.nextId++;
  }

  emit(op: TraceOp, node: TraceNode | undefined, options?: { message?: string; locals?: Array<[string, Value]>; location?: SourceLocation }): void {
    if (this.events.length >= MAX_TRACE_EVENTS) {
      throw new PolicyError({ code: 'eval_cancel_error', detail: `the evaluation trace passed ${MAX_TRACE_EVENTS} events` });
    }
    const location = options?.location ?? locationOf(node);
    this.events.push({
      op,
      queryId: this.queryId,
      parentId: this.parentId,
      ...(node === undefined ? {} : { node }),
      ...(location === undefined ? {} : { location }),
      ...(options?.message ? { message: options.message } : {}),
      ...(options?.locals === undefined ? {} : { locals: options.locals }),
    });
  }
}

function locationOf(node: TraceNode | undefined): SourceLocation | undefined {
  if (node === undefined) return undefined;
  switch (node.type) {
    case 'rule':
      return node.rule.loc;
    case 'expr':
      return node.expr.loc;
    case 'body':
      return node.body[0]?.loc;
  }
}
