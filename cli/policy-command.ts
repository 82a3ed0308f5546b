import { Command, ux } from '@oclif/core';
import { stringifyJson } from '../runtime/core/json-text.js';

/** Base of the `policy` commands: `--json` output keeps big integers exact. */
export abstract class PolicyCommand extends Command {
  static override enableJsonFlag = true;

  override logJson(json: unknown): void {
    // Not this.log: it is silent in --json mode.
    ux.stdout(stringifyJson(json, 2));
  }
}
