import { execa } from 'execa';

/**
 * The process listening on TCP `port`, as `redis-server (pid 2216)`, when
 * `ss` can tell (Linux; another user's processes stay anonymous); undefined otherwise.
 */
export async function portOwner(port: number, options: { timeoutMs?: number } = {}): Promise<string | undefined> {
  try {
    const result = await execa('ss', ['-ltnpH', `sport = :${port}`], { reject: false, timeout: options.timeoutMs ?? 1_000 });
    if (result.exitCode !== 0) return undefined;
    const match = /users:\(\("([^"]+)",pid=(\d+)/.exec(String(result.stdout));
    return match ? `${match[1]} (pid ${match[2]})` : undefined;
  } catch {
    return undefined;
  }
}
