import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './net.js';

/** The fixed ports a new swarm listens on: policy, Guardian, Semantic Layer, model runtime, memory, orchestrator, planner, executor. */
const SWARM_PORTS = [8181, 11438, 10100, 11434, 8000, 8002, 8003, 8004];

/**
 * Moves every default port of a swarm made by `create swarm` (project.json
 * and the agent cards) to a free one, has the agents plan without a model
 * (one action per ";", so a test does not wait on a CPU model) and keeps
 * system memory under `kvPrefix`. Returns the new port of each default one.
 *
 * @example
 * const ports = await moveSwarmToFreePorts({ root, kvPrefix: 'fwtest:x:' });
 * const planner = `http://127.0.0.1:${ports[8003]}`;
 */
export async function moveSwarmToFreePorts(options: { root: string; kvPrefix: string }): Promise<Record<number, number>> {
  const ports: Record<number, number> = {};
  for (const port of SWARM_PORTS) ports[port] = await freePort();
  const move = (text: string) =>
    SWARM_PORTS.reduce(
      (t, port) =>
        t.replaceAll(`:${port}`, `:${ports[port]}`).replaceAll(`"port": ${port},`, `"port": ${ports[port]},`).replaceAll(`"${port}"`, `"${ports[port]}"`),
      text,
    );
  const file = join(options.root, '.framework', 'project.json');
  const project = JSON.parse(move(await readFile(file, 'utf8'))) as { services: { name: string; kind: string; env: Record<string, string> }[] };
  for (const service of project.services) {
    if (service.kind === 'agent') service.env.MODEL_NAME = '';
    if (service.kind === 'memory') service.env.KV_PREFIX = options.kvPrefix;
  }
  await writeFile(file, JSON.stringify(project, null, 2));
  const cards = join(options.root, 'services', 'semantic_layer', 'agent_cards');
  for (const card of await readdir(cards)) await writeFile(join(cards, card), move(await readFile(join(cards, card), 'utf8')));
  return ports;
}
