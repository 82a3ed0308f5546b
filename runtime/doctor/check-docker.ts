import { execa } from 'execa';
import { checkResult, type DoctorCheck } from './doctor-check.js';

const WHY = 'only `framework-cli up --containers` needs it';
/** The base image the generated Dockerfiles default to. */
export const REGISTRY_BASE_IMAGE = 'node:20-bookworm-slim';

interface Run {
  ok: boolean;
  stdout: string;
  stderr: string;
  enoent: boolean;
  timedOut: boolean;
  exitCode: number | undefined;
}

async function run(file: string, args: string[], options: { env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Run> {
  const result = await execa(file, args, {
    reject: false,
    stdin: 'ignore',
    timeout: options.timeoutMs,
    ...(options.env ? { env: options.env, extendEnv: false } : {}),
  });
  return {
    ok: result.exitCode === 0,
    stdout: String(result.stdout).trim(),
    stderr: String(result.stderr).trim(),
    enoent: (result as { code?: string }).code === 'ENOENT',
    timedOut: result.timedOut,
    exitCode: result.exitCode,
  };
}

/**
 * Docker for `up --containers`: the engine answers `docker info`, Compose is
 * installed (`docker compose` v2, else `docker-compose` v1), and the base
 * image is there (FRAMEWORK_BASE_IMAGE, else node:20-bookworm-slim). Never
 * required, so anything missing is a `warn` naming the fix.
 */
export async function checkDocker(options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<DoctorCheck> {
  const probe = { ...(options.env ? { env: options.env } : {}), timeoutMs: options.timeoutMs ?? 3_000 };
  const engine = await run('docker', ['info', '--format', '{{.ServerVersion}}'], probe);
  if (engine.enoent) {
    return checkResult('docker', 'warn', `no docker command on PATH; ${WHY}`, {
      fix: 'install Docker (or Podman with its docker alias) to run the stack in containers',
      required: false,
    });
  }
  if (!engine.ok || engine.stdout === '') {
    const reason = engine.timedOut ? 'no answer within the time limit' : firstLine(engine.stderr) || `exit code ${String(engine.exitCode)}`;
    return checkResult('docker', 'warn', `docker is installed but its engine does not answer (${reason}); ${WHY}`, {
      fix: 'start the Docker engine (for example: sudo systemctl start docker, or dockerd as root)',
      required: false,
    });
  }
  const image = (options.env ?? process.env).FRAMEWORK_BASE_IMAGE || REGISTRY_BASE_IMAGE;
  const [v2, v1, base] = await Promise.all([
    run('docker', ['compose', 'version', '--short'], probe),
    run('docker-compose', ['version', '--short'], probe),
    run('docker', ['image', 'inspect', '--format', '{{.Id}}', image], probe),
  ]);
  const compose = v2.ok ? `docker compose ${v2.stdout}` : v1.ok ? `docker-compose ${v1.stdout}` : undefined;
  const found = `Docker engine ${engine.stdout}; ${compose ?? 'no Compose'}; base image ${image} ${base.ok ? 'present' : 'not present'}`;
  if (!compose) {
    return checkResult('docker', 'warn', `${found}: neither \`docker compose\` (v2) nor \`docker-compose\` (v1) is installed; ${WHY}`, {
      fix: 'install Compose: the docker-compose-plugin package (v2) or docker-compose (v1)',
      required: false,
    });
  }
  if (!base.ok) {
    return checkResult('docker', 'warn', `${found}; the first build pulls it from the registry (or fails without one)`, {
      fix: `docker pull ${image}; without a registry, make a base image locally (debootstrap, see docs/deployment.md) and set FRAMEWORK_BASE_IMAGE to it`,
      required: false,
    });
  }
  return checkResult('docker', 'ok', found, { required: false });
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}
