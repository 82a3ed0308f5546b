/**
 * Evaluation trace events, as OPA's `topdown.Event`: what happened (`op`), in
 * which query (`queryId`, its parent `parentId`), about which node (a rule,
 * a body or an expression) and where. Recorded only by policies compiled for
 * tracing (see {@link TraceRecorder}); the fast evaluator never builds them.
 */
import type { Body, Expr, Rule } from '../ast.js';
import type { SourceLocation } from '../errors.js';
import type { Value } from '../value.js';

/** OPA's trace ops. `Unify`, `Index`, `Save`, `Duplicate` and `Wasm` are never recorded by this engine. */
export type TraceOp = 'Enter' | 'Exit' | 'Eval' | 'Redo' | 'Fail' | 'Note';

/** The node an event is about, with its text as OPA's `String()` prints it (generated variables keep their names). */
export type TraceNode =
  { type: 'rule'; rule: Rule; text: string; path: string } | { type: 'body'; body: Body; text: string } | { type: 'expr'; expr: Expr; text: string };

export interface TraceEvent {
  op: TraceOp;
  queryId: number;
  parentId: number;
  /** Absent on `Note` events, as in OPA. */
  node?: TraceNode;
  location?: SourceLocation;
  /** `early` on the Exit of a rule evaluated for its first value; the text of a `Note`. */
  message?: string;
  /** Variables bound in the event's query when it happened, by their names in the policy. */
  locals?: Array<[string, Value]>;
}
