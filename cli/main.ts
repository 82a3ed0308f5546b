import { loadOclif } from './load-oclif.js';
import { loadOptions } from './load-options.js';
import { versionArgv } from './version-argv.js';

export { codeCacheUse, writeCodeCaches } from './cached-script.js';

type Oclif = Awaited<ReturnType<typeof loadOclif>>;

/**
 * The binary: oclif with the arguments `versionArgv` gives. `cli/bin/run.js`
 * calls it with its own URL (the package root is two folders up), and
 * `loadOptions` gives oclif the root, its package.json and, for a command
 * of ours, no plugins to look up. A service command starts through
 * `serveLean` instead, which leaves the rest of oclif unloaded while the
 * service runs (and is itself loaded only for words that may name one).
 * Bundled with @oclif/core and the commands at build
 * (scripts/bundle-cli.mjs); oclif's index is loaded only when it runs.
 */
export async function main(argv: readonly string[], dir: string): Promise<void> {
  const args = versionArgv(argv);
  if (mayStartLean(args)) {
    const { serveLean } = await import('./serve-lean.js');
    if (await serveLean({ args, binUrl: dir })) return;
  }
  if (args.includes('--json') || process.env.FRAMEWORK_CLI_CONTENT_TYPE !== undefined) {
    if (await refuseTopicAlone(args, dir)) return;
  }
  const oclif = await loadOclif();
  // oclif's `execute`: run, then flush, or its error handler (behind ours).
  try {
    await oclif.run(args, loadOptions({ binUrl: dir, args }));
  } catch (error) {
    await handleError({ oclif, args, error });
    return;
  }
  void oclif.flush(); // as execute: not awaited
}

/**
 * A topic typed alone with --json (`policy --json`): oclif would print the
 * topic's help as text; a JSON caller gets the error document every command
 * prints, naming the topic's commands, and exit 2.
 */
async function refuseTopicAlone(args: readonly string[], dir: string): Promise<boolean> {
  const { jsonRequested } = await import('./json-error.js');
  if (!jsonRequested({ argv: args, env: process.env })) return false;
  const { topicAlone } = await import('./load-options.js');
  const found = topicAlone({ binUrl: dir, args });
  if (found === undefined) return false;
  const { terminalJson } = await import('../runtime/core/terminal-text.js');
  const message = `"${found.topic}" is a topic, not a command: name one of ${found.commands.join(', ')}`;
  process.stdout.write(`${terminalJson({ error: { code: 'invalid_arguments', message, exit: 2 } }, 2)}\n`);
  process.exitCode = 2;
  return true;
}

/**
 * Whether the words may start a service lean: every service command with a
 * lean start is `serve <service>` or `<topic> serve`; serveLean tells them
 * apart. Any other command starts without serveLean's module, which brings
 * oclif's parser, flags and errors as ES modules beside the copies in
 * oclif's code-cached bundle (about a tenth of `version`'s CPU time).
 */
function mayStartLean(args: readonly string[]): boolean {
  return args[0] === 'serve' || args[1] === 'serve';
}

/**
 * What no command's `catch` answered: an error of a hook (the prerun hook's
 * refusal of an OTEL_* variable), of a command that is not a JsonCommand
 * (`help`, `autocomplete`). Under --json it is the JSON error document every
 * command prints, on standard output, with the exit code it asks for;
 * otherwise, and for an exit that was already answered (the command_not_found
 * hook's), oclif's own handler prints and exits as it always did.
 */
async function handleError(options: { oclif: Oclif; args: readonly string[]; error: unknown }): Promise<void> {
  const { oclif, error } = options;
  const { jsonErrorDocument, jsonRequested } = await import('./json-error.js');
  if (error instanceof oclif.Errors.ExitError || !jsonRequested({ argv: options.args, env: process.env })) {
    await oclif.handle(error as Error);
    return;
  }
  const { terminalJson } = await import('../runtime/core/terminal-text.js');
  const document = jsonErrorDocument(error);
  oclif.ux.stdout(terminalJson(document, 2));
  await oclif.handle(new oclif.Errors.ExitError(document.error.exit));
}
