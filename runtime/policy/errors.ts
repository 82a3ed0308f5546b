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

function prefix(loc: SourceLocation | undefined): string {
  if (loc === undefined) return '';
  return loc.file !== '' ? `${loc.file}:${loc.row}: ` : `${loc.row}:${loc.col}: `;
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
    const own = `${prefix(options.location)}${options.code}: ${options.detail}`;
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
