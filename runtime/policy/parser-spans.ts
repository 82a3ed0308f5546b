/**
 * Source spans of parsed nodes, recorded only when asked: for the formatter,
 * kept in a side table so the AST the evaluator uses stays as it is; for an
 * ad-hoc query, as the source text OPA labels its evaluation errors with.
 */
import { QueryLocation, type SourceLocation } from './errors.js';

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

interface SpanSource {
  parser: object;
  start: () => number;
  end: () => number;
}

/** Wraps the term and literal methods of one parser instance so that `seen` gets each node they return, with its span. */
function wrapSpanned(options: SpanSource, seen: (node: object, start: number, end: number) => void): void {
  const { parser } = options;
  const self = parser as Record<string, (...args: unknown[]) => unknown>;
  for (const name of SPANNED) {
    const inner = self[name] as (...args: unknown[]) => unknown;
    self[name] = (...args: unknown[]) => {
      const start = options.start();
      const out = inner.apply(parser, args);
      if (typeof out === 'object' && out !== null) seen(out, start, options.end());
      return out;
    };
  }
}

/**
 * Records each node's span in `spans` (the first node returned for a span
 * wins: the innermost, for a term in parentheses).
 */
export function recordSpans(options: SpanSource & { spans: SpanTable }): void {
  const { spans } = options;
  wrapSpanned(options, (node, start, end) => {
    if (!spans.has(node)) spans.set(node, { start, end });
  });
}

/**
 * Gives each term and expression a location of its own that knows its
 * source text, as OPA's parser keeps `Location.Text`: an evaluation error
 * in a query is labelled by it (`1 / 0: eval_builtin_error: …`). The last
 * span wins, so a term in parentheses reads with them (`(1 / 0)`), as in OPA.
 * The text is sliced only when an error asks for it.
 */
export function recordSourceTexts(options: SpanSource & { source: string }): void {
  const { source } = options;
  wrapSpanned(options, (node, start, end) => {
    const n = node as { loc?: unknown };
    if (typeof n.loc !== 'object' || n.loc === null) return;
    if (n.loc instanceof QueryLocation && n.loc.respan(node, start, end)) return;
    n.loc = new QueryLocation({ at: n.loc as SourceLocation, source, start, end, owner: node });
  });
}
