/**
 * The explain modes and the pretty text over traces of our engine (no oracle
 * needed): `fails`/`notes` keep what OPA's lineage filter keeps, `full` and
 * `debug` everything, and the pretty lines indent by query depth as OPA's
 * PrettyTrace does.
 */
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { explainEvents } from '../../../runtime/policy/trace/lineage.js';
import { prettyTrace } from '../../../runtime/policy/trace/pretty-trace.js';
import { MAX_TRACE_EVENTS, TraceRecorder } from '../../../runtime/policy/trace/trace-recorder.js';
import { CASES } from '../explain/cases.js';
import { fromOurs, key, lineageOf } from '../explain/trace-oracle.js';

function record(modules: Record<string, string>, path: string, input: unknown): TraceRecorder {
  const trace = new TraceRecorder();
  compilePolicy({ modules }).traced().evaluate(path, input, { trace });
  return trace;
}

describe('explain modes', () => {
  for (const c of CASES) {
    it(`${c.name}: fails and notes keep the filtered events with their lineage; full and debug keep all`, () => {
      const { events } = record(c.modules, c.path, c.input);
      const all = fromOurs(events);
      expect(fromOurs(explainEvents({ events, mode: 'fails' })).map(key)).toEqual(lineageOf(all, (e) => e.op === 'Fail').map(key));
      expect(fromOurs(explainEvents({ events, mode: 'notes' })).map(key)).toEqual(lineageOf(all, (e) => e.op === 'Note').map(key));
      expect(explainEvents({ events, mode: 'full' })).toEqual(events);
      expect(explainEvents({ events, mode: 'debug' })).toEqual(events);
    });
  }

  it('an untraced policy records nothing, and answers the same', () => {
    const c = CASES[0] as (typeof CASES)[number];
    const plain = compilePolicy({ modules: c.modules });
    const trace = new TraceRecorder();
    expect(plain.evaluate(c.path, c.input, { trace })).toEqual(plain.traced().evaluate(c.path, c.input, { trace: new TraceRecorder() }));
    expect(trace.events).toEqual([]);
  });

  it('stops a traced evaluation past MAX_TRACE_EVENTS events with a clear error, not an answer of unbounded size', () => {
    const policy = 'package p\n\nn := count([x | some x in numbers.range(1, input.n); x > 0])\n';
    expect(record({ 'p.rego': policy }, 'p.n', { n: 100 }).events.length).toBeLessThan(MAX_TRACE_EVENTS);
    expect(() => record({ 'p.rego': policy }, 'p.n', { n: MAX_TRACE_EVENTS })).toThrow(/trace passed 100000 events/);
  });
});

describe('pretty trace', () => {
  it('indents by query depth; Enter and the Redo of a query sit one level out from their expressions', () => {
    const policy = 'package p\n\nallow if {\n\tinput.x > 1\n\tnot input.y\n}\n';
    const { events } = record({ 'p.rego': policy }, 'p.allow', { x: 2 });
    expect(prettyTrace(events)).toEqual([
      'query:1      Enter data.p.allow = _',
      'query:1      | Eval data.p.allow = _',
      'p.rego:3     | Enter data.p.allow',
      'p.rego:4     | | Eval __local0__ = input.x',
      'p.rego:4     | | Eval gt(__local0__, 1)',
      'p.rego:5     | | Eval not input.y',
      'p.rego:5     | | Enter input.y',
      'p.rego:5     | | | Eval input.y',
      'p.rego:5     | | | Fail input.y',
      'p.rego:3     | | Exit data.p.allow early',
      'p.rego:3     | Redo data.p.allow',
      'p.rego:4     | | Redo gt(__local0__, 1)',
      'p.rego:4     | | Redo __local0__ = input.x',
      'query:1      | Exit data.p.allow = _',
      'query:1      Redo data.p.allow = _',
      'query:1      | Redo data.p.allow = _',
    ]);
  });
});
