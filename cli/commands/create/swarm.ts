import { basename, resolve } from 'node:path';
import { Args, Flags } from '@oclif/core';
import type { CreateSwarmSummary } from '../../../runtime/scaffold/create-swarm.js';
import { ScaffoldCommand } from '../../scaffold-command.js';
import { PROJECT_CLI } from '../../../runtime/supervisor/project-cli-command.js';

export default class CreateSwarm extends ScaffoldCommand {
  static override description =
    'Create a multi-agent project: orchestrator, planner and executor wired over A2A (cards, one HMAC key each, an a2a_access policy allowing orchestrator → any agent and planner → executor), and the system memory: the `memory` service that `framework-cli up` starts (`serve memory` over the local Redis), and <name>-kv and <name>-memory in compose.yaml.';

  static override examples = ['<%= config.bin %> create swarm team', '<%= config.bin %> create swarm --dir team --json'];

  static override args = {
    name: Args.string({ description: 'project name (default: the name of --dir, else "swarm")', required: false, ignoreStdin: true }),
  };

  static override flags = {
    dir: Flags.string({ char: 'd', description: 'folder of the project (default: ./<name>)' }),
    force: Flags.boolean({ description: 'write into a folder that is not empty (files with the same names are replaced)', default: false }),
    toolkit: Flags.string({
      description:
        "for work on the toolkit itself: framework_core from this folder or npm pack tarball (a file: dependency) instead of the registry's ^<this version>",
    }),
  };

  async run(): Promise<CreateSwarmSummary> {
    const { args, flags } = await this.parse(CreateSwarm);
    const name = args.name ?? (flags.dir ? basename(resolve(flags.dir)) : 'swarm');
    const summary = await this.scaffold(async () =>
      (await import('../../../runtime/scaffold/create-swarm.js')).createSwarm({
        dir: flags.dir ?? name,
        name,
        force: flags.force,
        ...(flags.toolkit === undefined ? {} : { toolkit: flags.toolkit }),
      }),
    );
    this.report([
      `Created swarm "${summary.name}" in ${summary.root}:`,
      ...summary.agents.map((agent) => `  ${agent.name.padEnd(13)} http://127.0.0.1:${agent.port}/`),
      `System memory: the memory service (framework-cli up starts it; it needs Redis on 127.0.0.1:6379 and the all-minilm model), or ${summary.memoryServices.join(', ')} in compose.yaml; see README.md.`,
      'Next:',
      `  cd ${summary.root}`,
      '  npm install',
      `  ${PROJECT_CLI} up`,
      `  ${PROJECT_CLI} chat planner`,
      `(${PROJECT_CLI} runs the project's own framework-cli, which is not on your PATH; npm start is up.)`,
    ]);
    return summary;
  }
}
