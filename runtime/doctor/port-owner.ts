import { execa } from 'execa';

/** The process listening on a port, as `ss` names it. */
export interface PortOwnerProcess {
  command: string;
  pid: number;
}

/**
 * The process listening on TCP `port` (its command and pid), when `ss` can
 * tell (Linux; another user's processes stay anonymous); undefined otherwise.
 */
export async function portOwnerProcess(port: number, options: { timeoutMs?: number } = {}): Promise<PortOwnerProcess | undefined> {
  try {
    const result = await execa('ss', ['-ltnpH', `sport = :${port}`], { reject: false, timeout: options.timeoutMs ?? 1_000 });
    if (result.exitCode !== 0) return undefined;
    const match = /users:\(\("([^"]+)",pid=(\d+)/.exec(String(result.stdout));
    return match ? { command: match[1]!, pid: Number(match[2]) } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The process listening on TCP `port`, as `redis-server (pid 2216)`, when
 * `ss` can tell (Linux; another user's processes stay anonymous); undefined otherwise.
 */
export async function portOwner(port: number, options: { timeoutMs?: number } = {}): Promise<string | undefined> {
  const owner = await portOwnerProcess(port, options);
  return owner ? `${owner.command} (pid ${owner.pid})` : undefined;
}
