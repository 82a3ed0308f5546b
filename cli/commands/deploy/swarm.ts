import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../../json-command.js';
import { ConfigError } from '../../../runtime/core/errors/config-error.js';
import type { SwarmDeployResult, SwarmDownResult } from '../../../runtime/deploy/swarm-deploy.js';
import { formatTable } from '../../format-table.js';
import { failWith } from '../../fail-with.js';

export default class DeploySwarm extends JsonCommand {
  static override description =
    'Deploy the project to the Docker swarm this engine manages, with docker stack deploy: the images built here (no registry), replicas, ' +
    'rolling updates (start-first where no state is kept, rollback on failure), the Compose health checks, read-only containers as a non-root user, ' +
    'the A2A keys and memory token as swarm secrets, the policies and agent cards as swarm configs; waits until every replica is healthy. ' +
    'With --down, removes the stack: services, networks, secrets and configs (and volumes with --volumes).';

  static override examples = [
    '<%= config.bin %> deploy swarm --replicas planner=2',
    '<%= config.bin %> deploy swarm --dir projects/team --endpoint-mode dnsrr --json',
    '<%= config.bin %> deploy swarm --down --volumes',
  ];

  static override enableJsonFlag = true;

  static override flags = {
    dir: Flags.directory({ description: 'project root (default: the current directory)', exists: true }),
    down: Flags.boolean({ description: 'remove the stack instead (services, networks, secrets, configs)', default: false }),
    volumes: Flags.boolean({
      description: 'with --down: also remove the named volumes (model cache, vector store, Redis data)',
      default: false,
      dependsOn: ['down'],
    }),
    replicas: Flags.string({
      description: 'replicas of a service (service=n; repeatable); agents of a swarm share sessions through Redis',
      multiple: true,
      exclusive: ['down'],
    }),
    'endpoint-mode': Flags.string({
      description: 'how service names route: vip (the default; needs IPVS in the kernel) or dnsrr (to the tasks themselves; ports published on the host)',
      options: ['vip', 'dnsrr'],
      default: 'vip',
    }),
    'health-timeout': Flags.integer({ description: 'seconds every replica may take to be healthy', default: 600, min: 1 }),
  };

  async run(): Promise<SwarmDeployResult | SwarmDownResult> {
    const { flags } = await this.parse(DeploySwarm);
    const root = resolve(flags.dir ?? process.cwd());
    try {
      const { checkReplicas, checkSwarmManager, deploySwarm, removeSwarm } = await import('../../../runtime/deploy/swarm-deploy.js');
      if (flags.down) {
        const { loadProject } = await import('../../../runtime/supervisor/load-project.js');
        const result = await removeSwarm({ stack: loadProject({ root }).name, volumes: flags.volumes });
        if (!this.jsonEnabled()) {
          const { services, networks, secrets, configs, volumes } = result.removed;
          this.log(
            services.length === 0
              ? `No stack ${result.stack} was deployed.`
              : `Removed the stack ${result.stack}: ${services.length} services, ${networks.length} networks, ${secrets.length} secrets, ${configs.length} configs${flags.volumes ? `, ${volumes.length} volumes` : ''}.`,
          );
        }
        return result;
      }
      const [{ readDeployProject }, { packToolkit }] = await Promise.all([
        import('../../../runtime/deploy/deploy-project.js'),
        import('../../../runtime/supervisor/pack-toolkit.js'),
      ]);
      const project = await readDeployProject({ root });
      const replicas = parseReplicas(flags.replicas ?? []);
      checkReplicas({ project, replicas });
      await checkSwarmManager();
      await packToolkit({ toolkitRoot: this.config.root, projectRoot: root });
      const result = await deploySwarm({
        project,
        replicas,
        endpointMode: flags['endpoint-mode'] as 'vip' | 'dnsrr',
        healthTimeoutMs: flags['health-timeout'] * 1000,
        ...(this.jsonEnabled() ? { output: 'stderr' as const } : {}),
      });
      if (!this.jsonEnabled()) {
        this.log(formatTable({ head: ['SERVICE', 'REPLICAS', 'IMAGE'], rows: result.services.map((s) => [s.name, s.replicas, s.image]) }));
        this.log(
          `\nThe stack ${result.stack} runs (${result.secrets.length} secrets, ${result.configs.length} configs). See it with: docker stack ps ${result.stack}; remove it with: framework-cli deploy swarm --down`,
        );
      }
      return result;
    } catch (error) {
      failWith(this, error);
    }
  }
}

/** `--replicas planner=2` flags as a map; a bad one is a ConfigError naming it. */
function parseReplicas(values: readonly string[]): Record<string, number> {
  const replicas: Record<string, number> = {};
  for (const value of values) {
    const match = /^([a-z][a-z0-9-]*)=(\d{1,2})$/.exec(value);
    if (!match || Number(match[2]) < 1) {
      throw new ConfigError({
        issues: [{ variable: '--replicas', message: `${JSON.stringify(value)} is not service=n (n from 1 to 99), for example planner=2` }],
      });
    }
    replicas[match[1]!] = Number(match[2]);
  }
  return replicas;
}
