import { execa } from 'execa';
import { checkResult, type DoctorCheck } from './doctor-check.js';

const WHY = 'only `framework-cli up --containers` needs it';

/**
 * Docker for `up --containers`: `docker info` answers. Never required, so
 * no engine (or no docker command) is a `warn`.
 */
export async function checkDocker(options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<DoctorCheck> {
  const result = await execa('docker', ['info', '--format', '{{.ServerVersion}}'], {
    reject: false,
    timeout: options.timeoutMs ?? 3_000,
    ...(options.env ? { env: options.env, extendEnv: false } : {}),
  });
  if (result.exitCode === 0 && String(result.stdout).trim() !== '') {
    return checkResult('docker', 'ok', `Docker engine ${String(result.stdout).trim()}`, { required: false });
  }
  if ((result as { code?: string }).code === 'ENOENT') {
    return checkResult('docker', 'warn', `no docker command on PATH; ${WHY}`, {
      fix: 'install Docker (or Podman with its docker alias) to run the stack in containers',
      required: false,
    });
  }
  const reason = result.timedOut ? 'no answer within the time limit' : firstLine(String(result.stderr)) || `exit code ${result.exitCode}`;
  return checkResult('docker', 'warn', `docker is installed but its engine does not answer (${reason}); ${WHY}`, {
    fix: 'start the Docker engine (for example: sudo systemctl start docker)',
    required: false,
  });
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.trim() ?? '';
}
