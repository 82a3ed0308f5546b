import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { afterAll, beforeAll } from 'vitest';
import { REPO_ROOT } from './processes.js';

/** True when a Docker engine answers `docker info` here. */
export function dockerEngineAnswers(): boolean {
  return spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { stdio: 'ignore', timeout: 60_000 }).status === 0;
}

/**
 * The base image the project images are built on: FRAMEWORK_BASE_IMAGE
 * (set by .ci/run), else the registry's node:20-bookworm-slim when it can be
 * pulled, else the image scripts/ci-docker.sh makes locally (debootstrapped
 * Debian bookworm with this machine's Node 20; cached, so only the first run is slow).
 */
export function baseImage(): string {
  if (process.env.FRAMEWORK_BASE_IMAGE) return process.env.FRAMEWORK_BASE_IMAGE;
  const registry = 'node:20-bookworm-slim';
  if (spawnSync('docker', ['image', 'inspect', registry], { stdio: 'ignore' }).status === 0) return registry;
  if (spawnSync('docker', ['pull', '-q', registry], { stdio: 'ignore', timeout: 120_000 }).status === 0) return registry;
  const out = execFileSync('bash', [join(REPO_ROOT, 'scripts', 'ci-docker.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 900_000 });
  const line = out.trim().split('\n').pop() ?? '';
  return line.replace(/^FRAMEWORK_BASE_IMAGE=/, '');
}

/** `docker <args>` output, trimmed; throws when it fails. */
export function docker(args: readonly string[]): string {
  return execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 }).trim();
}

/** Ids of the containers, networks and volumes a Compose project left behind. */
export function composeLeftovers(project: string): { containers: string[]; networks: string[]; volumes: string[] } {
  const filter = `label=com.docker.compose.project=${project}`;
  const lines = (text: string) => text.split('\n').filter(Boolean);
  return {
    containers: lines(docker(['ps', '--all', '--quiet', '--filter', filter])),
    networks: lines(docker(['network', 'ls', '--quiet', '--filter', filter])),
    volumes: lines(docker(['volume', 'ls', '--quiet', '--filter', filter])),
  };
}

/**
 * Holds the Docker engine for one test file, across vitest's workers: `up --containers` with replicas and `deploy
 * swarm` (which turns the engine into a swarm manager) must not run at once, or each sees the other's networks and
 * load and containers turn unhealthy. Waits for the other file to finish; returns the release.
 */
async function holdDockerEngine(): Promise<() => Promise<void>> {
  const file = join(tmpdir(), 'framework-docker-e2e.lock');
  closeSync(openSync(file, 'a'));
  // A holder refreshes the lock every 5 s, so only a dead one's goes stale; wait up to 45 min for a live one.
  return lockfile.lock(file, { stale: 30_000, update: 5_000, retries: { retries: 540, minTimeout: 5_000, maxTimeout: 5_000, factor: 1 } });
}

/**
 * A Docker test file's hold on the engine: taken before its first test (and before its own `beforeAll`s, when called
 * first), released after `cleanUp` has run at the end, even when that fails.
 */
export function holdDockerEngineForFile(engine: boolean, cleanUp: () => Promise<void>): void {
  let release: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    if (engine) release = await holdDockerEngine();
  }, 2_760_000);
  afterAll(async () => {
    try {
      await cleanUp();
    } finally {
      await release?.();
    }
  }, 300_000);
}
