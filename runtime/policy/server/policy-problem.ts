// What a failed policy load reports, apart from the engine that compiles the policies: the CLI's
// policy commands catch and print these without loading the engine first.

/** One problem found while loading policies, with its place when known. */
export interface PolicyProblem {
  code: string;
  message: string;
  file?: string;
  row?: number;
  col?: number;
  /** A parser error's source line and the index of the byte it points at (OPA's `details`). */
  details?: { line: string; idx: number };
}

const BRAND = Symbol.for('framework_core.PolicyLoadError');

/**
 * The policies could not be loaded; `problems` lists each with its place.
 * `PolicyLoadError.isInstance(e)` survives a second copy of the engine in the
 * process (the CLI's policy commands run a bundled one), where `instanceof` does not.
 */
export class PolicyLoadError extends Error {
  readonly problems: readonly PolicyProblem[];
  readonly [BRAND] = true;
  constructor(problems: readonly PolicyProblem[]) {
    super(`${problems.length} problem(s) loading policies:\n${problems.map(formatProblem).join('\n')}`);
    this.name = 'PolicyLoadError';
    this.problems = problems;
  }

  static isInstance(value: unknown): value is PolicyLoadError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }
}

/** `file:row:col: code: message`, the form editors jump to. */
export function formatProblem(problem: PolicyProblem): string {
  const place = problem.file === undefined ? '' : `${problem.file}${problem.row === undefined ? '' : `:${problem.row}:${problem.col ?? 1}`}: `;
  return `${place}${problem.code}: ${problem.message}`;
}
