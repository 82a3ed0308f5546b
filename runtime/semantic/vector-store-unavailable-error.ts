import { FrameworkError } from '../core/framework-error.js';

/**
 * A vector store (Weaviate at `VECTOR_STORE_URL`, or LanceDB's directory)
 * cannot be used right now: down, not ready, timed out, or it refused a request.
 * Code `store_unavailable` (503 at the edge).
 */
export class VectorStoreUnavailableError extends FrameworkError {
  /** Where the store is (a URL or a directory). */
  readonly location: string;

  constructor(options: { kind: string; location: string; detail: string; cause?: unknown }) {
    super({
      code: 'store_unavailable',
      message: `The ${options.kind} vector store at ${options.location} is unavailable: ${options.detail}`,
      cause: options.cause,
    });
    this.location = options.location;
  }
}
