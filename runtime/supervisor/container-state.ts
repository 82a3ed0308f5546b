import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { z } from 'zod';
import { RUN_DIR } from './project-file.js';

/** Where `up --containers` records its stack, relative to the project root. */
export const CONTAINER_STATE_FILE = `${RUN_DIR}/containers.json`;

export const ContainerStateSchema = z.object({
  /** Compose's project name. */
  project: z.string(),
  /** The compose file, absolute. */
  file: z.string(),
  /** The Compose program and its leading arguments (`['docker', 'compose']` or `['docker-compose']`). */
  compose: z.array(z.string()).min(1),
  startedAt: z.string(),
  scale: z.record(z.string(), z.number().int()).default({}),
});
export type ContainerState = z.infer<typeof ContainerStateSchema>;

/** The containers stack of `root`, or `undefined` when `up --containers` recorded none (an unreadable file counts as none). */
export function readContainerState(options: { root: string }): ContainerState | undefined {
  try {
    return ContainerStateSchema.parse(JSON.parse(readFileSync(join(options.root, CONTAINER_STATE_FILE), 'utf8')));
  } catch {
    return undefined;
  }
}

export function writeContainerState(options: { root: string; state: ContainerState }): void {
  mkdirSync(join(options.root, RUN_DIR), { recursive: true });
  writeFileSync(join(options.root, CONTAINER_STATE_FILE), `${JSON.stringify(options.state, null, 2)}\n`);
}

export function clearContainerState(options: { root: string }): void {
  rmSync(join(options.root, CONTAINER_STATE_FILE), { force: true });
}

/** A service of a compose file: its name, the port it listens on inside its container, and the host port it is published on. */
export interface ComposeServicePort {
  name: string;
  port: number;
  published: number | null;
}

/** The service names of a compose file, in file order. */
export function composeServices(options: { file: string }): string[] {
  return composeServicePorts(options).map((s) => s.name);
}

/**
 * Each service of a compose file with its port: from `--addr host:port` or
 * `--port N` in its command, a published `host:container` port, or 6379 for Redis.
 */
export function composeServicePorts(options: { file: string }): ComposeServicePort[] {
  // yaml (about 70 modules) is loaded here, when a compose file is read: `status` and `down` read the state file on every run.
  const { parse } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const data = parse(readFileSync(options.file, 'utf8')) as { services?: Record<string, { command?: unknown; ports?: unknown; image?: string }> };
  return Object.entries(data.services ?? {}).map(([name, service]) => {
    const command = Array.isArray(service.command) ? service.command.map(String) : [];
    const ports = Array.isArray(service.ports) ? service.ports.map(String) : [];
    const published = ports[0]?.match(/^(?:[\d.]+:)?(\d+):(\d+)/);
    let port: number | undefined;
    const addr = command.indexOf('--addr');
    if (addr >= 0) port = Number(command[addr + 1]?.split(':').pop());
    const flag = command.indexOf('--port');
    if (port === undefined && flag >= 0) port = Number(command[flag + 1]);
    if (port === undefined && published) port = Number(published[2]);
    return { name, port: port ?? 6379, published: published ? Number(published[1]) : null };
  });
}
