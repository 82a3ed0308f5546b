import { failWith } from './fail-with.js';
import { JsonCommand } from './json-command.js';

/**
 * Base of the scaffolding commands (`create project`, `create swarm`, `add
 * agent`): `--json` prints one document; a refusal (`FrameworkError`) is
 * reported with its code and message, on standard error, or under `--json`
 * as `{"error":{"code","message","exit"}}` on standard output; exit code 1.
 */
export abstract class ScaffoldCommand extends JsonCommand {
  /** Runs `work`; a `FrameworkError` ends the command as above (never a stack trace). */
  protected async scaffold<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      failWith(this, error);
    }
  }

  /** Prints `lines` unless in JSON mode. */
  protected report(lines: readonly string[]): void {
    if (this.jsonEnabled()) return;
    for (const line of lines) this.log(line);
  }
}
