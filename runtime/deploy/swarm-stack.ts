import { createHash } from 'node:crypto';
import { PROJECT_PATHS } from '../scaffold/project-services.js';
import { APP_DIR, type ConfigFile, type DeployProject, type DeployService } from './deploy-project.js';
import { scales } from './kubernetes-objects.js';

/**
 * How a swarm routes a service name: `vip` (a virtual IP balanced by the
 * kernel's IPVS, the default, and what the routing mesh that publishes
 * ports needs) or `dnsrr` (the name resolves to the tasks themselves; for
 * engines whose kernel has no IPVS; ports are then published on the host,
 * and only for single-replica services).
 */
export type EndpointMode = 'vip' | 'dnsrr';

/** A stack file (Compose file format 3.8) as plain data. */
export interface StackFile {
  version: string;
  services: Record<string, Record<string, unknown>>;
  volumes?: Record<string, Record<string, unknown>>;
  secrets?: Record<string, Record<string, unknown>>;
  configs?: Record<string, Record<string, unknown>>;
}

/** The toolkit image's `node` user: every service runs as it, secrets and configs are its own. */
const RUN_AS = '1000';

/**
 * The swarm stack of a project: each service from its image (built locally,
 * no registry) with its replicas, its Compose health check, a read-only
 * root file system (tmpfs for /tmp and the toolkit's work folder), rolling
 * updates (start-first for stateless services, so a replica is always up;
 * stop-first where a volume holds state, so two never share it; rollback on
 * failure); the A2A keys and memory token as swarm secrets and the policies
 * and agent cards as swarm configs, each named by its content's hash (swarm
 * secrets and configs cannot change: new content is a new one).
 *
 * @example
 * const stack = swarmStack({ project, replicas: { planner: 2 }, endpointMode: 'vip' });
 */
export function swarmStack(options: { project: DeployProject; replicas: Record<string, number>; endpointMode: EndpointMode; env?: NodeJS.ProcessEnv }): {
  stack: StackFile;
  configFiles: ConfigFile[];
} {
  const { project, endpointMode } = options;
  const env = options.env ?? process.env;
  const stack: StackFile = { version: '3.8', services: {}, volumes: {}, secrets: {}, configs: {} };
  for (const [name, text] of Object.entries(project.secrets)) {
    stack.secrets![name] = { name: objectName(project.name, name, text), file: project.secretFiles[name] };
  }
  const configFiles: ConfigFile[] = [];
  const policies = configs({ stack, configFiles, project, prefix: 'policy', files: project.policies, dir: PROJECT_PATHS.policies });
  const cards = configs({ stack, configFiles, project, prefix: 'card', files: project.cards, dir: PROJECT_PATHS.cards });
  for (const service of project.services) {
    const replicas = options.replicas[service.name] ?? 1;
    const stateful = service.volumes.length > 0;
    const volumes: Record<string, unknown>[] = [];
    if (service.image === 'toolkit') {
      volumes.push({ type: 'tmpfs', target: '/tmp' }, { type: 'tmpfs', target: `${APP_DIR}/.framework` });
    }
    for (const volume of service.volumes) {
      const host = volume.hostFolderVariable ? env[volume.hostFolderVariable] : undefined;
      if (host) volumes.push({ type: 'bind', source: host, target: volume.mountPath });
      else {
        volumes.push({ type: 'volume', source: volume.name, target: volume.mountPath });
        stack.volumes![volume.name] = {};
      }
    }
    const published = service.publishedPort !== null && (endpointMode === 'vip' || replicas === 1);
    stack.services[service.name] = {
      image: service.image === 'toolkit' ? project.images.toolkit : project.images.redis,
      ...(service.command ? { command: service.command } : {}),
      user: `${RUN_AS}:${RUN_AS}`,
      read_only: true,
      ...(Object.keys(service.env).length > 0 ? { environment: service.env } : {}),
      ...(service.secrets.length > 0 ? { secrets: service.secrets.map((s) => ({ source: s, target: s, uid: RUN_AS, gid: RUN_AS, mode: 0o400 })) } : {}),
      ...(configMounts(service, policies, cards).length > 0 ? { configs: configMounts(service, policies, cards) } : {}),
      volumes,
      ...(published
        ? { ports: [{ target: service.port, published: service.publishedPort, protocol: 'tcp', mode: endpointMode === 'vip' ? 'ingress' : 'host' }] }
        : {}),
      ...(service.healthcheck ? { healthcheck: service.healthcheck } : {}),
      deploy: {
        replicas,
        endpoint_mode: endpointMode,
        update_config: {
          parallelism: 1,
          order: stateful ? 'stop-first' : 'start-first',
          failure_action: 'rollback',
          monitor: '10s',
          delay: '2s',
        },
        rollback_config: { parallelism: 1, order: stateful ? 'stop-first' : 'start-first' },
        restart_policy: { condition: 'any', delay: '2s', window: '30s' },
        labels: { 'framework-cli.kind': service.kind, ...(scales(service) ? { 'framework-cli.shared-sessions': 'true' } : {}) },
      },
    };
  }
  return { stack, configFiles };
}

/** The services a stack would run with more than one replica whose sessions are not shared (a plan approved on another replica would be lost). */
export function unsafeReplicas(options: { project: DeployProject; replicas: Record<string, number> }): string[] {
  return options.project.services
    .filter((s) => (options.replicas[s.name] ?? 1) > 1 && (s.volumes.length > 0 || (s.kind === 'agent' && !scales(s))))
    .map((s) => s.name);
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** A swarm secret's or config's name: `<project>_<key>_<hash of its content>`, shortened to Docker's 64 characters by hashing the key too. */
function objectName(project: string, key: string, text: string): string {
  const name = `${project}_${key}_${hash(text)}`;
  return name.length <= 64 ? name : `${project.slice(0, 24)}_${hash(key)}_${hash(text)}`;
}

interface ConfigMount {
  source: string;
  target: string;
  uid: string;
  gid: string;
  mode: number;
}

/** Where the stack's config files are written, relative to the project root. */
export const SWARM_CONFIG_DIR = '.framework/run/swarm-configs';

/** One swarm config per file (its text in `configFiles`, to write under SWARM_CONFIG_DIR), mounted at its path in the toolkit image's project folder. */
function configs(options: {
  stack: StackFile;
  configFiles: ConfigFile[];
  project: DeployProject;
  prefix: string;
  files: ConfigFile[];
  dir: string;
}): ConfigMount[] {
  return options.files.map((file) => {
    const key = `${options.prefix}_${file.path.replace(/[^A-Za-z0-9_.-]/g, '_')}`;
    options.configFiles.push({ path: key, text: file.text });
    options.stack.configs![key] = { name: objectName(options.project.name, key, file.text), file: `${options.project.root}/${SWARM_CONFIG_DIR}/${key}` };
    return { source: key, target: `${APP_DIR}/${options.dir}/${file.path}`, uid: RUN_AS, gid: RUN_AS, mode: 0o444 };
  });
}

function configMounts(service: DeployService, policies: ConfigMount[], cards: ConfigMount[]): ConfigMount[] {
  if (service.kind === 'policy') return policies;
  if (service.kind === 'agent' || service.kind === 'semantic-layer') return cards;
  return [];
}
