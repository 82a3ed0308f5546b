/** The flags that print the version instead of running a command (oclif's `--version` and our `additionalVersionFlags`). */
export const VERSION_FLAGS: readonly string[] = ['--version', '-v'];

/**
 * The arguments the binary runs. oclif answers `--version` with one plain
 * line before any command runs, so `--version --json` (in either order) would
 * print text; with `--json` among nothing but flags, it becomes the `version`
 * command's own `--json`, one JSON document like every other command's.
 *
 * @example
 * versionArgv(['--version', '--json']); // ['version', '--json']
 * versionArgv(['status', '--json']);    // unchanged
 */
export function versionArgv(argv: readonly string[]): string[] {
  const onlyFlags = argv.every((arg) => arg.startsWith('-'));
  if (onlyFlags && argv.includes('--json') && argv.some((arg) => VERSION_FLAGS.includes(arg))) return ['version', '--json'];
  return [...argv];
}
