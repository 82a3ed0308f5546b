/**
 * Issue 39: the toolkit as a user gets it, from a registry. A real local
 * registry (Verdaccio, proxying the public npm registry for everything but
 * framework_core) receives `npm publish` of the packed toolkit; `npm i -g`
 * into a temporary prefix gives `framework-cli`; its `create swarm` writes
 * `"framework_core": "^<version>"`; the swarm's `npm install` comes from that
 * registry (no build of framework_core, no GPU or foreign native builds:
 * its postinstall installs node-llama-cpp and LanceDB with this platform's
 * builds only into the runtime folder); `up --detach` starts it healthy (the
 * Semantic Layer on LanceDB from that folder), the model runtime runs a model
 * from that folder, a plan is proposed and approved, `down` stops it all.
 * Slow (npm installs through the proxy): run `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { currentPlatform, lancePlatformPackage, llamaPlatformPackages, nativeRuntimeDir } from '../../runtime/core/native-runtime.js';
import { defaultEmbeddingStore, defaultModelStore } from '../model/support/default-model.js';
import { REPO_ROOT } from '../support/processes.js';
import { deleteKeys } from '../support/redis-keys.js';
import { REDIS_URL } from '../support/redis-scope.js';
import { moveSwarmToFreePorts } from '../support/swarm-ports.js';
import { networkEnv, startVerdaccio, type LocalRegistry } from '../support/verdaccio.js';

const KV_PREFIX = `fwtest:registry-${process.pid}-${Date.now()}:`;
const VERSION = (JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

let base: string | undefined;
let registry: LocalRegistry | undefined;
let projectCli: string | undefined;
let env: Record<string, string> = {};

afterAll(async () => {
  if (projectCli && base) await run(projectCli, ['down', '--dir', join(base, 'team'), '--json'], { timeoutMs: 120_000 });
  await registry?.stop();
  if (base) await rm(base, { recursive: true, force: true });
  const redis = new Redis(REDIS_URL);
  await deleteKeys(redis, KV_PREFIX);
  await redis.quit();
}, 180_000);

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command as a child process (never a shell), killed after `timeoutMs`. */
function run(file: string, args: string[], options: { cwd?: string; timeoutMs: number }): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: options.cwd ?? base, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function ok(file: string, args: string[], options: { cwd?: string; timeoutMs: number }): Promise<string> {
  const result = await run(file, args, options);
  const where = `${file} ${args.join(' ')}`;
  expect(result.code, `${where}\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}\n${registry?.output().slice(-2000) ?? ''}`).toBe(0);
  return result.stdout;
}

interface ChatLine {
  event: string;
  data: Record<string, unknown>;
}

async function chat(args: string[]): Promise<ChatLine[]> {
  const out = await ok(projectCli!, ['chat', ...args, '--json'], { timeoutMs: 180_000 });
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ChatLine);
}

describe('framework_core installed from a registry (Verdaccio)', () => {
  it('publishes, installs globally, creates a swarm, installs it from the registry, runs it up, plans and approves, and takes it down', async () => {
    await defaultModelStore();
    await defaultEmbeddingStore();
    base = await mkdtemp(join(tmpdir(), 'fw-registry-'));
    await mkdir(join(base, 'verdaccio'));
    registry = await startVerdaccio({ dir: join(base, 'verdaccio') });
    env = {
      ...networkEnv(),
      ...(process.env.XDG_CACHE_HOME ? { XDG_CACHE_HOME: process.env.XDG_CACHE_HOME } : {}),
      ...(process.env.FRAMEWORK_MODELS_DIR ? { FRAMEWORK_MODELS_DIR: process.env.FRAMEWORK_MODELS_DIR } : {}),
      npm_config_userconfig: registry.userconfig,
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      FRAMEWORK_RUNTIMES_DIR: join(base, 'runtimes'),
      FRAMEWORK_CLI_CONFIG_DIR: join(base, 'config'),
      LOG_LEVEL: 'warn',
    };

    // The package as npm publish sends it: dist/ is built already (the test runs after `npm run build`).
    const packed = JSON.parse(await ok('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', base], { cwd: REPO_ROOT, timeoutMs: 120_000 })) as {
      filename: string;
      files: { path: string }[];
    }[];
    const shipped = packed[0]!.files.map((f) => f.path);
    expect(shipped).toContain('dist/cli/commands/up.js');
    expect(shipped).toContain('cli/bin/run.js');
    expect(shipped).toContain('oclif.manifest.json');
    expect(shipped.filter((p) => /^(runtime|test|cli\/commands)\/.*\.ts$/.test(p) || p === 'tsconfig.json')).toEqual([]);
    await ok('npm', ['publish', join(base, packed[0]!.filename)], { timeoutMs: 120_000 });
    const view = JSON.parse(await ok('npm', ['view', 'framework_core', '--json'], { timeoutMs: 60_000 })) as { version: string; dist: { tarball: string } };
    expect(view.version).toBe(VERSION);
    expect(view.dist.tarball.startsWith(registry.url)).toBe(true);

    // npm i -g framework_core gives framework-cli.
    const prefix = join(base, 'global');
    await ok('npm', ['install', '--global', '--prefix', prefix, 'framework_core'], { timeoutMs: 900_000 });
    const globalCli = join(prefix, 'bin', 'framework-cli');
    expect((await ok(globalCli, ['--version'], { timeoutMs: 60_000 })).trim()).toContain(`framework_core/${VERSION}`);

    const root = join(base, 'team');
    await ok(globalCli, ['create', 'swarm', 'team', '--dir', root, '--json'], { timeoutMs: 60_000 });
    const manifest = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies).toEqual({ framework_core: `^${VERSION}` });

    // The swarm's npm install, from the registry: the published files, no build, no llama.cpp builds in node_modules.
    await ok('npm', ['install'], { cwd: root, timeoutMs: 900_000 });
    const installed = join(root, 'node_modules', 'framework_core');
    expect((JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { version: string }).version).toBe(VERSION);
    expect(existsSync(join(installed, 'tsconfig.json'))).toBe(false);
    // Neither native part nor any of their builds in the project; no transformers.js or onnxruntime (LanceDB's optional embedders).
    for (const heavy of ['node-llama-cpp', '@node-llama-cpp', '@lancedb', '@huggingface/transformers', 'onnxruntime-node']) {
      expect(existsSync(join(root, 'node_modules', heavy)), heavy).toBe(false);
    }
    // The postinstall put them, with this platform's builds only, in the runtime folder.
    const runtime = nativeRuntimeDir({ env });
    const platform = currentPlatform();
    expect((await readdir(join(runtime, 'node_modules', '@node-llama-cpp'))).map((p) => `@node-llama-cpp/${p}`)).toEqual(llamaPlatformPackages(platform));
    expect((await readdir(join(runtime, 'node_modules', '@lancedb'))).map((p) => `@lancedb/${p}`).sort()).toEqual(
      ['@lancedb/lancedb', lancePlatformPackage(platform)].sort(),
    );
    expect(existsSync(join(runtime, 'node_modules', '@huggingface', 'transformers'))).toBe(false);

    projectCli = join(root, 'node_modules', '.bin', 'framework-cli');
    const ports = await moveSwarmToFreePorts({ root, kvPrefix: KV_PREFIX });
    const upOut = await ok(projectCli, ['up', '--detach', '--dir', root, '--json'], { timeoutMs: 600_000 });
    const stack = JSON.parse(upOut) as { services: { name: string; state: string }[] };
    expect(stack.services.map((s) => s.name)).toEqual(['model', 'policy', 'guardian', 'semantic-layer', 'memory', 'orchestrator', 'planner', 'executor']);
    expect(stack.services.filter((s) => s.state !== 'healthy')).toEqual([]);

    // The model runtime loads llama.cpp from the runtime folder and generates.
    const generated = await fetch(`http://127.0.0.1:${ports[11434]}/api/generate`, {
      method: 'POST',
      body: JSON.stringify({ model: 'smollm2', prompt: 'Say hello', stream: false, options: { num_predict: 2 } }),
      signal: AbortSignal.timeout(180_000),
    });
    const generation = (await generated.json()) as { done?: boolean; eval_count?: number; error?: string };
    expect(generated.status, JSON.stringify(generation)).toBe(200);
    expect(generation).toMatchObject({ done: true });

    const planner = `http://127.0.0.1:${ports[8003]}`;
    const proposal = await chat([planner, '--message', 'Book the conference room; send the invitations to the team']);
    expect(proposal.find((l) => l.event === 'input_required')?.data, JSON.stringify(proposal)).toMatchObject({ action_type: 'plan_confirmation' });
    const approved = await chat([planner, '--approve']);
    expect(approved.find((l) => l.event === 'result')?.data, JSON.stringify(approved)).toMatchObject({
      actions: ['Book the conference room', 'send the invitations to the team'],
    });

    await ok(projectCli, ['down', '--dir', root, '--json'], { timeoutMs: 120_000 });
    const status = JSON.parse(await ok(projectCli, ['status', '--dir', root, '--json'], { timeoutMs: 60_000 })) as { running: boolean };
    expect(status.running).toBe(false);
    projectCli = undefined;
  }, 2_400_000);
});
