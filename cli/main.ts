import { execute } from '@oclif/core';
import { loadOptions } from './load-options.js';
import { versionArgv } from './version-argv.js';

export { codeCacheUse, writeCodeCaches } from './cached-script.js';

/**
 * The binary: oclif with the arguments `versionArgv` gives. `cli/bin/run.js`
 * calls it with its own URL (the package root is two folders up), and
 * `loadOptions` gives oclif the root, its package.json and, for a command
 * of ours, no plugins to look up. Bundled with @oclif/core and the commands
 * at build (scripts/bundle-cli.mjs).
 */
export async function main(argv: readonly string[], dir: string): Promise<void> {
  const args = versionArgv(argv);
  await execute({ args, loadOptions: loadOptions({ binUrl: dir, args }) });
}
