/**
 * # METADATA annotations and rego.metadata.chain()/rule(). The expected
 * values are what OPA v1.20.2 returns for the same module.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../../runtime/policy/engine.js';
import { toJS } from '../../../runtime/policy/value-json.js';

const here = dirname(fileURLToPath(import.meta.url));

const MODULE =
  '# METADATA\n# scope: subpackages\n# organizations:\n# - Acme\npackage a.b\n\n# METADATA\n# title: Doc\n# scope: document\n# related_resources:\n# - https://example.com\n# - ref: https://x.example\n#   description: X\n# authors:\n# - Jane Doe <jane@example.com>\n# - name: Bob\n# custom:\n#   severity: high\n#   tags: [a, b]\np := rego.metadata.chain()\n\nq := rego.metadata.rule()\n\n# METADATA\n# description: with rule\nr := x if {\n\tx := rego.metadata.rule()\n}\n\ns := rego.metadata.chain() if { true }\n';

describe('rego.metadata', () => {
  it('builds the chain and rule annotations as OPA does (document, subpackages, authors, related resources, custom)', () => {
    const policy = compilePolicy({ modules: { 'a.rego': MODULE } });
    const got = policy.query('x := [data.a.b.p, data.a.b.q, data.a.b.r, data.a.b.s]');
    expect(toJS(got[0]!['x']!)).toEqual([
      [
        { path: ['a', 'b', 'p'] },
        {
          annotations: {
            authors: [{ email: 'jane@example.com', name: 'Jane Doe' }, { name: 'Bob' }],
            custom: { severity: 'high', tags: ['a', 'b'] },
            related_resources: [{ ref: 'https://example.com' }, { description: 'X', ref: 'https://x.example' }],
            scope: 'document',
            title: 'Doc',
          },
          path: ['a', 'b', 'p'],
        },
        { annotations: { organizations: ['Acme'], scope: 'subpackages' }, path: ['a', 'b'] },
      ],
      {},
      { description: 'with rule', scope: 'rule' },
      [{ path: ['a', 'b', 's'] }, { annotations: { organizations: ['Acme'], scope: 'subpackages' }, path: ['a', 'b'] }],
    ]);
  });

  it('finds the package annotations of another module of the same package', () => {
    const policy = compilePolicy({
      modules: {
        'a.rego': '# METADATA\n# description: shared\npackage t\n',
        'b.rego': 'package t\n\np := rego.metadata.chain()\n\nq if {\n\trego.metadata.rule(x)\n\tx == {}\n}\n',
      },
    });
    expect(toJS(policy.evaluate('t.p')!)).toEqual([{ path: ['t', 'p'] }, { path: ['t'], annotations: { description: 'shared', scope: 'package' } }]);
    expect(policy.evaluate('t.q')).toBe(true);
  });

  it('ignores unknown annotation keys, as OPA does', () => {
    const policy = compilePolicy({ modules: { 'a.rego': 'package t\n\n# METADATA\n# nope: 1\np := rego.metadata.rule()\n' } });
    expect(toJS(policy.evaluate('t.p')!)).toEqual({ scope: 'rule' });
  });

  it('rejects invalid YAML as a parse error', () => {
    const bad = (block: string) => () => compilePolicy({ modules: { 'a.rego': `package t\n\n# METADATA\n${block}\np := rego.metadata.rule()\n` } });
    expect(bad('# title: [unclosed')).toThrow(/yaml/);
  });
});

describe('rego.parse_module', () => {
  const fixture = JSON.parse(readFileSync(join(here, 'fixtures', 'rego-parse-opa.json'), 'utf8')) as { cases: Array<{ query: string; want: unknown }> };
  it("returns OPA's AST JSON (package, imports, rules, terms, expressions, else, every, some-in, comprehensions, wildcards)", () => {
    expect(fixture.cases).toHaveLength(3);
    for (const c of fixture.cases) {
      const rs = compilePolicy({ modules: {} }).query(c.query, { strictBuiltinErrors: true });
      expect(toJS(rs[0]!['x']!)).toEqual(c.want);
    }
  });

  it('fails with the parse error of an invalid module', () => {
    expect(() => compilePolicy({ modules: {} }).query('x := rego.parse_module("x.rego", "package")', { strictBuiltinErrors: true })).toThrow(
      /rego.parse_module: 1 error occurred: x.rego:1: rego_parse_error/,
    );
  });
});

describe('# METADATA blocks', () => {
  // OPA's IsMetadataComment and blockBuster (ast/parser.go): also compared with OPA in the differential corpus ('metadata-headers').
  it('reads a `# METADATA:` header (Regal writes it), ends a block at an indented comment or the next header, and annotates the next statement, as OPA v1.20.2 does', () => {
    const policy = compilePolicy({
      modules: {
        'a.rego':
          'package t\n\n# METADATA:\n# title: colon\ncolon := rego.metadata.rule()\n\n# METADATA\n# title: first\n# METADATA\n# description: second\ntwo := rego.metadata.rule()\n\n# METADATA\n# title: short\n  # description: not in the block\nindented := rego.metadata.rule()\n',
      },
    });
    expect(toJS(policy.evaluate('t.colon')!)).toEqual({ scope: 'rule', title: 'colon' });
    // Both blocks annotate `two` (the first statement below each); rule() is the first.
    expect(toJS(policy.evaluate('t.two')!)).toEqual({ scope: 'rule', title: 'first' });
    // The indented comment ends the block, which still annotates the rule below it.
    expect(toJS(policy.evaluate('t.indented')!)).toEqual({ scope: 'rule', title: 'short' });
  });

  it('does not take an indented `# METADATA` comment as a block', () => {
    const policy = compilePolicy({ modules: { 'a.rego': 'package t\n\np if {\n  # METADATA\n  # title: x\n  true\n}\n\nq := rego.metadata.rule()\n' } });
    expect(toJS(policy.evaluate('t.q')!)).toEqual({});
  });
});
