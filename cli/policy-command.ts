import { ux } from '@oclif/core';
import { JsonCommand } from './json-command.js';
import { stringifyJson } from '../runtime/core/json-text.js';
import { escapeJsonText } from '../runtime/core/terminal-text.js';
import type { PolicyLoadError } from '../runtime/policy/server/policy-problem.js';
import { failToCompile } from './fail-to-compile.js';

/** Base of the `policy` commands: `--json` output keeps big integers exact. */
export abstract class PolicyCommand extends JsonCommand {
  override logJson(json: unknown): void {
    // Not this.log: it is silent in --json mode.
    // Policy data and inputs are anyone's text: what a terminal would interpret is written as \uXXXX.
    ux.stdout(escapeJsonText(this.jsonLines ? stringifyJson(json) : stringifyJson(json, 2)));
  }

  /** Stops on policies that do not compile (see `failToCompile`). */
  protected failToCompile(error: PolicyLoadError, message: string): never {
    return failToCompile(this, error, message);
  }
}
