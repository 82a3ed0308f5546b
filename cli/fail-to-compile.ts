import { formatProblem, type PolicyLoadError } from '../runtime/policy/server/policy-problem.js';
import type { ServeIo } from './serve-until-stopped.js';

/**
 * Stops a `policy` command on policies that do not compile (code
 * `policy_compile_error`): the problems go to standard error before
 * `message`, or, under --json, into the error document's message (standard
 * error is silent there).
 */
export function failToCompile(command: Pick<ServeIo, 'jsonEnabled' | 'logToStderr' | 'error'>, error: PolicyLoadError, message: string): never {
  const problems = error.problems.map(formatProblem);
  if (command.jsonEnabled()) command.error(`the policies do not compile:\n${problems.join('\n')}`, { exit: 1, code: 'policy_compile_error' });
  for (const problem of problems) command.logToStderr(problem);
  command.error(message, { exit: 1, code: 'policy_compile_error' });
}
