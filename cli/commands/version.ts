import { Flags } from '@oclif/core';
import { JsonCommand } from '../json-command.js';

/** What `version --json` prints (the fields oclif's version plugin prints, which this command replaces). */
export interface VersionDetails {
  cliVersion: string;
  architecture: string;
  nodeVersion: string;
  osVersion?: string;
  shell?: string;
  rootPath?: string;
  pluginVersions?: string[];
}

/**
 * `framework-cli version`: oclif's version command, as a command of ours so
 * that a bad flag under `--json` is our small `{"error": …}` document (the
 * plugin's printed oclif's whole configuration, local paths included) and
 * the CLI's start loads no second copy of oclif.
 */
export default class Version extends JsonCommand {
  static override description = 'Show the version of the CLI, the platform and Node.js.';

  static override examples = ['<%= config.bin %> version', '<%= config.bin %> version --verbose --json'];

  static override flags = {
    verbose: Flags.boolean({ description: 'also the OS, the shell, the install path and the plugins' }),
  };

  async run(): Promise<VersionDetails> {
    const { flags } = await this.parse(Version);
    const details = this.config.versionDetails;
    const basic: VersionDetails = { cliVersion: details.cliVersion, architecture: details.architecture, nodeVersion: details.nodeVersion };
    if (!flags.verbose) {
      this.log(this.config.userAgent);
      return basic;
    }
    const pluginVersions = [...this.config.plugins.values()]
      .filter((plugin) => !plugin.isRoot)
      .map((plugin) => `${plugin.name} ${plugin.version} (${plugin.type})`)
      .sort();
    const verbose: VersionDetails = {
      ...basic,
      ...(details.osVersion === undefined ? {} : { osVersion: details.osVersion }),
      ...(details.shell === undefined ? {} : { shell: details.shell }),
      ...(details.rootPath === undefined ? {} : { rootPath: details.rootPath }),
      pluginVersions,
    };
    const rows: [string, string | undefined][] = [
      ['CLI Version', verbose.cliVersion],
      ['Architecture', verbose.architecture],
      ['Node Version', verbose.nodeVersion],
      ['Plugin Version', pluginVersions.join(', ') || '(none)'],
      ['OS and Version', verbose.osVersion],
      ['Shell', verbose.shell],
      ['Root Path', verbose.rootPath],
    ];
    for (const [label, value] of rows) if (value !== undefined) this.log(`${label}:\n\t${value}`);
    return verbose;
  }
}
