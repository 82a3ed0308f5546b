import { compilePolicy, type CompiledPolicy, type CompilePolicyOptions } from '../engine.js';
import { PolicyError } from '../errors.js';
import type { PolicyFiles, PolicySource } from './policy-files.js';
import { PolicyLoadError, type PolicyProblem } from './policy-problem.js';

export { formatProblem, PolicyLoadError, type PolicyProblem } from './policy-problem.js';

/** A compiled, servable set of policies: replaced whole, never half-loaded. */
export interface PolicySet {
  readonly policy: CompiledPolicy;
  readonly modules: readonly PolicySource[];
  /** The base data document (from data files and `/v1/data` writes) as a JSON-like value. */
  readonly data: Record<string, unknown>;
  readonly loadedAt: Date;
  /** Increases with every compiled set, so copies held elsewhere (decision workers) know when they are stale. */
  readonly generation: number;
}

let generations = 0;

/** Every individual error inside a PolicyError (compile errors come grouped). */
export function problemsOf(error: PolicyError): PolicyProblem[] {
  const errors = error.errors.length > 0 ? error.errors : [error];
  return errors.map((e) => ({
    code: e.code,
    message: e.detail,
    ...(e.location ? { file: e.location.file, row: e.location.row, col: e.location.col } : {}),
    ...(e.parserDetail ? { details: { line: e.parserDetail.line, idx: e.parserDetail.idx } } : {}),
  }));
}

/**
 * Compiles a directory's modules and data into a servable set. Throws
 * `PolicyLoadError` listing every problem (bad data files included).
 */
export function compilePolicySet(files: PolicyFiles, options: Pick<CompilePolicyOptions, 'schemas' | 'typeCheckAnnotations'> = {}): PolicySet {
  const problems: PolicyProblem[] = files.problems.map((p) => ({ code: 'invalid_file', message: p.message, file: p.file }));
  let policy: CompiledPolicy | undefined;
  try {
    policy = compilePolicy({
      modules: files.modules.map((m) => ({ file: m.id, source: m.source, ...(m.regoVersion === undefined ? {} : { regoVersion: m.regoVersion }) })),
      data: files.data,
      ...options,
    });
  } catch (error) {
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      // Text nested too deep for the parser's recursion: the module's fault, reported as such.
      problems.push({ code: 'rego_parse_error', message: 'the policies nest too deep to compile' });
    } else if (!PolicyError.isInstance(error)) throw error;
    else problems.push(...problemsOf(error));
  }
  if (!policy || problems.length > 0) throw new PolicyLoadError(problems);
  return { policy, modules: files.modules, data: files.data, loadedAt: new Date(), generation: ++generations };
}
