/**
 * Errors raised by the policy engine. Codes and message shapes mirror OPA's
 * (`rego_parse_error`, `eval_conflict_error`, ...), so callers and conformance
 * cases can match on them; `unsupported` marks a feature this engine does not
 * implement (never a silently wrong answer).
 */

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
  cause?: unknown;
}

/**
 * The source text of query terms and expressions, by their location (set by
 * the query parser): beside the location rather than in it, so locations keep
 * one shape and their JSON stays OPA's (which leaves `Text` out).
 */
const SOURCE_TEXTS = new WeakMap<SourceLocation, string>();

/** A copy of `loc` that carries `text`, the source of the node it locates. */
export function withSourceText(loc: SourceLocation, text: string): SourceLocation {
  const out = { file: loc.file, row: loc.row, col: loc.col };
  SOURCE_TEXTS.set(out, text);
  return out;
}

/**
 * The lead of a message, as OPA's `Location.String()` writes it for an
 * evaluation error (`file:row`, else the node's source text, else `row:col`);
 * compile errors keep `row:col` in a query, as OPA's `ast.Error` does.
 */
function prefix(loc: SourceLocation | undefined, code: PolicyErrorCode): string {
  if (loc === undefined) return '';
  if (loc.file !== '') return `${loc.file}:${loc.row}: `;
  const text = code.startsWith('eval_') ? SOURCE_TEXTS.get(loc) : undefined;
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
  readonly [BRAND] = true;

  constructor(options: PolicyErrorOptions) {
    const errors = options.errors ?? [];
    const own = `${prefix(options.location, options.code)}${options.code}: ${options.detail}`;
    const message = errors.length > 1 ? `${errors.length} errors occurred:\n${errors.map((e) => e.message).join('\n')}` : own;
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PolicyError';
    this.code = options.code;
    this.detail = options.detail;
    this.location = options.location;
    this.errors = errors;
  }

  static isInstance(value: unknown): value is PolicyError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  toJSON(): { code: string; message: string; location?: SourceLocation } {
    return this.location === undefined ? { code: this.code, message: this.detail } : { code: this.code, message: this.detail, location: this.location };
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
