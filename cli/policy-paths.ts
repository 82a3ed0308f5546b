import { statSync } from 'node:fs';
import { Args, Flags } from '@oclif/core';

/** A path that exists, file or directory: as oclif's own `exists` check, a missing one is a parse error naming it. */
async function existingPath(input: string): Promise<string> {
  try {
    statSync(input);
  } catch {
    throw new Error(`No file or directory found at ${input}`);
  }
  return input;
}

const PATH_HELP = 'policy directory, or a .rego or JSON/YAML data file (as `opa eval -d`)';

/** `-d` of `policy eval`, `bench` and `compile`: repeatable, directories and files alike; optional, as `opa eval -d` is (no path: no modules, no data). */
export const policyPathsFlag = Flags.custom<string>({
  char: 'd',
  description: `${PATH_HELP}; repeatable`,
  multiple: true,
  multipleNonGreedy: true,
  parse: existingPath,
});

/** The one policy path of `policy check`, the first of `policy test`'s (never taken from piped standard input: see `ignoreStdin` in docs/cli.md). */
export const policyPathArg = Args.custom<string>({ parse: existingPath, ignoreStdin: true });

/**
 * The paths of a command that takes as many as given (oclif's argv, whose
 * first only went through the argument's parse), each checked as it was.
 */
export async function existingPaths(argv: readonly string[]): Promise<string[]> {
  return Promise.all(argv.map(existingPath));
}
