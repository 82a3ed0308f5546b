import { connect } from 'node:net';
import { checkResult, DEFAULT_PROBE_TIMEOUT_MS, type DoctorCheck, type ProbeOptions } from './doctor-check.js';
import { probeHttp } from './http-probe.js';
import type { KnownPort } from './known-ports.js';
import { portOwner } from './port-owner.js';

/** True when something accepts TCP connections on `host:port`. */
export function portInUse(port: number, host = '127.0.0.1', timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    const done = (inUse: boolean) => {
      socket.destroy();
      resolve(inUse);
    };
    socket.setTimeout(timeoutMs, () => done(true)); // Accepted nothing but did not refuse either: something holds it.
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Whether a default port is free for `up`: `ok` when free or when our own
 * service already answers there, `warn` (naming the process when `ss` can
 * tell) when something else holds it. Never required: only `up` needs it.
 *
 * @example
 * await checkPort({ known: knownPort(8181)! }); // { name: 'port 8181', status: 'ok', detail: 'free (the policy engine)' }
 */
export async function checkPort(options: { known: KnownPort; port?: number; host?: string } & ProbeOptions): Promise<DoctorCheck> {
  const { known } = options;
  const port = options.port ?? known.port;
  const host = options.host ?? '127.0.0.1';
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const name = `port ${port}`;
  if (!(await portInUse(port, host, timeoutMs))) return checkResult(name, 'ok', `free (for ${known.service})`, { required: false });
  const answer = await probeHttp(`http://${host}:${port}${known.probePath}`, timeoutMs);
  if (answer.answered && known.isOurs(answer)) {
    if (answer.ok) return checkResult(name, 'ok', `${known.service} is already running here (ours)`, { required: false });
    return checkResult(name, 'warn', `${known.service} is running here (ours) but reports unhealthy (HTTP ${answer.status})`, {
      fix: `see its log, or stop it and let \`framework-cli up\` start it again`,
      required: false,
    });
  }
  const owner = await portOwner(port);
  return checkResult(name, 'warn', `in use by ${owner ?? 'another program'}, not ${known.service}: \`up\` will fail to start ${known.service} here`, {
    fix: `stop ${owner ?? `whatever listens on ${port}`}, or give ${known.service} another port (${known.startedBy} --help)`,
    required: false,
  });
}
