import { execute } from '@oclif/core';
import { versionArgv } from './version-argv.js';

/**
 * The binary: oclif with the arguments `versionArgv` gives. `cli/bin/run.js`
 * calls it with its own URL (oclif finds the package root from it). Bundled
 * with @oclif/core and the commands at build (scripts/bundle-cli.mjs).
 */
export async function main(argv: readonly string[], dir: string): Promise<void> {
  await execute({ args: versionArgv(argv), dir });
}
