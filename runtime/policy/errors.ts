/**
 * Errors raised by the policy engine. Codes and message shapes mirror OPA's
 * (`rego_parse_error`, `eval_conflict_error`, ...), so callers and conformance
 * cases can match on them; `unsupported` marks a feature this engine does not
 * implement (never a silently wrong answer).
 */

import { parserErrorLines, type ParserErrorDetail } from './parse-error-line.js';

const BRAND = Symbol.for('framework_core.policy.PolicyError');

export type PolicyErrorCode =
  | 'rego_parse_error'
  | 'rego_compile_error'
  | 'rego_type_error'
  | 'rego_unsafe_var_error'
  | 'rego_recursion_error'
  | 'eval_conflict_error'
  | 'eval_builtin_error'
  | 'eval_type_error'
  | 'eval_cancel_error'
  | 'eval_internal_error'
  | 'unsupported';

export interface SourceLocation {
  file: string;
  row: number;
  col: number;
}

export interface PolicyErrorOptions {
  code: PolicyErrorCode;
  /** The message without location or code prefix. */
  detail: string;
  location?: SourceLocation | undefined;
  /** Several errors reported together (compile stage); this error is then a summary. */
  errors?: PolicyError[];
  /** Lines shown under the message, each after a newline and a tab. */
  details?: readonly string[];
  /** A parser error's source line and byte index (OPA's `ParserErrorDetail`): shown as the line and a caret, and kept for the error's JSON. */
  parserDetail?: ParserErrorDetail | undefined;
  cause?: unknown;
}

/**
 * The location of a term or expression of an ad-hoc query, which also knows
 * the source text the parser consumed for it (OPA's `Location.Text`). The
 * text and what finds it are private fields, so the location reads, copies
 * and serialises as a plain `{file, row, col}` (OPA's JSON leaves `Text` out).
 */
export class QueryLocation implements SourceLocation {
  readonly file: string;
  readonly row: number;
  readonly col: number;
  readonly #source: string;
  #start: number;
  #end: number;
  /** The node this location was made for: a location shared by a node built from it is not widened by the other's span. */
  readonly #owner: object;

  constructor(options: { at: SourceLocation; source: string; start: number; end: number; owner: object }) {
    this.file = options.at.file;
    this.row = options.at.row;
    this.col = options.at.col;
    this.#source = options.source;
    this.#start = options.start;
    this.#end = options.end;
    this.#owner = options.owner;
  }

  /** Takes the span of `owner` again, when the location is its own (a term returned by several parser methods: the outermost wins). */
  respan(owner: object, start: number, end: number): boolean {
    if (this.#owner !== owner) return false;
    this.#start = start;
    this.#end = end;
    return true;
  }

  get text(): string {
    return this.#source.slice(this.#start, this.#end);
  }
}

/**
 * The lead of a message, as OPA's `Location.String()` writes it for an
 * evaluation error (`file:row`, else the node's source text, else `row:col`);
 * compile errors keep `row:col` in a query, as OPA's `ast.Error` does.
 */
function prefix(loc: SourceLocation | undefined, code: PolicyErrorCode): string {
  if (loc === undefined) return '';
  if (loc.file !== '') return `${loc.file}:${loc.row}: `;
  const text = code.startsWith('eval_') && loc instanceof QueryLocation ? loc.text : undefined;
  return text !== undefined && text !== '' ? `${text}: ` : `${loc.row}:${loc.col}: `;
}

/**
 * An error from parsing, compiling or evaluating Rego. `message` reads like
 * OPA's: `policy.rego:4: rego_unsafe_var_error: var x is unsafe`.
 */
export class PolicyError extends Error {
  readonly code: PolicyErrorCode;
  readonly detail: string;
  readonly location: SourceLocation | undefined;
  readonly errors: readonly PolicyError[];
  /** The lines under the message (see {@link PolicyErrorOptions.details}). */
  readonly details: readonly string[];
  /** The source line and index of a parser error, as OPA's JSON gives them (`details: {line, idx}`). */
  readonly parserDetail: ParserErrorDetail | undefined;
  readonly [BRAND] = true;

  constructor(options: PolicyErrorOptions) {
    const errors = options.errors ?? [];
    const details = options.details ?? (options.parserDetail === undefined ? [] : parserErrorLines(options.parserDetail));
    const own = `${prefix(options.location, options.code)}${options.code}: ${options.detail}${details.map((l) => `\n\t${l}`).join('')}`;
    const message = errors.length > 1 ? `${errors.length} errors occurred:\n${errors.map((e) => e.message).join('\n')}` : own;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PolicyError';
    this.code = options.code;
    this.detail = options.detail;
    this.location = options.location;
    this.errors = errors;
    this.details = details;
    this.parserDetail = options.parserDetail;
  }

  static isInstance(value: unknown): value is PolicyError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  /** OPA's JSON of an `ast.Error`: `{code, message, location?, details?}`. */
  toJSON(): { code: string; message: string; location?: SourceLocation; details?: ParserErrorDetail } {
    return {
      code: this.code,
      message: this.detail,
      ...(this.location === undefined ? {} : { location: this.location }),
      ...(this.parserDetail === undefined ? {} : { details: this.parserDetail }),
    };
  }
}

/** Combines compile errors into one thrown error (the first one's code). */
export function combineErrors(errors: PolicyError[]): PolicyError {
  if (errors.length === 1) return errors[0] as PolicyError;
  const first = errors[0] as PolicyError;
  return new PolicyError({ code: first.code, detail: first.detail, location: first.location, errors });
}

export function unsupported(feature: string, location?: SourceLocation): PolicyError {
  return new PolicyError({ code: 'unsupported', detail: `${feature} is not supported`, location });
}
