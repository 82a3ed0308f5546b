import type { Command } from '@oclif/core';
import { FrameworkError } from '../runtime/core/framework-error.js';
import { SupervisorError } from '../runtime/supervisor/supervisor-error.js';

/**
 * Ends a command with one of our errors. Under --json the error itself is
 * rethrown, so oclif prints one JSON document `{"error":{code,message,…}}`
 * (with `service` and `lastLines` for a `SupervisorError`) and exits 1;
 * otherwise the message (and the last log lines) goes to standard error.
 * Anything else is rethrown as it is.
 *
 * @example
 * try { await supervisor.start(); } catch (error) { failWith(this, error); }
 */
export function failWith(command: Command, error: unknown): never {
  if (!FrameworkError.isInstance(error) || command.jsonEnabled()) throw error;
  const tail =
    SupervisorError.isInstance(error) && error.lastLines.length > 0
      ? `\n${error.service ? `Last lines of ${error.service}'s log:` : 'Last lines of the log:'}\n${error.lastLines.map((line) => `  ${line}`).join('\n')}`
      : '';
  command.error(`${error.message}${tail}`, { exit: 1, code: error.code });
}
