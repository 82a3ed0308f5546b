/**
 * Issue 39: `deploy swarm` runs a project made by `create swarm` on a
 * single-node Docker swarm (`docker swarm init` on the local engine when it
 * is not a manager yet; left again afterwards), with `docker stack deploy`:
 * images built here (no registry), the keys and token as swarm secrets,
 * the policies and cards as swarm configs, two planner replicas. A plan
 * proposed on one planner replica is approved on the other (sessions in the
 * stack's Redis); a rolling update of the planner (`docker service update
 * --force`, start-first) replaces both replicas and the pending plan is
 * still approved; `deploy swarm --down --volumes` leaves no service,
 * network, secret, config, volume or container. Each replica is reached
 * inside its own container (`docker exec`), so the test knows which one
 * answered. Skipped only without a Docker engine outside CI (CI=true:
 * fails). Run `npm run build` first.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { resolveModelsDir } from '../../runtime/model/model-store.js';
import { runCli } from '../support/cli.js';
import { baseImage, docker, dockerEngineAnswers, holdDockerEngineForFile } from '../support/docker.js';
import { freePort } from '../support/net.js';

const ENGINE = dockerEngineAnswers();
/** A fixed name: its images (fwswarm-toolkit, fwswarm-redis) stay after the run, so the next run's build is warm. */
const PROJECT = 'fwswarm';
const LABEL = `label=com.docker.stack.namespace=${PROJECT}`;
let base: string | undefined;
let env: Record<string, string> = {};
let joined = false;

const root = () => join(base!, PROJECT);

/** Asks one planner replica, inside its container: propose a plan in a new session, or approve the pending one. */
const ASK = `
const [op, token] = process.argv.slice(2);
const post = async (path, body, t) => {
  const r = await fetch('http://127.0.0.1:8003' + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(t ? { authorization: 'Bearer ' + t } : {}) }, body: JSON.stringify(body) });
  return { status: r.status, ...(await r.json()) };
};
(async () => {
  if (op === 'propose') {
    const session = await post('/session/start', {});
    const answer = await post('/query', { query: process.argv[4], event_format: 'json' }, session.session_token);
    console.log(JSON.stringify({ token: session.session_token, hostname: require('os').hostname(), ...answer }));
  } else {
    console.log(JSON.stringify({ hostname: require('os').hostname(), ...(await post('/query', { query: 'PLAN_CONFIRM_APPROVE', event_format: 'json' }, token)) }));
  }
})();
`;

interface Answer {
  token?: string;
  hostname: string;
  status: number;
  events: { event: string; data: Record<string, unknown> }[];
}

function ask(container: string, args: string[]): Answer {
  const out = execFileSync('docker', ['exec', '-i', container, 'node', '-', ...args], { input: ASK, encoding: 'utf8', timeout: 120_000 });
  return JSON.parse(out) as Answer;
}

function planners(): string[] {
  return docker(['ps', '--quiet', '--filter', `label=com.docker.swarm.service.name=${PROJECT}_planner`, '--filter', 'status=running'])
    .split('\n')
    .filter(Boolean);
}

function leftovers(): { services: string[]; networks: string[]; secrets: string[]; configs: string[]; volumes: string[]; containers: string[] } {
  const lines = (text: string) => text.split('\n').filter(Boolean);
  return {
    services: lines(docker(['service', 'ls', '--quiet', '--filter', LABEL])),
    networks: lines(docker(['network', 'ls', '--quiet', '--filter', LABEL])),
    secrets: lines(docker(['secret', 'ls', '--quiet', '--filter', LABEL])),
    configs: lines(docker(['config', 'ls', '--quiet', '--filter', LABEL])),
    volumes: lines(docker(['volume', 'ls', '--quiet', '--filter', LABEL])),
    containers: lines(docker(['ps', '--all', '--quiet', '--filter', LABEL])),
  };
}

holdDockerEngineForFile(ENGINE, cleanUp);

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'fw-swarm-'));
  env = { FRAMEWORK_CLI_CONFIG_DIR: join(base, 'config') };
  const created = await runCli(['create', 'swarm', PROJECT, '--dir', root(), '--json'], { env });
  expect(created.code, created.stderr).toBe(0);
}, 60_000);

async function cleanUp(): Promise<void> {
  if (ENGINE && base) {
    if (leftovers().services.length > 0) await runCli(['deploy', 'swarm', '--down', '--volumes', '--dir', root(), '--json'], { env, timeoutMs: 180_000 });
    const left = leftovers();
    if (left.services.length > 0) docker(['service', 'rm', ...left.services]);
    if (joined) spawnSync('docker', ['swarm', 'leave', '--force'], { stdio: 'ignore', timeout: 60_000 });
  }
  if (base) await rm(base, { recursive: true, force: true });
}

describe('deploy swarm: bad input', () => {
  it('refuses replicas that would not share state, and services the project does not have, before touching Docker', async () => {
    const kv = await runCli(['deploy', 'swarm', '--dir', root(), '--replicas', 'kv=2', '--json'], { env, timeoutMs: 60_000 });
    expect(kv.code).toBe(1);
    expect(JSON.parse(kv.stdout).error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/More than one replica of kv would not share state/),
    });
    const none = await runCli(['deploy', 'swarm', '--dir', root(), '--replicas', 'nosuch=2', '--json'], { env, timeoutMs: 60_000 });
    expect(JSON.parse(none.stdout).error.message).toMatch(/"nosuch", which is not a service of fwswarm/);
    const bad = await runCli(['deploy', 'swarm', '--dir', root(), '--replicas', 'planner=many', '--json'], { env, timeoutMs: 60_000 });
    expect(bad.code).not.toBe(0);
    expect(JSON.parse(bad.stdout).error.message).toMatch(/is not service=n/);
    const mode = await runCli(['deploy', 'swarm', '--dir', root(), '--endpoint-mode', 'mesh', '--json'], { env, timeoutMs: 60_000 });
    expect(mode.code).toBe(2);
  });
});

describe.skipIf(!ENGINE && process.env.CI !== 'true')('deploy swarm on a single-node swarm', () => {
  it('has a Docker engine (CI=true must have one: .ci/run starts it with scripts/ci-docker.sh)', () => {
    expect(ENGINE).toBe(true);
  });

  it('says how to make a swarm when the engine is in none, then joins one', async () => {
    const swarmBefore = docker(['info', '--format', '{{.Swarm.LocalNodeState}}']);
    if (swarmBefore !== 'active') {
      const refused = await runCli(['deploy', 'swarm', '--dir', root(), '--json'], { env, timeoutMs: 60_000 });
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stdout).error).toMatchObject({
        code: 'docker_unavailable',
        message: expect.stringMatching(/not in a swarm .*docker swarm init/),
      });
      docker(['swarm', 'init']);
      joined = true;
    }
    expect(docker(['info', '--format', '{{.Swarm.ControlAvailable}}'])).toBe('true');
  }, 120_000);

  it('deploys the stack healthy with two planners; a plan proposed on one is approved on the other; a rolling update loses no pending plan', async () => {
    env = { ...env, FRAMEWORK_BASE_IMAGE: baseImage(), FRAMEWORK_MODELS_DIR: resolveModelsDir() };
    // Plans without a model (one action per ";"), so the test does not wait on a CPU model.
    const file = join(root(), 'compose.yaml');
    // Free host ports for what is published (never a fixed one on a shared machine).
    const compose = parse(await readFile(file, 'utf8')) as { services: Record<string, { ports?: string[]; environment?: Record<string, string> }> };
    const hostPorts: Record<string, number> = {};
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.environment?.AGENT_NAME) service.environment.MODEL_NAME = '';
      if (service.ports) {
        hostPorts[name] = await freePort();
        service.ports = service.ports.map((p) => `${hostPorts[name]}:${p.split(':').pop()}`);
      }
    }
    await writeFile(file, stringify(compose, { lineWidth: 0 }));

    const started = Date.now();
    // This engine's kernel has no IPVS: service names resolve to the tasks (dnsrr).
    const deployed = await runCli(['deploy', 'swarm', '--dir', root(), '--replicas', 'planner=2', '--endpoint-mode', 'dnsrr', '--json'], {
      env,
      timeoutMs: 1_500_000,
    });
    expect(deployed.code, `${deployed.stdout}\n${deployed.stderr.slice(-4000)}`).toBe(0);
    console.log(`swarm: deploy swarm (build included) took ${Math.round((Date.now() - started) / 1000)} s`);
    const result = JSON.parse(deployed.stdout) as { services: { name: string; replicas: string }[]; secrets: string[]; configs: string[] };
    expect(Object.fromEntries(result.services.map((s) => [s.name, s.replicas]))).toEqual({
      executor: '1/1',
      guardian: '1/1',
      kv: '1/1',
      memory: '1/1',
      model: '1/1',
      orchestrator: '1/1',
      planner: '2/2',
      policy: '1/1',
      'semantic-layer': '1/1',
    });

    // Secrets are swarm secrets, never in the output or the environment; configs are swarm configs.
    const token = (await readFile(join(root(), '.framework/secrets/memory-token'), 'utf8')).trim();
    expect(deployed.stdout).not.toContain(token);
    expect(docker(['secret', 'ls', '--filter', LABEL, '--format', '{{.Name}}']).split('\n').sort()).toEqual(result.secrets.slice().sort());
    expect(docker(['config', 'ls', '--filter', LABEL, '--format', '{{.Name}}']).split('\n').sort()).toEqual(result.configs.slice().sort());
    const spec = (service: string) =>
      JSON.parse(docker(['service', 'inspect', `${PROJECT}_${service}`, '--format', '{{json .Spec}}'])) as {
        TaskTemplate: {
          ContainerSpec: { ReadOnly?: boolean; User?: string; Env?: string[]; Healthcheck?: { Test: string[] }; Secrets?: { SecretName: string }[] };
        };
        UpdateConfig: { Order: string; FailureAction: string };
      };
    const planner = spec('planner');
    expect(planner.UpdateConfig).toMatchObject({ Order: 'start-first', FailureAction: 'rollback' });
    expect(planner.TaskTemplate.ContainerSpec).toMatchObject({ ReadOnly: true, User: '1000:1000' });
    expect(planner.TaskTemplate.ContainerSpec.Healthcheck?.Test.join(' ')).toContain('GET /health');
    expect(planner.TaskTemplate.ContainerSpec.Secrets?.map((s) => s.SecretName).sort()).toEqual(result.secrets.slice().sort());
    expect(planner.TaskTemplate.ContainerSpec.Env?.join('\n')).not.toContain(token);
    expect(spec('kv').UpdateConfig.Order).toBe('stop-first');
    // dnsrr: the single orchestrator publishes its port on the host; the two planners publish none (two tasks cannot bind one host port).
    const ports = (service: string) =>
      JSON.parse(docker(['service', 'inspect', `${PROJECT}_${service}`, '--format', '{{json .Spec.EndpointSpec}}'])) as {
        Mode: string;
        Ports?: { PublishedPort: number; PublishMode: string }[];
      };
    expect(ports('orchestrator')).toMatchObject({ Mode: 'dnsrr', Ports: [{ PublishedPort: hostPorts.orchestrator, PublishMode: 'host' }] });
    expect(ports('planner').Ports ?? []).toEqual([]);

    // Two replicas, two containers: proposed on one, approved on the other.
    const [a, b] = planners();
    expect(planners()).toHaveLength(2);
    const proposal = ask(a!, ['propose', '', 'Order the catering; print the badges']);
    expect(proposal.events.find((e) => e.event === 'input_required')?.data, JSON.stringify(proposal)).toMatchObject({ action_type: 'plan_confirmation' });
    const approval = ask(b!, ['approve', proposal.token!]);
    expect(approval.hostname).not.toBe(proposal.hostname);
    expect(approval.events.find((e) => e.event === 'result')?.data, JSON.stringify(approval)).toMatchObject({
      actions: ['Order the catering', 'print the badges'],
    });

    // A plan pending across a rolling update of every planner replica.
    const pending = ask(a!, ['propose', '', 'Book the room; send the invitations']);
    expect(pending.events.find((e) => e.event === 'input_required')?.data).toMatchObject({ action_type: 'plan_confirmation' });
    const before = planners();
    const updated = Date.now();
    docker(['service', 'update', '--force', '--detach=false', '--quiet', `${PROJECT}_planner`]);
    console.log(`swarm: rolling update of 2 planners took ${Math.round((Date.now() - updated) / 1000)} s`);
    // The command returns once the new tasks run; the update is `completed` after its monitor period (10 s) without a failure.
    let state = '';
    for (let i = 0; i < 60 && state !== 'completed' && !state.startsWith('rollback') && state !== 'paused'; i++) {
      if (i > 0) await sleep(1000);
      state = docker(['service', 'inspect', `${PROJECT}_planner`, '--format', '{{.UpdateStatus.State}}']);
    }
    expect(state).toBe('completed');
    const after = planners();
    expect(after).toHaveLength(2);
    expect(after.filter((id) => before.includes(id))).toEqual([]);
    const approvedAfter = ask(after[0]!, ['approve', pending.token!]);
    expect(approvedAfter.events.find((e) => e.event === 'result')?.data, JSON.stringify(approvedAfter)).toMatchObject({
      actions: ['Book the room', 'send the invitations'],
    });
  }, 1_800_000);

  it('deploy swarm --down --volumes removes services, networks, secrets, configs, volumes and containers', async () => {
    expect(leftovers().services.length, 'the previous test deployed the stack').toBeGreaterThan(0);
    const down = await runCli(['deploy', 'swarm', '--down', '--volumes', '--dir', root(), '--json'], { env, timeoutMs: 300_000 });
    expect(down.code, down.stderr).toBe(0);
    const removed = (
      JSON.parse(down.stdout) as { removed: { services: string[]; networks: string[]; secrets: string[]; configs: string[]; volumes: string[] } }
    ).removed;
    expect(removed.services).toHaveLength(9);
    expect(removed.networks).toEqual([`${PROJECT}_default`]);
    expect(removed.secrets).toHaveLength(2);
    expect(removed.configs.length).toBeGreaterThan(0);
    expect(removed.volumes.sort()).toEqual([`${PROJECT}_kv-data`, `${PROJECT}_vector-store`]);
    expect(leftovers()).toEqual({ services: [], networks: [], secrets: [], configs: [], volumes: [], containers: [] });
    const again = await runCli(['deploy', 'swarm', '--down', '--dir', root()], { env, timeoutMs: 120_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`No stack ${PROJECT} was deployed.`);
  }, 600_000);
});
