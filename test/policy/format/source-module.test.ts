import { describe, expect, it } from 'vitest';
import { parseModule, parseModuleWithSource } from '../../../runtime/policy/parser.js';

const SOURCE = '# top\npackage a\n\nallow if {\n\tinput.x == [1, 2] # why\n}\n';

describe('parseModuleWithSource', () => {
  it('keeps the comments apart from the AST, with their rows and columns', () => {
    const { comments } = parseModuleWithSource({ source: SOURCE, file: 'a.rego' });
    expect(comments.map(({ text, row, col }) => ({ text, row, col }))).toEqual([
      { text: '# top', row: 1, col: 1 },
      { text: '# why', row: 5, col: 20 },
    ]);
  });

  it('records the span of terms, expressions, heads and rules beside the AST, which stays the one parseModule gives', () => {
    const { module, spans } = parseModuleWithSource({ source: SOURCE, file: 'a.rego' });
    const rule = module.rules[0]!;
    const expr = rule.body[0]!;
    const text = (node: object) => {
      const span = spans.get(node);
      return span === undefined ? undefined : SOURCE.slice(span.start, span.end);
    };
    expect(text(rule)).toBe('allow if {\n\tinput.x == [1, 2] # why\n}');
    expect(text(rule.head)).toBe('allow');
    expect(text(expr)).toBe('input.x == [1, 2]');
    expect(expr.kind === 'call' ? text(expr.args[1]!) : undefined).toBe('[1, 2]');
    const strip = (m: unknown) => JSON.stringify(m, (k, v: unknown) => (k === 'module' ? undefined : v));
    expect(strip(module)).toBe(strip(parseModule(SOURCE, 'a.rego')));
  });
});
