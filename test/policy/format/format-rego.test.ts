import { describe, expect, it } from 'vitest';
import { PolicyError } from '../../../runtime/policy/errors.js';
import { formatRego } from '../../../runtime/policy/format/index.js';
import { parseModule } from '../../../runtime/policy/parser.js';

/**
 * The formatter's layout rules, each case written for this suite with the
 * output `opa fmt` gives for it (the rules of OPA's v1/format, checked
 * locally against OPA's golden files; see docs/policy.md, policy fmt).
 */
const fmt = (source: string) => formatRego({ source, file: 'case.rego' });

/** Lines joined with newlines (tabs written as \t), ending with a newline. */
const lines = (...xs: string[]) => xs.join('\n') + '\n';

describe('formatRego', () => {
  it('indents with tabs, writes := in heads and keeps = and := in bodies', () => {
    expect(fmt('package a\nx = 1\np = y if {\n    y = 2\n  z := 3\n}\n')).toBe(lines('package a', '', 'x := 1', '', 'p := y if {', '\ty = 2', '\tz := 3', '}'));
  });

  it('keeps a one-expression body on the head line and splits `;` bodies one expression per line', () => {
    expect(fmt('package a\n\nallow if { input.x == 1 }\n\ndeny if { input.a; input.b }\n')).toBe(
      lines('package a', '', 'allow if input.x == 1', '', 'deny if {', '\tinput.a', '\tinput.b', '}'),
    );
  });

  it('keeps a body written below the head as a block', () => {
    expect(fmt('package a\nallow if {\n  input.x\n}\n')).toBe(lines('package a', '', 'allow if {', '\tinput.x', '}'));
  });

  it('writes contains and drops a value of true the parser filled in', () => {
    expect(fmt('package a\ns contains x if { x := 1 }\nf(x) if x > 1\n')).toBe(lines('package a', '', 's contains x if x := 1', 'f(x) if x > 1'));
  });

  it('sorts imports within a group, keeps groups and trailing comments', () => {
    const src = 'package a\nimport data.z\nimport data.b as bee # the b\nimport input.x\n\nimport data.a\n\np := 1\n';
    expect(fmt(src)).toBe(lines('package a', '', 'import data.b as bee # the b', 'import data.z', 'import input.x', '', 'import data.a', '', 'p := 1'));
  });

  it('keeps at most one blank line between rules and groups adjacent one-line rules', () => {
    expect(fmt('package a\n\n\n\nx := 1\ny := 2\n\n\n\nz := 3\n')).toBe(lines('package a', '', 'x := 1', 'y := 2', '', 'z := 3'));
  });

  it('separates a block rule from the next one with a blank line', () => {
    expect(fmt('package a\np if {\n\tinput.a\n}\nq := 1\n')).toBe(lines('package a', '', 'p if {', '\tinput.a', '}', '', 'q := 1'));
  });

  it('keeps comments above rules, at line ends, inside bodies, before a closing brace and at the end', () => {
    const src = [
      '# header',
      'package a',
      '',
      '# about p',
      'p if {',
      '  # first',
      '  input.a # trailing',
      '',
      '',
      '  input.b',
      '  # last',
      '}',
      '# the end',
    ].join('\n');
    expect(fmt(src)).toBe(
      lines('# header', 'package a', '', '# about p', 'p if {', '\t# first', '\tinput.a # trailing', '', '\tinput.b', '\t# last', '}', '', '# the end'),
    );
  });

  it('does not wrap long lines', () => {
    const long = 'p := ' + '"' + 'x'.repeat(200) + '"';
    expect(fmt(`package a\n${long}\n`)).toBe(lines('package a', '', long));
  });

  it('writes some declarations and some ... in', () => {
    expect(fmt('package a\np if {\n  some x\n  some y in input.ys\n  some k, v in input.m\n  x := k\n}\n')).toBe(
      lines('package a', '', 'p if {', '\tsome x', '\tsome y in input.ys', '\tsome k, v in input.m', '\tx := k', '}'),
    );
  });

  it('writes every on one line or as a block, as written', () => {
    expect(fmt('package a\np if {\n  every x in [1,2] { x > 0 }\n  every k, v in {"a": 1} {\n    k != v\n  }\n}\n')).toBe(
      lines('package a', '', 'p if {', '\tevery x in [1, 2] { x > 0 }', '\tevery k, v in {"a": 1} {', '\t\tk != v', '\t}', '}'),
    );
  });

  it('puts collections on one line when written on one line, else one line per source line with a trailing comma', () => {
    expect(fmt('package a\nxs := [1,2,  3]\nm := {"a": 1,\n"b": [2,\n3]}\ns := {\n  "x"}\n')).toBe(
      lines('package a', '', 'xs := [1, 2, 3]', '', 'm := {', '\t"a": 1,', '\t"b": [', '\t\t2,', '\t\t3,', '\t],', '}', '', 's := {', '\t"x",', '}'),
    );
  });

  it('writes the empty set as set() and an empty object as {}', () => {
    expect(fmt('package a\ns := set()\no := {}\n')).toBe(lines('package a', '', 's := set()', 'o := {}'));
  });

  it('keeps `} else` on the closing line, or on its own line after a blank line, as written', () => {
    const src = 'package a\nx := 1 if {\n  input.a\n} else := 2 if {\n  input.b\n}\n\ny := 1 if {\n  input.a\n}\nelse := 2\n';
    expect(fmt(src)).toBe(
      lines('package a', '', 'x := 1 if {', '\tinput.a', '} else := 2 if {', '\tinput.b', '}', '', 'y := 1 if {', '\tinput.a', '}', '', 'else := 2'),
    );
  });

  it('writes function heads and calls, multi-line arguments one per line', () => {
    expect(fmt('package a\nf(x, y) = z if {\n  z := concat("/",\n    [x, y])\n}\n')).toBe(
      lines('package a', '', 'f(x, y) := z if {', '\tz := concat(', '\t\t"/",', '\t\t[x, y],', '\t)', '}'),
    );
  });

  it('keeps a with on the expression line and indents withs written below it', () => {
    expect(fmt('package a\np if {\n  allow with input as {"a": 1}\n  allow with input.a as 1\n     with data.b as 2\n}\n')).toBe(
      lines('package a', '', 'p if {', '\tallow with input as {"a": 1}', '\tallow with input.a as 1', '\t\twith data.b as 2', '}'),
    );
  });

  it('keeps strings, raw strings and numbers as written', () => {
    const src = 'package a\ns := "a\\u001b\\n\\"q\\"/"\nr := `raw\\n{x}`\nn := [1e3, 0.50, -1, 100000000000000000000]\n';
    expect(fmt(src)).toBe(lines('package a', '', 's := "a\\u001b\\n\\"q\\"/"', 'r := `raw\\n{x}`', 'n := [1e3, 0.50, -1, 100000000000000000000]'));
  });

  it('writes builtin operator calls infix and parenthesizes nested ones', () => {
    expect(fmt('package a\nx := plus(1, 2)\ny := a + b * c\nz := (a + b) * c\nw := {1} | {2}\np if neq(x, y)\n')).toBe(
      lines('package a', '', 'x := 1 + 2', 'y := a + (b * c)', 'z := (a + b) * c', 'w := {1} | {2}', 'p if x != y'),
    );
  });

  it('writes membership with in, and refs with dots where the key is a name', () => {
    expect(fmt('package a\np if "x" in input.xs\nq := input["a"]["b-c"][0]\nr := input["not"]\n')).toBe(
      lines('package a', '', 'p if "x" in input.xs', 'q := input.a["b-c"][0]', 'r := input["not"]'),
    );
  });

  it('writes comprehensions inline, or with the body below when written so', () => {
    expect(fmt('package a\nxs := [x | some x in input.a; x > 1]\nys := {x |\n  some x in input.b\n}\n')).toBe(
      lines('package a', '', 'xs := [x | some x in input.a; x > 1]', '', 'ys := {x |', '\tsome x in input.b', '}'),
    );
  });

  it('writes default rules and template strings as written', () => {
    expect(fmt('package a\ndefault allow = false\nmsg := $"user {input.user}!"\n')).toBe(
      lines('package a', '', 'default allow := false', '', 'msg := $"user {input.user}!"'),
    );
  });

  it('writes not, and keeps the package path in dotted or bracket form as OPA does', () => {
    expect(fmt('package a.b["not"]\np if { not input.x }\n')).toBe(lines('package a.b["not"]', '', 'p if not input.x'));
  });

  it('is idempotent and keeps the meaning (same AST)', () => {
    const src = 'package a\nimport data.x\n# c\np[k] = v if { some k, v in input; v > 1 }\nq contains {"a": [1,\n2]} if true\n';
    const once = fmt(src);
    expect(fmt(once)).toBe(once);
    const strip = (m: unknown) => JSON.stringify(m, (k, v: unknown) => (['loc', 'module', 'file', 'generated', 'assign'].includes(k) ? undefined : v));
    expect(strip(parseModule(once, 'case.rego'))).toBe(strip(parseModule(src, 'case.rego')));
  });

  it('throws a rego_parse_error with the position for a file that does not parse', () => {
    let error: unknown;
    try {
      fmt('package a\n\np if {\n  input.x ==\n');
    } catch (e) {
      error = e;
    }
    expect(PolicyError.isInstance(error)).toBe(true);
    // The end of the text, after its last newline: OPA's column 0.
    expect(error).toMatchObject({ code: 'rego_parse_error', location: { file: 'case.rego', row: 5, col: 0 } });
  });

  it('rejects Rego v0 syntax as the parser does', () => {
    expect(() => fmt('package a\np { true }\n')).toThrow(/rego_parse_error/);
  });
});
