import { Args, Command, Flags, loadHelpClass } from '@oclif/core';

/**
 * `framework-cli help [command]`: oclif's help, as a command of ours rather
 * than `@oclif/plugin-help`'s (the root plugin's command wins over a
 * plugin's of the same id), so that its argument is never read from
 * standard input: with the plugin's, `echo foo | framework-cli help` showed
 * the help of a command named "foo" (see test/cli/arguments-not-from-stdin).
 */
export default class Help extends Command {
  static override description = 'Display help for <%= config.bin %>.';

  static override args = {
    command: Args.string({ description: 'Command to show help for.', required: false, ignoreStdin: true }),
  };

  static override flags = {
    'nested-commands': Flags.boolean({ char: 'n', description: 'Include all nested commands in the output.' }),
  };

  // `help policy eval` names a command in several words.
  static override strict = false;

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(Help);
    const HelpClass = await loadHelpClass(this.config);
    await new HelpClass(this.config, { all: flags['nested-commands'] }).showHelp(argv as string[]);
  }
}
