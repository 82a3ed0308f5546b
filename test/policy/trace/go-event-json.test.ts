/**
 * The `trace` of `opa test --format json` (OPA's `topdown.Event`s as Go marshals them: `Op`, `Node`, `Location`,
 * `QueryID`, `ParentID`, `Locals`, `LocalMetadata`, `Message`, `Ref`), checked against a real OPA v1.20.2 through the
 * explain cases: the events `opa test -v` keeps (failed expressions and notes with their lineage), written in that
 * shape, read back event by event (op, ids, `file:row`, node kind, message) equal OPA's.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { type GoTraceEvent, goTraceEvents } from '../../../runtime/policy/trace/go-event-json.js';
import { failsAndNotes } from '../../../runtime/policy/trace/lineage.js';
import { TraceRecorder } from '../../../runtime/policy/trace/trace-recorder.js';
import { oracleDir } from '../differential/differ.js';
import { CASES } from '../explain/cases.js';
import { type Comparable, fromOpa, key, lineageOf, opaTraces, type TraceCase } from '../explain/trace-oracle.js';

const pylib = oracleDir();

function recorded(c: TraceCase): GoTraceEvent[] {
  const trace = new TraceRecorder();
  try {
    compilePolicy({ modules: c.modules }).traced().evaluate(c.path, c.input, { trace });
  } catch {
    // an error still leaves the events recorded up to it
  }
  // Through JSON text, as the report is written and read.
  return JSON.parse(JSON.stringify(goTraceEvents(failsAndNotes(trace.events)))) as GoTraceEvent[];
}

/** An event read back from the JSON shape: its node kind from the AST JSON (a rule has a head, a body is an array). */
function fromGo(e: GoTraceEvent): Comparable {
  const node = e.Node as Record<string, unknown> | unknown[] | null;
  const type: Comparable['type'] = node === null ? 'none' : Array.isArray(node) ? 'body' : 'head' in node ? 'rule' : 'expr';
  const loc = e.Location;
  return {
    op: e.Op,
    queryId: e.QueryID,
    parentId: e.ParentID,
    location: loc === null || loc.file === '' ? 'query' : `${loc.file}:${loc.row}`,
    type,
    message: e.Message,
    text: '',
  };
}

describe("test traces in OPA's JSON event shape", () => {
  it('writes Go field names, AST nodes and OPA locations', () => {
    const events = recorded({ name: 'one', modules: { 'p.rego': 'package p\n\nallow if {\n  x := input.a\n  x > 2\n}\n' }, path: 'p.allow', input: { a: 1 } });
    const fail = events.find((e) => e.Op === 'Fail');
    expect(Object.keys(fail ?? {})).toEqual(['Op', 'Node', 'Location', 'QueryID', 'ParentID', 'Locals', 'LocalMetadata', 'Message', 'Ref']);
    expect(fail?.Location).toEqual({ file: 'p.rego', row: 5, col: 3 });
    expect(fail?.Node).toMatchObject({ terms: [{ type: 'ref', value: [{ type: 'var', value: 'gt' }] }, {}, { type: 'number', value: 2 }] });
    expect(fail?.Locals).toEqual([{ name: 'x', type: 'number', value: 1 }]);
  });

  it.skipIf(pylib === undefined)("holds the events OPA's test report holds, for every explain case", () => {
    const opa = opaTraces(pylib as string, CASES).map(fromOpa);
    let compared = 0;
    const differ = CASES.flatMap((c, i) => {
      const theirs = lineageOf(opa[i] as Comparable[], (e) => e.op === 'Fail' || e.op === 'Note').map(key);
      const mine = recorded(c).map(fromGo).map(key);
      compared += theirs.length;
      return JSON.stringify(mine) === JSON.stringify(theirs) ? [] : [`${c.name}\n  OPA   ${theirs.join('\n        ')}\n  ours  ${mine.join('\n        ')}`];
    });
    expect(differ).toEqual([]);
    expect(compared).toBeGreaterThan(40);
  });
});
