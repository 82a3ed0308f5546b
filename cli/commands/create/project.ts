import { Args, Flags } from '@oclif/core';
import type { CreateProjectSummary } from '../../../runtime/scaffold/create-project.js';
import { ScaffoldCommand } from '../../scaffold-command.js';
import { PROJECT_CLI } from '../../../runtime/supervisor/project-cli-command.js';

export default class CreateProject extends ScaffoldCommand {
  static override description =
    'Create an agent project: agents/, services/ (Rego policies, agent cards), compose.yaml, .framework/project.json (what `framework-cli up` starts), package.json (framework_core ^<this version> from the registry, or --toolkit <folder|tgz>), tsconfig.json, .env.example, README.md. Refuses a folder that is not empty unless --force.';

  static override examples = ['<%= config.bin %> create project demo', '<%= config.bin %> create project demo --dir projects/demo --json'];

  static override args = {
    name: Args.string({ description: 'project name: lower-case letters, digits, ".", "_", "-"', required: true, ignoreStdin: true }),
  };

  static override flags = {
    dir: Flags.string({ char: 'd', description: 'folder of the project (default: ./<name>)' }),
    force: Flags.boolean({ description: 'write into a folder that is not empty (files with the same names are replaced)', default: false }),
    toolkit: Flags.string({
      description:
        "for work on the toolkit itself: framework_core from this folder or npm pack tarball (a file: dependency) instead of the registry's ^<this version>",
    }),
  };

  async run(): Promise<CreateProjectSummary> {
    const { args, flags } = await this.parse(CreateProject);
    const summary = await this.scaffold(async () =>
      (await import('../../../runtime/scaffold/create-project.js')).createProject({
        dir: flags.dir ?? args.name,
        name: args.name,
        force: flags.force,
        ...(flags.toolkit === undefined ? {} : { toolkit: flags.toolkit }),
      }),
    );
    this.report([
      `Created project "${summary.name}" in ${summary.root} (${summary.created.length} files).`,
      'Next:',
      `  cd ${summary.root}`,
      '  npm install',
      `  ${PROJECT_CLI} add agent <name> --description "<what it does>"`,
      `  ${PROJECT_CLI} up`,
      `(${PROJECT_CLI} runs the project's own framework-cli, which is not on your PATH; npm start is up.)`,
    ]);
    return summary;
  }
}
