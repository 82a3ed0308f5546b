import { ux } from '@oclif/core';
import { JsonCommand } from './json-command.js';
import { stringifyJson } from '../runtime/core/json-text.js';
import { escapeJsonText } from '../runtime/core/terminal-text.js';
import { formatProblem, type PolicyLoadError } from '../runtime/policy/server/policy-problem.js';

/** Base of the `policy` commands: `--json` output keeps big integers exact. */
export abstract class PolicyCommand extends JsonCommand {
  override logJson(json: unknown): void {
    // Not this.log: it is silent in --json mode.
    // Policy data and inputs are anyone's text: what a terminal would interpret is written as \uXXXX.
    ux.stdout(escapeJsonText(this.jsonLines ? stringifyJson(json) : stringifyJson(json, 2)));
  }

  /**
   * Stops on policies that do not compile (code `policy_compile_error`): the
   * problems go to standard error before `message`, or, under --json, into
   * the error document's message (standard error is silent there).
   */
  protected failToCompile(error: PolicyLoadError, message: string): never {
    const problems = error.problems.map(formatProblem);
    if (this.jsonEnabled()) this.error(`the policies do not compile:\n${problems.join('\n')}`, { exit: 1, code: 'policy_compile_error' });
    for (const problem of problems) this.logToStderr(problem);
    this.error(message, { exit: 1, code: 'policy_compile_error' });
  }
}
