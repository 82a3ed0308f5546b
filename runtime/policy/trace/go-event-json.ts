/**
 * Trace events as `opa test --format json` writes them in a test's `trace`:
 * OPA's `topdown.Event` marshalled by Go's encoding/json, a struct without
 * JSON tags, so its fields keep their Go names (`Op`, `Node`, `Location`,
 * `QueryID`, `ParentID`, `Locals`, `LocalMetadata`, `Message`, `Ref`).
 */
import { nodeJson, valueTerm } from '../server/explanation.js';
import type { TraceEvent } from './trace-event.js';

/** One event in Go's field order; `Node` is the rule, body or expression as OPA AST JSON (null on a Note). */
export interface GoTraceEvent {
  Op: string;
  Node: unknown;
  Location: { file: string; row: number; col: number } | null;
  QueryID: number;
  ParentID: number;
  /** An `ast.ValueMap` as it marshals: `[{name, type, value}]`, null when empty. */
  Locals: Array<{ name: string; type: string; value: unknown }> | null;
  LocalMetadata: null;
  Message: string;
  /** Set by OPA on Index and Wasm events only, which this engine does not record. */
  Ref: null;
}

/**
 * The events in OPA's JSON shape. `Locals` holds the bindings by the names
 * this engine records them under (the policy's names), where OPA keys them by
 * its rewritten names (`__local0__`) and maps those back in `LocalMetadata`;
 * this engine has no such map, so `LocalMetadata` stays null.
 */
export function goTraceEvents(events: readonly TraceEvent[]): GoTraceEvent[] {
  return events.map((e) => {
    const locals = (e.locals ?? []).map(([name, v]) => {
      const term = valueTerm(v) as { type: string; value?: unknown };
      return { name, type: term.type, value: term.value ?? null };
    });
    return {
      Op: e.op,
      Node: e.node === undefined ? null : nodeJson(e.node),
      Location: e.location === undefined ? null : { file: e.location.file, row: e.location.row, col: e.location.col },
      QueryID: e.queryId,
      ParentID: e.parentId,
      Locals: locals.length === 0 ? null : locals,
      LocalMetadata: null,
      Message: e.message ?? '',
      Ref: null,
    };
  });
}
