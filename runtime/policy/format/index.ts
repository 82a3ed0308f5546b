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
import { type Module, opRef, refToString } from '../ast.js';
import { PolicyError } from '../errors.js';
import { parseModule, parseModuleWithSource } from '../parser.js';
import { FormatContext } from './context.js';
import { writeBody, writeExpr } from './exprs.js';
import { writeModule } from './module.js';

export interface FormatOptions {
  source: string;
  /** File name used in parse errors. */
  file: string;
  /**
   * Read the source as Rego v0 and write it as v1 with `import rego.v1`
   * (so it also parses under v0), as `opa fmt --v0-v1` does.
   */
  v0ToV1?: boolean;
}

/**
 * A v0 module whose v1 text does not parse (a rule named `every` or `in`, a
 * keyword in v1) is refused with the reason rather than written broken.
 */
function checkRewrite(text: string, file: string): void {
  try {
    parseModule(text, file);
  } catch (e) {
    if (!PolicyError.isInstance(e)) throw e;
    const first = e.errors[0] ?? e;
    throw new PolicyError({
      code: 'rego_parse_error',
      detail: `cannot be rewritten as Rego v1: ${first.detail} in the rewritten text`,
      location: first.location,
    });
  }
}

/** Adds `import rego.v1` unless imported, in the group of the first import (or alone after the package). */
function addRegoV1Import(module: Module): void {
  if (module.imports.some((i) => refToString(i.path) === 'rego.v1')) return;
  const at = module.imports[0]?.loc ?? { ...module.package.loc, row: module.package.loc.row + 1 };
  module.imports.unshift({ path: opRef('rego.v1', at), loc: at });
}

/** Formats a Rego module. Throws a `PolicyError` (`rego_parse_error`, with the position) when it does not parse. */
export function formatRego(options: FormatOptions): string {
  const parsed = parseModuleWithSource({ source: options.source, file: options.file, regoVersion: options.v0ToV1 === true ? 0 : 1 });
  if (options.v0ToV1 === true) addRegoV1Import(parsed.module);
  const comments = parsed.comments.map((c) => ({ text: c.text.trimEnd(), row: c.row }));
  const ctx = new FormatContext(options.source, parsed.spans, comments, { body: writeBody, expr: writeExpr });
  writeModule(ctx, parsed.module);
  const raw = ctx.w.text();
  const out = raw.endsWith('\n') ? raw.replace(/\n+$/, '') + '\n' : raw;
  if (options.v0ToV1 === true) checkRewrite(out, options.file);
  return out;
}
