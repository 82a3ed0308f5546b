import type { Hook } from '@oclif/core';

/**
 * An unknown command. At a terminal, @oclif/plugin-not-found asks "Did you
 * mean …?"; this hook covers scripts: with --json the answer is the one JSON
 * error document every command gives (`command_not_found`, the closest command
 * as `suggestion`), and without a terminal the suggestion is printed, since
 * the plugin only offers it by prompting. Exit 127, as oclif does.
 */
const hook: Hook.CommandNotFound = async function (options) {
  const visible = options.config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases]);
  const typed = options.id.replaceAll(':', ' ');
  const closest = suggest(options.id, visible)?.replaceAll(':', ' ');
  const message = `${typed} is not a ${options.config.bin} command.${closest ? ` Did you mean ${closest}?` : ''} Run ${options.config.bin} help for the list.`;
  if ((options.argv ?? []).includes('--json')) {
    process.stdout.write(
      `${JSON.stringify({ error: { code: 'command_not_found', message, ...(closest ? { suggestion: closest } : {}), exit: 127 } }, null, 2)}\n`,
    );
    process.exit(127);
  }
  if (!process.stdin.isTTY && closest) process.stderr.write(` ›   Did you mean ${closest}?\n`);
};

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
