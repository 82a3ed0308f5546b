/**
 * The text of trace lines, as OPA's PrettyTrace writes it: a rule by
 * `Rule.Path()` (the package path and the ground prefix of the head ref, so
 * `limits[k] := v` is `data.p.limits`), strings and notes quoted by Go's
 * `strconv.Quote` (`\x1b`, `\a`), not JSON's (`\u001b`, `\u0007`).
 */
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { explainEvents } from '../../../runtime/policy/trace/lineage.js';
import { prettyTrace } from '../../../runtime/policy/trace/pretty-trace.js';
import { TraceRecorder } from '../../../runtime/policy/trace/trace-recorder.js';

function explained(source: string, path: string): string[] {
  const trace = new TraceRecorder();
  compilePolicy({ modules: { 'p.rego': source } })
    .traced()
    .evaluate(path, undefined, { trace });
  return prettyTrace(explainEvents({ events: trace.events, mode: 'full' }));
}

describe('trace line text', () => {
  it('names a rule by its path up to the first variable of its head', () => {
    const lines = explained('package p\n\nlimits[k] := v if {\n\tsome k, v in {"a": 1}\n}\n\nt.u[x].w := 1 if x := "k"\n', 'p');
    expect(lines.filter((l) => /Enter data\.p\./.test(l)).map((l) => l.replace(/^\S+\s+/, ''))).toEqual(['| Enter data.p.limits', '| Enter data.p.t.u']);
  });

  it('quotes notes and strings as Go does', () => {
    const lines = explained('package p\n\nallow if {\n\ttrace("\\u001b[2J\\u0007")\n\tfalse\n}\n', 'p.allow');
    expect(lines).toContain('p.rego:4     | | Eval trace("\\x1b[2J\\a")');
    expect(lines).toContain('p.rego:4     | | Note "\\x1b[2J\\a"');
  });
});
