import { describe, expect, it } from 'vitest';
import { errorOf, run, value } from '../helpers.js';

describe('bits, graph, rand, http.send and render_template builtins', () => {
  it('computes bitwise operations exactly', () => {
    expect(value('package t\n\np := [bits.and(12, 10), bits.or(12, 10), bits.xor(12, 10), bits.negate(5), bits.rsh(-8, 1)]\n', 't.p')).toEqual([
      8, 14, 6, -6, -4,
    ]);
    expect(run('package t\n', 'x := bits.lsh(9223372036854775807, 1)')).toEqual([{ x: 18446744073709551614n }]);
    const e = errorOf(() => run('package t\n', 'x := bits.and(7.2, 42)', { strictBuiltinErrors: true }));
    expect(e?.code).toBe('eval_type_error');
    expect(e?.message).toContain('bits.and: operand 1 must be integer number but got floating-point number');
  });

  it('walks graphs like OPA', () => {
    const g = '{"a": ["b", "d"], "b": {"c"}, "c": ["a"], "x": []}';
    expect(value(`package t\n\np := graph.reachable(${g}, ["a"])\n`, 't.p')).toEqual(['a', 'b', 'c']);
    expect(value(`package t\n\np := graph.reachable_paths(${g}, {"a", "x"})\n`, 't.p')).toEqual([['a'], ['a', 'b', 'c'], ['x']]);
  });

  it('keeps rand.intn stable within a query', () => {
    expect(value('package t\n\np := count({rand.intn("k", 100) | numbers.range(1, 50)[_]})\n', 't.p')).toBe(1);
  });

  it('validates http.send requests; a failed request is undefined unless builtin errors are strict', () => {
    const missing = errorOf(() => run('package t\n', 'x := http.send({"method": "get"})', { strictBuiltinErrors: true }));
    expect(missing?.code).toBe('eval_type_error');
    expect(missing?.message).toContain('missing required request parameters(s): {"url"}');
    expect(run('package t\n', 'x := http.send({"method": "get", "url": "http://127.0.0.1:1/"})')).toEqual([]);
    expect(errorOf(() => run('package t\n', 'x := http.send({"method": "get", "url": "http://127.0.0.1:1/"})', { strictBuiltinErrors: true }))?.code).toBe(
      'eval_builtin_error',
    );
  });

  it('renders Go templates', () => {
    const src =
      'package t\n\np := strings.render_template(`{{range $i, $n := .xs}}{{if $i}},{{end}}hi {{$n}}{{end}} {{.missing}} {{len .xs}}`, {"xs": ["a", "b"]})\n';
    expect(value(src, 't.p')).toBe('hi a,hi b <undefined> 2');
    expect(errorOf(() => value('package t\n\np := strings.render_template(`{{printf "%d" 1}}`, {})\n', 't.p'))?.code).toBe('unsupported');
  });
});
