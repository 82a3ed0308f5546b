import { loadOclif } from './load-oclif.js';
import { loadOptions } from './load-options.js';
import { serveLean } from './serve-lean.js';
import { versionArgv } from './version-argv.js';

export { codeCacheUse, writeCodeCaches } from './cached-script.js';

/**
 * The binary: oclif with the arguments `versionArgv` gives. `cli/bin/run.js`
 * calls it with its own URL (the package root is two folders up), and
 * `loadOptions` gives oclif the root, its package.json and, for a command
 * of ours, no plugins to look up. A service command starts through
 * `serveLean` instead, which leaves the rest of oclif unloaded while the
 * service runs. Bundled with @oclif/core and the commands at build
 * (scripts/bundle-cli.mjs); oclif's index is loaded only when it runs.
 */
export async function main(argv: readonly string[], dir: string): Promise<void> {
  const args = versionArgv(argv);
  if (await serveLean({ args, binUrl: dir })) return;
  const { execute } = await loadOclif();
  await execute({ args, loadOptions: loadOptions({ binUrl: dir, args }) });
}
