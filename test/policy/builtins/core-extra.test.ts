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
  });

  it('renders the rest of Go text/template as OPA does: printf, escapers, slice, define/template/block, break/continue', () => {
    const render = (tpl: string, vars: unknown): unknown => value('package t\n\np := strings.render_template(input.t, input.v)\n', 't.p', { t: tpl, v: vars });
    // json.Number is a string type to Go: %d refuses it, a template's own literals are ints and float64s.
    expect(render('{{printf "%d|%s|%05.1f|%T|%v" 3 .n 2.25 .n .a}}', { n: 3, a: [1, 'x', null, { k: true }] })).toBe(
      '3|3|002.2|json.Number|[1 x <nil> map[k:true]]',
    );
    expect(render('{{html .s}}|{{js .s}}|{{urlquery .s}}|{{html .missing}}', { s: `<a href='x'>&"=` })).toBe(
      "&lt;a href=&#39;x&#39;&gt;&amp;&#34;=|\\u003Ca href\\u003D\\'x\\'\\u003E\\u0026\\\"\\u003D|%3Ca+href%3D%27x%27%3E%26%22%3D|&lt;no value&gt;",
    );
    expect(render('{{slice .s 1 3}}|{{slice .a 1}}|{{index .s 0}}|{{len (slice "héllo" 1 3)}}', { s: 'abcd', a: [1, 2, 3] })).toBe('bc|[2 3]|97|2');
    expect(render('{{define "x"}}<{{.}}>{{end}}{{template "x" .k}}{{block "b" .k}}[{{.}}]{{end}}', { k: 'v' })).toBe('<v>[v]');
    expect(render('{{range .a}}{{if eq . "b"}}{{continue}}{{end}}{{if eq . "d"}}{{break}}{{end}}{{.}}{{end}}', { a: ['a', 'b', 'c', 'd', 'e'] })).toBe('ac');
    expect(render('{{range .a}}{{.}};{{end}}{{.z}}|{{print .z}}|{{eq .missing 1}}', { a: [null], z: null })).toBe('<undefined>;<undefined>|<nil>|false');
  });

  it('words execution errors as Go does: line:byte column, the template running, the node as Go prints it (texts from OPA v1.20.2)', () => {
    const v = { n: 1, s: 'str', b: true, z: null, a: [1, 'x', null, true], ss: ['a', 'b', 'c'], m: { k: 'v', n: 1 } };
    const policy = 'package t\n\np := strings.render_template(input.t, input.v)\n';
    const failure = (tpl: string) =>
      errorOf(() => run(policy, 'x := data.t.p', { input: { t: tpl, v }, strictBuiltinErrors: true }))?.message.replace(/^.*render_template: /, '');
    const cases: Array<[string, string]> = [
      [
        '{{eq .ss .m}}',
        'template:1:2: executing "template" at <eq .ss .m>: error calling eq: non-comparable types [a b c]: []interface {}, map[string]interface {}: map[k:v n:1]',
      ],
      ['{{eq .m .m}}', 'template:1:2: executing "template" at <eq .m .m>: error calling eq: non-comparable type map[k:v n:1]: map[string]interface {}'],
      ['{{define "x"}}{{len .}}{{end}}{{template "x" 1}}', 'template:1:16: executing "x" at <len .>: error calling len: len of type int'],
      ['{{range .ss}}{{.x}}{{end}}', 'template:1:15: executing "template" at <.x>: can\'t evaluate field x in type interface {}'],
      ['{{with .s}}{{.x}}{{end}}', 'template:1:13: executing "template" at <.x>: can\'t evaluate field x in type string'],
      ['{{ .s | len | call }}', 'template:1:14: executing "template" at <call>: error calling call: non-function <int Value> of type int'],
      ['{{printf (index .a 2)}}', 'template:1:19: executing "template" at <2>: invalid value; expected string'],
      ['{{printf true}}', 'template:1:9: executing "template" at <true>: expected string; found true'],
      ['héllo {{call .s}}', 'template:1:9: executing "template" at <call .s>: error calling call: non-function .s of type string'],
      ['a\nb {{call .s}}', 'template:2:4: executing "template" at <call .s>: error calling call: non-function .s of type string'],
      ['{{template "q" .}}', 'template:1:11: executing "template" at <{{template "q" .}}>: template "q" not defined'],
      ['{{slice .s 0 .n}}', 'template:1:2: executing "template" at <slice .s 0 .n>: error calling slice: cannot index slice/array with type interface {}'],
      ['{{index .ss 3}}', 'template:1:2: executing "template" at <index .ss 3>: error calling index: reflect: slice index out of range'],
      ['{{len .z}}', 'template:1:2: executing "template" at <len .z>: error calling len: len of nil pointer'],
      ['{{.z.x}}', 'template:1:4: executing "template" at <.z.x>: nil pointer evaluating interface {}.x'],
      ['{{.a 1}}', 'template:1:2: executing "template" at <.a>: a is not a method but has arguments'],
      ['{{"a" | len 1}}', 'template:1:8: executing "template" at <len>: wrong number of args for len: want 1 got 2'],
      // Parse errors have no column; an unknown function is one, found before anything runs.
      ['{{call .s}}{{nosuch}}', 'template:1: function "nosuch" not defined'],
      ['a\n{{nosuch 1}}', 'template:2: function "nosuch" not defined'],
      ['{{99999999999999999999}}', 'template:1: integer overflow: "99999999999999999999"'],
      ['{{0xFFFFFFFFFFFFFFFFFF}}', 'template:1: illegal number syntax: "0xFFFFFFFFFFFFFFFFFF"'],
      ['{{nil.x}}', 'template:1: unexpected . after term "nil"'],
      ['{{"a".x}}', 'template:1: unexpected . after term "\\"a\\""'],
      ['{{1.x}}', 'template:1: bad number syntax: "1.x"'],
      ['{{1e}}', 'template:1: illegal number syntax: "1e"'],
    ];
    expect(cases.map(([tpl]) => failure(tpl))).toEqual(cases.map(([, text]) => `template: ${text}`));
    // `and` and `or` stop at the first argument that decides, as Go's do.
    expect(value(policy, 't.p', { t: '{{and false (call .s)}}|{{or 1 (call .s)}}|{{.missing.x}}', v })).toBe('false|1|<undefined>');
  });

  it('fails a hostile template with the error Go gives or the evaluation budget, never a crash or a hang', () => {
    const policy = 'package t\n\np := strings.render_template(input.t, {})\n';
    const failure = (tpl: string, options = {}) => errorOf(() => run(policy, 'x := data.t.p', { ...options, input: { t: tpl }, strictBuiltinErrors: true }));
    expect(failure('{{define "r"}}{{template "r"}}{{end}}{{template "r"}}')?.message).toContain('exceeded maximum template depth (100000)');
    expect(failure('{{break}}')?.message).toContain('{{break}} outside {{range}}');
    expect(failure('{{template "nope"}}')?.message).toContain('template "nope" not defined');
    expect(failure('{{call .}}')?.message).toContain('non-function . of type map[string]interface {}');
    expect(failure('{{define "a"}}x{{end}}{{define "a"}}y{{end}}')?.message).toContain('multiple definition of template "a"');
    expect(failure('{{printf "%d" 12345678901234567890}}')?.message).toContain('12345678901234567890 overflows int');
    // Ranging over a huge int builds no list: the policy's budget stops it.
    expect(failure('{{range 100000000000000}}{{end}}', { budgetMs: 50 })?.code).toBe('eval_cancel_error');
  });
});

describe('sprintf as Go fmt formats', () => {
  const fmt = (format: string, args: string): unknown => value(`package t\n\np := sprintf(${JSON.stringify(format)}, ${args})\n`, 't.p');

  it('rounds exact ties to even and takes any precision Go allows', () => {
    expect(fmt('%.0f %.0f %.1f %.1e %.2g %5.1f', '[0.5, 2.5, 1.25, 1.25, 1.25, -0.25]')).toBe('0 2 1.2 1.2e+00 1.2  -0.2');
    expect(fmt('%.120f', '[1.5]')).toBe(`1.5${'0'.repeat(119)}`);
  });

  it('pads and flags as Go does, bad verbs included', () => {
    expect(fmt('%06s|%6.2f|%06.1f|%#x|%# x|%.1x|%.2q|%-5.2T|', '["ab", "2", 1.25, "ab", "ab", "日本", "abc", 1]')).toBe(
      '0000ab|%!f(string=     2)|0001.2|0x6162|0x61 0x62|e6|"ab"|in   |',
    );
    expect(fmt('%+v|%#v|%+q|%#q|%c|%U|%#U|%b', '[2.5, "a", "é", "a\\nb", -7, -7, 233, 0.125]')).toBe(
      '2.5|"a"|"\\u00e9"|"a\\nb"|\uFFFD|U+FFFFFFFFFFFFFFF9|U+00E9 \'é\'|4503599627370496p-55',
    );
    expect(fmt('%.5v|%#g|%#.0f|%#08x|% 05.3d', '[0, 2.5, 2.5, 255, 0]')).toBe('00000|2.50000|2.|0x000000ff|  000');
  });
});
