/**
 * Source spans of parsed nodes, for the formatter: kept in a side table so
 * the AST the evaluator uses stays as it is, and recorded only when asked.
 */

/** Source offsets `[start, end)` of parsed nodes, kept beside the AST. */
export type SpanTable = WeakMap<object, { start: number; end: number }>;

/** Parser methods whose result gets its source span recorded. */
const SPANNED = [
  'parseTermIn',
  'parseTermRelation',
  'parseTermOr',
  'parseTermAnd',
  'parseTermArith',
  'parseTermFactor',
  'parseTerm',
  'parseArray',
  'parseSetOrObject',
  'parseLiteral',
];

/**
 * Wraps the term and literal methods of one parser instance so that each
 * node they return gets its span (the first node returned for a span wins:
 * the innermost, for a term in parentheses).
 */
export function recordSpans(options: { parser: object; spans: SpanTable; start: () => number; end: () => number }): void {
  const { parser, spans } = options;
  const self = parser as Record<string, (...args: unknown[]) => unknown>;
  for (const name of SPANNED) {
    const inner = self[name] as (...args: unknown[]) => unknown;
    self[name] = (...args: unknown[]) => {
      const start = options.start();
      const out = inner.apply(parser, args);
      if (typeof out === 'object' && out !== null && !spans.has(out)) spans.set(out, { start, end: options.end() });
      return out;
    };
  }
}
