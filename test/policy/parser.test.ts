import { describe, expect, it } from 'vitest';
import { parseModule, parseQuery } from '../../runtime/policy/parser.js';
import { PolicyError } from '../../runtime/policy/errors.js';
import { tokenize } from '../../runtime/policy/lexer.js';

function parseError(src: string): PolicyError {
  try {
    parseModule(src, 'p.rego');
  } catch (e) {
    if (PolicyError.isInstance(e)) return e;
    throw e;
  }
  throw new Error('expected a parse error');
}

describe('lexer', () => {
  it("tracks rows, columns (code points, the end at the last one read, as OPA's scanner) and preceding whitespace", () => {
    const toks = tokenize('a.b\n  [1]', 'f.rego');
    expect(toks.map((t) => [t.text, t.row, t.col, t.space])).toEqual([
      ['a', 1, 1, true],
      ['.', 1, 2, false],
      ['b', 1, 3, false],
      ['[', 2, 3, true],
      ['1', 2, 4, false],
      [']', 2, 5, false],
      ['', 2, 5, false],
    ]);
    const astral = tokenize('"😀😀" x\n', 'f.rego');
    expect(astral.map((t) => [t.row, t.col])).toEqual([
      [1, 1],
      [1, 6],
      [2, 0],
    ]);
  });

  it('decodes escapes and keeps raw strings verbatim', () => {
    const toks = tokenize('"a\\n\\u00e9\\"" `x\\ny`', 'f.rego');
    expect(toks[0]?.text).toBe('a\né"');
    expect(toks[1]?.text).toBe('x\\ny');
  });

  it('reports unterminated strings with a location', () => {
    const e = parseError('package p\n\nx := "abc\n');
    expect(e.code).toBe('rego_parse_error');
    expect(e.location).toEqual({ file: 'p.rego', row: 3, col: 6 });
    // As OPA v1.20.2 words it: the scanner's error, then the parser's at the same token, then the rule's.
    const line = '\n\tx := "abc\n\t     ^';
    expect(e.message).toBe(
      `3 errors occurred:\np.rego:3: rego_parse_error: non-terminated string${line}\np.rego:3: rego_parse_error: illegal token${line}\np.rego:3: rego_parse_error: illegal token${line}`,
    );
  });
});

describe('parser', () => {
  it('parses rules of every kind', () => {
    const m = parseModule(
      `package a.b
import rego.v1
import data.x.y as z

default allow := false
allow if input.user == "admin"
deny contains msg if { msg := "no" }
obj[k] := v if { some k, v in input.o }
f(x) := x + 1
g(x) := 1 if x > 0 else := 2
a.b.c := 3
`,
      'a.rego',
    );
    expect(m.package.path.terms.map((t) => (t.type === 'string' ? t.value : t.type === 'var' ? t.name : ''))).toEqual(['data', 'a', 'b']);
    expect(m.imports).toHaveLength(2);
    expect(m.rules).toHaveLength(7);
    expect(m.rules[0]?.default).toBe(true);
    expect(m.rules[2]?.head.key).toBeDefined();
    expect(m.rules[4]?.head.args).toHaveLength(1);
    expect(m.rules[5]?.else).toBeDefined();
    expect(m.rules[6]?.head.ref).toHaveLength(3);
  });

  it('parses comprehensions, every, with, membership and operators', () => {
    const body = parseQuery('x := [y | some y in [1, 2]]; every z in x { z > 0 }; 1 in x; q with input as {"a": 1}; a := 1 + 2 * 3 % 4 - 5 / 6');
    expect(body.map((e) => e.kind)).toEqual(['call', 'every', 'call', 'term', 'call']);
    expect(body[3]?.with).toHaveLength(1);
  });

  it('rejects Rego v0 syntax with a clear error', () => {
    expect(parseError('package p\n\np { true }').message).toContain('`if` keyword is required before rule body');
    expect(parseError('package p\n\np[x] { x := 1 }').message).toContain('`if` keyword is required before rule body');
  });

  it('reports the location of unexpected tokens', () => {
    const e = parseError('package p\n\nallow if {\n  input.x ==\n}\n');
    expect(e.code).toBe('rego_parse_error');
    expect(e.location?.row).toBe(5);
  });

  it('requires a package, reading the statements first as OPA does; a text without statements is an empty module', () => {
    expect(parseError('allow := true').message).toBe('p.rego:1: rego_parse_error: package expected');
    expect(parseError('# only a comment\n\nx := 1\npackage p').message).toBe(
      '2 errors occurred:\np.rego:3: rego_parse_error: package expected\np.rego:4: rego_parse_error: unexpected package',
    );
    expect(parseError('# only a comment\n').message).toBe('p.rego:0: rego_parse_error: empty module');
    // A keyword after `package`, even on a later line, is the package's name.
    expect(parseModule('package import', 'p.rego').package.path.terms.map((t) => (t.type === 'string' ? t.value : ''))).toEqual(['', 'import']);
  });

  it('supports rego.v2 not-bodies', () => {
    const m = parseModule('package p\nimport rego.v2\np if { not { input.a; input.b } }', 'p.rego');
    expect(m.rules[0]?.body[0]?.kind).toBe('notbody');
  });
});

// Attack (issue 33): query text nested thousands deep overflowed the parser's recursion, a 500 at the policy server.
describe('nesting', () => {
  it('refuses text whose brackets nest more than 256 deep with a rego_parse_error at the place', () => {
    const deep = `x := ${'['.repeat(300)}1${']'.repeat(300)}`;
    expect(() => parseQuery(deep)).toThrow(/1:262: rego_parse_error: nested more than 256 deep/);
    expect(() => parseModule(`package p\n\n${deep}\n`, 'p.rego')).toThrow(/p.rego:3: rego_parse_error: nested more than 256 deep/);
    expect(() => parseQuery(`x := ${'['.repeat(256)}1${']'.repeat(256)}`)).not.toThrow();
  });
});
