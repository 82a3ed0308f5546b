import type { ErrorCode } from './error-codes.js';

const BRAND = Symbol.for('framework_core.FrameworkError');

export interface FrameworkErrorOptions {
  /** Stable machine-readable code; mapped to HTTP and JSON-RPC codes in `error-codes.ts`. */
  code: ErrorCode;
  message: string;
  cause?: unknown;
}

/**
 * Base class of every error this toolkit throws on purpose.
 *
 * `FrameworkError.isInstance(e)` survives duplicate copies of the module
 * (two installs of the package in one process), where `instanceof` does not.
 */
export class FrameworkError extends Error {
  readonly code: ErrorCode;
  readonly [BRAND] = true;

  constructor(options: FrameworkErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
  }

  static isInstance(value: unknown): value is FrameworkError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  /** The JSON a client may see: code and message, never a stack. */
  toJSON(): { code: ErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}
