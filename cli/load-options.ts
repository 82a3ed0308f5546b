import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Interfaces } from '@oclif/core';

/** What the start needs of oclif.manifest.json: each command's id, whether it takes arguments, whether it is strict. */
interface ManifestCommands {
  commands: Record<string, { args?: Record<string, unknown>; strict?: boolean }>;
}

/** Commands of ours that show the plugins (help lists their commands, `version --verbose` their versions). */
const NEEDS_PLUGINS = new Set(['help', 'version']);

/**
 * oclif's load options for the binary at `binUrl` (cli/bin/run.js) running
 * `args`: the package root and its package.json given, so oclif neither
 * looks for the root nor reads the file again, and, when the words typed
 * name one of our own commands, without the plugins of `oclif.plugins`
 * (plugin-help's `help` is ours already, plugin-autocomplete adds only the
 * `autocomplete` commands and install hooks), whose lookup and manifests
 * are a tenth of a command's start. `--help`, no command, `help`, `version`,
 * `autocomplete` and words that are no command of ours get every plugin.
 *
 * @example
 * await execute({ args, loadOptions: loadOptions({ binUrl: import.meta.url, args }) });
 */
export function loadOptions(options: { binUrl: string; args: readonly string[] }): Interfaces.LoadOptions {
  const root = packageRoot(options.binUrl);
  const pjson = JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as Interfaces.PJSON;
  const manifest = readManifest(root);
  const id = manifest && ownCommandId({ args: options.args, manifest });
  if (id === undefined || NEEDS_PLUGINS.has(id)) return { root, pjson };
  return { root, pjson: { ...pjson, oclif: { ...pjson.oclif, plugins: [] } } };
}

function packageRoot(binUrl: string): string {
  return fileURLToPath(new URL('../..', binUrl));
}

/** The manifest, or undefined in a tree built without it (oclif then finds the commands itself, with every plugin). */
function readManifest(root: string): ManifestCommands | undefined {
  try {
    return JSON.parse(readFileSync(`${root}/oclif.manifest.json`, 'utf8')) as ManifestCommands;
  } catch {
    return undefined;
  }
}

/**
 * When the words name a topic of ours and nothing more (`policy --json`), the
 * topic and its commands (oclif answers that with the topic's help text,
 * which a `--json` caller cannot read); undefined otherwise.
 *
 * @example
 * topicAlone({ binUrl, args: ['policy', '--json'] }); // { topic: 'policy', commands: ['policy bench', 'policy check', …] }
 */
export function topicAlone(options: { binUrl: string; args: readonly string[] }): { topic: string; commands: string[] } | undefined {
  const manifest = readManifest(packageRoot(options.binUrl));
  if (manifest === undefined) return undefined;
  const words = options.args.filter((arg) => !arg.startsWith('-'));
  const topic = words.join(':');
  if (topic === '' || manifest.commands[topic] !== undefined) return undefined;
  const commands = Object.keys(manifest.commands)
    .filter((id) => id.startsWith(`${topic}:`))
    .map((id) => id.replaceAll(':', ' '))
    .sort();
  return commands.length === 0 ? undefined : { topic: topic.replaceAll(':', ' '), commands };
}

/**
 * The id of our command that oclif will run for `args`, found as oclif's
 * `normalizeArgv` finds it with spaces between topics: the leading words
 * while they name a topic or command; a further word that is not a flag
 * becomes part of the id too (then no command) unless the command takes
 * arguments or is not strict. Undefined when the words name no command of
 * the manifest.
 */
export function ownCommandId(options: { args: readonly string[]; manifest: ManifestCommands }): string | undefined {
  const { commands } = options.manifest;
  const prefixes = new Set(Object.keys(commands).flatMap((id) => id.split(':').map((_, i, parts) => parts.slice(0, i + 1).join(':'))));
  const words: string[] = [];
  for (const arg of options.args) {
    if (arg.startsWith('-') || !prefixes.has([...words, arg].join(':'))) break;
    words.push(arg);
  }
  const id = words.join(':');
  const command = commands[id];
  if (command === undefined) return undefined;
  const next = options.args[words.length];
  const takesWords = command.strict === false || Object.keys(command.args ?? {}).length > 0;
  if (next !== undefined && !next.startsWith('-') && !takesWords) return undefined;
  return id;
}
