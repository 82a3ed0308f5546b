import type { Hook, Interfaces } from '@oclif/core';
import { terminalJson } from '../../runtime/core/terminal-text.js';
import { jsonRequested } from '../json-error.js';
import { VERSION_FLAGS } from '../version-argv.js';

/**
 * What the binary answers when the words typed are no command. Two cases,
 * both usage errors (exit 2, as every bad argument): words after a command
 * that takes no arguments (`status extra`: oclif reads them as part of the
 * command's name) are a stray argument of that command; anything else is an
 * unknown command, with the closest one as a suggestion. Under --json the
 * answer is the one JSON error document every command gives.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const { config } = options;
  const argv = options.argv ?? [];
  const problem = describe({ config, id: options.id, argv });
  // The id is the first word typed (`--json` itself when it comes first).
  if (jsonRequested({ argv: [options.id, ...argv], env: process.env })) {
    process.stdout.write(`${terminalJson({ error: { ...problem, exit: 2 } }, 2)}\n`);
    this.exit(2);
    return;
  }
  this.error(problem.message, { exit: 2, code: problem.code });
};

interface Problem {
  code: 'invalid_arguments' | 'command_not_found';
  message: string;
  suggestion?: string;
}

function describe(options: { config: Interfaces.Config; id: string; argv: readonly string[] }): Problem {
  const { config, id } = options;
  const bin = config.bin;
  const parts = id.split(':');
  for (let length = parts.length - 1; length > 0; length--) {
    const command = parts.slice(0, length).join(':');
    if (!config.findCommand(command)) continue;
    const typed = command.replaceAll(':', ' ');
    const stray = parts.slice(length);
    return {
      code: 'invalid_arguments',
      message: `${bin} ${typed} takes no argument ${stray.map((word) => JSON.stringify(word)).join(' ')}. See ${bin} ${typed} --help.`,
    };
  }
  if (id.startsWith('-')) {
    const flags = [id, ...options.argv].filter((arg) => !VERSION_FLAGS.includes(arg)).join(' ');
    return {
      code: 'invalid_arguments',
      message: `${flags} needs a command before it (${bin} <command> ${flags}). Run ${bin} help for the list.`,
    };
  }
  const visible = config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]);
  const typed = id.replaceAll(':', ' ');
  const closest = suggest(id, visible)?.replaceAll(':', ' ');
  return {
    code: 'command_not_found',
    message: `${typed} is not a ${bin} command.${closest ? ` Did you mean ${closest}?` : ''} Run ${bin} help for the list.`,
    ...(closest ? { suggestion: closest } : {}),
  };
}

/** The command id nearest to `id` by edit distance, when it is near enough to be a typo. */
function suggest(id: string, ids: readonly string[]): string | undefined {
  let best: { id: string; distance: number } | undefined;
  for (const candidate of ids) {
    const distance = editDistance(id, candidate);
    if (!best || distance < best.distance) best = { id: candidate, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(id.length / 3)) ? best.id : undefined;
}

/** Optimal string alignment distance (a swap of two neighbours counts as one edit: `stauts` → `status`). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, d[i - 2]![j - 2]! + 1);
      d[i]![j] = value;
    }
  }
  return d[a.length]![b.length]!;
}

export default hook;
