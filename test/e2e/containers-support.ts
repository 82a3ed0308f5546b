/**
 * A swarm made by `create swarm` in a scratch folder, run under
 * `up --containers` by the compiled CLI: shared by the containers tests.
 * Run `npm run build` first.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { parse, stringify } from 'yaml';
import { resolveModelsDir } from '../../runtime/model/model-store.js';
import { defaultEmbeddingStore } from '../model/support/default-model.js';
import { runCli } from '../support/cli.js';
import { baseImage, composeLeftovers, docker } from '../support/docker.js';
import { freePort } from '../support/net.js';

/** A line of `chat --json`. */
export interface ChatLine {
  event: string;
  data: Record<string, unknown>;
}

/** A service as `up --json` reports it. */
export interface UpRow {
  name: string;
  port: number;
  url: string;
  state: string;
  pid: number | null;
}

/**
 * The project `name` (a fixed name: its images `<name>-toolkit` and
 * `<name>-redis` stay after the run, so the next run's build is warm).
 */
export class ContainersSwarm {
  readonly project: string;
  #base: string | undefined;
  env: Record<string, string> = {};

  constructor(project: string) {
    this.project = project;
  }

  get created(): boolean {
    return this.#base !== undefined;
  }

  get root(): string {
    return join(this.#base!, this.project);
  }

  /**
   * `create swarm`, then its compose file edited for a test: free host ports
   * for what is published, plans without a model (one action per ";", so the
   * test does not wait on a CPU model). Returns the published host ports.
   */
  async create(): Promise<Record<string, number>> {
    const models = resolveModelsDir();
    await defaultEmbeddingStore();
    this.#base = await mkdtemp(join(tmpdir(), 'fw-containers-'));
    this.env = { FRAMEWORK_BASE_IMAGE: baseImage(), FRAMEWORK_MODELS_DIR: models, FRAMEWORK_CLI_CONFIG_DIR: join(this.#base, 'config') };
    const created = await runCli(['create', 'swarm', this.project, '--dir', this.root, '--json'], { env: this.env });
    expect(created.code, created.stderr).toBe(0);
    const file = join(this.root, 'compose.yaml');
    const compose = parse(await readFile(file, 'utf8')) as { services: Record<string, { ports?: string[]; environment?: Record<string, string> }> };
    const hostPorts: Record<string, number> = {};
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.ports) {
        hostPorts[name] = await freePort();
        service.ports = service.ports.map((p) => `${hostPorts[name]}:${p.split(':').pop()}`);
      }
      if (service.environment?.AGENT_NAME) service.environment.MODEL_NAME = '';
    }
    await writeFile(file, stringify(compose, { lineWidth: 0 }));
    return hostPorts;
  }

  /** `up --containers --detach --json`: every service healthy. */
  async up(extra: string[] = []): Promise<UpRow[]> {
    const result = await runCli(['up', '--containers', '--detach', '--dir', this.root, '--json', ...extra], { env: this.env, timeoutMs: 1_500_000 });
    expect(result.code, `${result.stdout}\n${result.stderr.slice(-4000)}`).toBe(0);
    const stack = JSON.parse(result.stdout) as { services: UpRow[]; containers: boolean; detached: boolean };
    expect(stack).toMatchObject({ containers: true, detached: true });
    expect(
      stack.services.filter((s) => s.state !== 'healthy'),
      result.stdout,
    ).toEqual([]);
    return stack.services;
  }

  /** `down`: no container or network left; only the named volumes (model cache, vector store, Redis data) stay, no anonymous one. */
  async down(): Promise<void> {
    const result = await runCli(['down', '--dir', this.root, '--json'], { env: this.env, timeoutMs: 180_000 });
    expect(result.code, result.stderr).toBe(0);
    const left = composeLeftovers(this.project);
    expect(left.containers, 'containers left by down').toEqual([]);
    expect(left.networks, 'networks left by down').toEqual([]);
    const names = left.volumes.map((id) => docker(['volume', 'inspect', '--format', '{{.Name}}', id])).sort();
    expect(names).toEqual([`${this.project}_kv-data`, `${this.project}_model-cache`, `${this.project}_vector-store`]);
  }

  /** `chat <args> --json`, its lines parsed. */
  async chat(args: string[]): Promise<ChatLine[]> {
    const result = await runCli(['chat', ...args, '--json'], { env: this.env, timeoutMs: 180_000 });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    return result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ChatLine);
  }

  /** `down --volumes`, then whatever a failed run left (containers, networks, volumes by their Compose label), then the folder. */
  async cleanUp(): Promise<void> {
    if (!this.#base) return;
    await runCli(['down', '--volumes', '--dir', this.root, '--json'], { env: this.env, timeoutMs: 180_000 });
    const left = composeLeftovers(this.project);
    if (left.containers.length > 0) docker(['rm', '--force', '--volumes', ...left.containers]);
    if (left.networks.length > 0) docker(['network', 'rm', ...left.networks]);
    if (left.volumes.length > 0) docker(['volume', 'rm', '--force', ...left.volumes]);
    await rm(this.#base, { recursive: true, force: true });
  }
}
