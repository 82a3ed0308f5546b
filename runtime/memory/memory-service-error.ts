import { FrameworkError } from '../core/framework-error.js';

/**
 * A call to the memory service failed: it could not be reached or answered
 * 503 (`memory_unavailable`), or it answered another error or something that
 * is not its API (`memory_error`). `serviceCode` and `status` are what the
 * service said, when it answered.
 */
export class MemoryServiceError extends FrameworkError {
  readonly url: string;
  readonly status: number | undefined;
  readonly serviceCode: string | undefined;

  constructor(options: { code: 'memory_unavailable' | 'memory_error'; url: string; message: string; status?: number; serviceCode?: string; cause?: unknown }) {
    super({ code: options.code, message: options.message, cause: options.cause });
    this.url = options.url;
    this.status = options.status;
    this.serviceCode = options.serviceCode;
  }
}
