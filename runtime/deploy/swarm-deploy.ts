import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { stringify } from 'yaml';
import { FrameworkError } from '../core/framework-error.js';
import { RUN_DIR } from '../supervisor/project-file.js';
import type { DeployProject } from './deploy-project.js';
import { SWARM_CONFIG_DIR, swarmStack, unsafeReplicas, type EndpointMode } from './swarm-stack.js';

/** Where the stack file goes, relative to the project root. */
export const STACK_FILE = `${RUN_DIR}/stack.yaml`;
/** The label Docker puts on everything of a stack. */
const STACK_LABEL = 'com.docker.stack.namespace';

/** One service of a deployed stack. */
export interface SwarmService {
  name: string;
  replicas: string;
  image: string;
}

/** What `deploy swarm` did; never a secret's value. */
export interface SwarmDeployResult {
  stack: string;
  file: string;
  services: SwarmService[];
  secrets: string[];
  configs: string[];
}

/** What `deploy swarm --down` removed. */
export interface SwarmDownResult {
  stack: string;
  removed: { services: string[]; networks: string[]; secrets: string[]; configs: string[]; volumes: string[] };
}

async function docker(args: string[], options: { timeoutMs?: number } = {}): Promise<string> {
  const result = await execa('docker', args, { reject: false, shell: false, stdin: 'ignore', timeout: options.timeoutMs ?? 120_000 });
  if (result.failed) {
    const detail = String(result.stderr).trim().split('\n').slice(-3).join(' ') || result.shortMessage;
    throw new FrameworkError({ code: 'deploy_failed', message: `docker ${args.join(' ')} failed: ${detail}` });
  }
  return String(result.stdout).trim();
}

/**
 * Throws `docker_unavailable` unless this engine is a swarm manager, with
 * the fix (`docker swarm init` on one machine).
 */
export async function checkSwarmManager(): Promise<void> {
  const state = await docker(['info', '--format', '{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}']).catch(() => 'unreachable false');
  if (state === 'active true') return;
  const [node] = state.split(' ');
  throw new FrameworkError({
    code: 'docker_unavailable',
    message:
      node === 'active'
        ? 'This Docker engine is a swarm worker; run deploy swarm on a manager (docker node ls lists them).'
        : `This Docker engine is not in a swarm (swarm: ${node}); on one machine run docker swarm init, or run deploy swarm on a manager of your swarm.`,
  });
}

/**
 * Refuses replicas of a service the project does not have, and more than
 * one replica of a service that keeps state in a volume or of an agent
 * whose sessions are not in Redis: they would not share what they hold.
 */
export function checkReplicas(options: { project: DeployProject; replicas: Record<string, number> }): void {
  const { project } = options;
  for (const name of Object.keys(options.replicas)) {
    if (!project.services.some((s) => s.name === name)) {
      throw new FrameworkError({
        code: 'invalid_request',
        message: `--replicas names "${name}", which is not a service of ${project.name} (${project.services.map((s) => s.name).join(', ')}).`,
      });
    }
  }
  const unsafe = unsafeReplicas({ project, replicas: options.replicas });
  if (unsafe.length > 0) {
    throw new FrameworkError({
      code: 'invalid_request',
      message: `More than one replica of ${unsafe.join(', ')} would not share state (a volume, or sessions in process memory); keep one, or create a swarm (sessions in Redis) to scale agents.`,
    });
  }
}

/**
 * Builds the project's images on this engine (no registry: a single-node
 * swarm runs them as they are; on more nodes, push them and name them in
 * compose.yaml), writes the stack file and the config files under
 * `.framework/run/`, runs `docker stack deploy`, and waits until every
 * service has all its replicas running and healthy (replicas checked by
 * {@link checkReplicas} first).
 *
 * @example
 * await deploySwarm({ project, replicas: { planner: 2 }, endpointMode: 'vip', output: 'stderr' });
 */
export async function deploySwarm(options: {
  project: DeployProject;
  replicas: Record<string, number>;
  endpointMode: EndpointMode;
  healthTimeoutMs?: number;
  output?: 'stderr';
}): Promise<SwarmDeployResult> {
  const { project } = options;
  checkReplicas({ project, replicas: options.replicas });
  await checkSwarmManager();
  for (const build of project.builds) {
    const args = ['build', '--file', join(project.root, build.dockerfile), '--tag', build.image];
    for (const [key, value] of Object.entries(build.args)) args.push('--build-arg', `${key}=${value}`);
    args.push(join(project.root, build.context));
    // The build's progress goes to the terminal (standard error under --json), as up --containers shows it.
    const stdio = options.output === 'stderr' ? (['ignore', 2, 2] as const) : (['ignore', 'inherit', 'inherit'] as const);
    const result = await execa('docker', args, { reject: false, shell: false, stdio: [...stdio], timeout: 1_800_000 });
    if (result.failed) throw new FrameworkError({ code: 'build_failed', message: `docker ${args.join(' ')} failed: ${result.shortMessage}` });
  }
  const { stack, configFiles } = swarmStack({ project, replicas: options.replicas, endpointMode: options.endpointMode });
  const configDir = join(project.root, SWARM_CONFIG_DIR);
  await rm(configDir, { recursive: true, force: true });
  await mkdir(configDir, { recursive: true });
  for (const file of configFiles) await writeFile(join(configDir, file.path), file.text);
  const file = join(project.root, STACK_FILE);
  await writeFile(
    file,
    `# The swarm stack of ${project.name}, written by framework-cli deploy swarm.\n${stringify(stack, { lineWidth: 0, aliasDuplicateObjects: false })}`,
  );
  await docker(['stack', 'deploy', '--compose-file', file, '--prune', project.name], { timeoutMs: 300_000 });
  const services = await waitConverged({ stack: project.name, timeoutMs: options.healthTimeoutMs ?? 600_000, endpointMode: options.endpointMode });
  return {
    stack: project.name,
    file,
    services,
    secrets: Object.values(stack.secrets ?? {}).map((s) => String(s.name)),
    configs: Object.values(stack.configs ?? {}).map((c) => String(c.name)),
  };
}

async function stackServices(stack: string): Promise<SwarmService[]> {
  const out = await docker(['service', 'ls', '--filter', `label=${STACK_LABEL}=${stack}`, '--format', '{{.Name}}\t{{.Replicas}}\t{{.Image}}']);
  return out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name, replicas, image] = line.split('\t');
      return { name: (name ?? '').slice(stack.length + 1), replicas: replicas ?? '', image: image ?? '' };
    });
}

/** Waits until every service of the stack runs all its replicas (a task with a health check counts once healthy); a service whose tasks keep failing fails at once with their error and last log lines. */
async function waitConverged(options: { stack: string; timeoutMs: number; endpointMode: EndpointMode }): Promise<SwarmService[]> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const services = await stackServices(options.stack);
    const done = services.length > 0 && services.every((s) => /^(\d+)\/\1\b/.test(s.replicas));
    if (done) return services;
    for (const service of services) {
      const full = `${options.stack}_${service.name}`;
      const failed = (await docker(['service', 'ps', full, '--filter', 'desired-state=shutdown', '--format', '{{.Error}}', '--no-trunc']))
        .split('\n')
        .filter(Boolean);
      if (failed.length >= 4) {
        const logs = await docker(['service', 'logs', '--tail', '15', '--raw', full]).catch(() => '');
        throw new FrameworkError({
          code: 'deploy_failed',
          message: `The tasks of ${service.name} keep failing (${failed[0]}); its last lines:\n${logs}\n(stop the stack with framework-cli deploy swarm --down)`,
        });
      }
    }
    if (Date.now() > deadline) {
      const waiting = services.filter((s) => !/^(\d+)\/\1\b/.test(s.replicas)).map((s) => `${s.name} ${s.replicas}`);
      throw new FrameworkError({
        code: 'deploy_failed',
        message: `Not every service of the stack was running and healthy within ${Math.round(options.timeoutMs / 1000)} s (${waiting.join(', ')}).${
          options.endpointMode === 'vip' ? ' On an engine whose kernel has no IPVS, service names do not route: try --endpoint-mode dnsrr.' : ''
        } See docker service ps ${options.stack}_<service>; stop it with framework-cli deploy swarm --down.`,
      });
    }
    await sleep(2000);
  }
}

/**
 * `docker stack rm`, then waits until the stack's services, networks,
 * secrets and configs are all gone (Docker removes them in the background);
 * with `volumes`, its named volumes too once no container holds them.
 */
export async function removeSwarm(options: { stack: string; volumes: boolean; timeoutMs?: number }): Promise<SwarmDownResult> {
  const { stack } = options;
  const removed = { services: [] as string[], networks: [] as string[], secrets: [] as string[], configs: [] as string[], volumes: [] as string[] };
  // An engine in no swarm runs no stack: nothing to remove (an engine that does not answer, or a worker, is still an error).
  if ((await docker(['info', '--format', '{{.Swarm.LocalNodeState}}']).catch(() => '')) === 'inactive') return { stack, removed };
  await checkSwarmManager();
  const list = async (kind: 'service' | 'network' | 'secret' | 'config' | 'volume') =>
    (await docker([kind, 'ls', '--filter', `label=${STACK_LABEL}=${stack}`, '--format', '{{.Name}}'])).split('\n').filter(Boolean);
  const before = { services: await list('service'), networks: await list('network'), secrets: await list('secret'), configs: await list('config') };
  if (Object.values(before).every((names) => names.length === 0) && (!options.volumes || (await list('volume')).length === 0)) return { stack, removed };
  await docker(['stack', 'rm', stack]);
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  const left = async () => [...(await list('service')), ...(await list('network')), ...(await list('secret')), ...(await list('config'))];
  // The containers go after the services; a volume can go only once no container holds it.
  const containers = async () => (await docker(['ps', '--all', '--quiet', '--filter', `label=${STACK_LABEL}=${stack}`])).split('\n').filter(Boolean);
  while ((await left()).length > 0 || (options.volumes && (await containers()).length > 0)) {
    if (Date.now() > deadline) {
      throw new FrameworkError({
        code: 'deploy_failed',
        message: `docker stack rm ${stack} left ${(await left()).join(', ') || 'containers'} after ${Math.round((options.timeoutMs ?? 120_000) / 1000)} s.`,
      });
    }
    await sleep(1000);
  }
  const volumes = options.volumes ? await list('volume') : [];
  if (volumes.length > 0) await docker(['volume', 'rm', ...volumes]);
  return { stack, removed: { ...before, volumes } };
}
