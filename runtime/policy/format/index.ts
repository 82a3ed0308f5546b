/**
 * Rego formatter: prints a module the way `opa fmt` does for Rego v1 (tabs,
 * `:=` for rule values, `if`/`contains`, sorted import groups, comments kept
 * on their lines, collections multi-line when written multi-line; long lines
 * are not wrapped).
 *
 * @example
 * formatRego({ source: 'package a\nallow if { input.x == 1 }', file: 'a.rego' });
 * // 'package a\n\nallow if input.x == 1\n'
 */
import { parseModuleWithSource } from '../parser.js';
import { FormatContext } from './context.js';
import { writeBody, writeExpr } from './exprs.js';
import { writeModule } from './module.js';

export interface FormatOptions {
  source: string;
  /** File name used in parse errors. */
  file: string;
}

/** Formats a Rego v1 module. Throws a `PolicyError` (`rego_parse_error`, with the position) when it does not parse. */
export function formatRego(options: FormatOptions): string {
  const parsed = parseModuleWithSource(options);
  const comments = parsed.comments.map((c) => ({ text: c.text.trimEnd(), row: c.row }));
  const ctx = new FormatContext(options.source, parsed.spans, comments, { body: writeBody, expr: writeExpr });
  writeModule(ctx, parsed.module);
  const out = ctx.w.text();
  return out.endsWith('\n') ? out.replace(/\n+$/, '') + '\n' : out;
}
