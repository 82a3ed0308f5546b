import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AgentCard } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardFromConfig, parseAgentCard } from '../../runtime/a2a/agent-card.js';
import type { RunningAgent } from '../../runtime/agent/run-agent.js';
import { addAgent } from '../../runtime/scaffold/add-agent.js';
import { createProject } from '../../runtime/scaffold/create-project.js';
import { createSwarm } from '../../runtime/scaffold/create-swarm.js';
import { CARDS_DIR, probeAgent, runProbe, scratchDir } from './support.js';

/**
 * The fields the A2A 1.0 proto marks REQUIRED (`google.api.field_behavior`) in
 * `AgentCard`, `AgentInterface` and `AgentSkill`, as the card is served in
 * JSON. A REQUIRED repeated field must be non-empty and a REQUIRED string
 * must not be blank (the TCK's mandatory card test: "skills array cannot be
 * empty"). Returns what is missing, or nothing.
 */
function missingRequired(card: Record<string, any>): string[] {
  const missing: string[] = [];
  const text = (value: unknown, at: string) => (typeof value === 'string' && value.trim() !== '' ? undefined : missing.push(at));
  const list = (value: unknown, at: string) => (Array.isArray(value) && value.length > 0 ? (value as unknown[]) : (missing.push(at), []));
  text(card.name, 'name');
  text(card.description, 'description');
  text(card.version, 'version');
  if (typeof card.capabilities !== 'object' || card.capabilities === null) missing.push('capabilities');
  list(card.defaultInputModes, 'defaultInputModes');
  list(card.defaultOutputModes, 'defaultOutputModes');
  list(card.supportedInterfaces, 'supportedInterfaces').forEach((i: any, n) => {
    text(i.url, `supportedInterfaces[${n}].url`);
    text(i.protocolBinding, `supportedInterfaces[${n}].protocolBinding`);
    text(i.protocolVersion, `supportedInterfaces[${n}].protocolVersion`);
  });
  list(card.skills, 'skills').forEach((skill: any, n) => {
    text(skill.id, `skills[${n}].id`);
    text(skill.name, `skills[${n}].name`);
    text(skill.description, `skills[${n}].description`);
    list(skill.tags, `skills[${n}].tags`).forEach((tag, t) => text(tag, `skills[${n}].tags[${t}]`));
  });
  return missing;
}

const served = (card: AgentCard) => AgentCard.toJSON(card) as Record<string, any>;

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let running: RunningAgent;
beforeAll(async () => {
  scratch = await scratchDir();
  const built = probeAgent('probe');
  running = await runProbe(built.core, built.agent, { A2A_VALIDATION_MODE: 'disabled' });
});
afterAll(async () => {
  await running?.close();
  await scratch?.remove();
});

describe('every default and generated agent card has the 1.0 proto REQUIRED fields', () => {
  it('the checker finds what a card without skills or skill tags misses', () => {
    expect(missingRequired({ name: 'a', description: 'b', version: '1', capabilities: {}, defaultInputModes: ['text/plain'], skills: [] })).toEqual([
      'defaultOutputModes',
      'supportedInterfaces',
      'skills',
    ]);
    expect(missingRequired({ skills: [{ id: 'x', name: 'x', description: '', tags: [] }] })).toContain('skills[0].tags');
  });

  it('the card of an agent with no card file, as served at the well-known path', async () => {
    const res = await fetch(`${running.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(missingRequired((await res.json()) as Record<string, any>)).toEqual([]);
    expect(missingRequired(served(cardFromConfig({ name: 'a', description: 'b', version: '2.0.0', url: 'http://127.0.0.1:7000/' })))).toEqual([]);
  });

  it("the toolkit's own cards (agent_cards/)", async () => {
    for (const file of (await readdir(CARDS_DIR)).filter((name) => name.endsWith('.json'))) {
      const [card] = parseAgentCard(JSON.parse(await readFile(join(CARDS_DIR, file), 'utf8')), { file });
      expect(missingRequired(served(card)), file).toEqual([]);
    }
  });

  it('the cards `create swarm` and `add agent` write, with and without skills', async () => {
    const swarm = join(scratch.dir, 'swarm');
    await createSwarm({ dir: swarm, name: 'swarm' });
    const project = join(scratch.dir, 'project');
    await createProject({ dir: project, name: 'project' });
    await addAgent({ root: project, name: 'bare', description: 'No skills given', tasks: [], skills: [], withWebInterface: false });
    await addAgent({
      root: project,
      name: 'skilled',
      description: 'Has skills',
      tasks: [],
      skills: [{ name: 'Book a room', description: '' }],
      withWebInterface: false,
    });
    for (const root of [swarm, project]) {
      const files = (await readdir(root, { recursive: true })).filter((path) => /(^|\/)agent_cards\/[^/]+\.json$/.test(path));
      expect(files.length, root).toBeGreaterThanOrEqual(root === swarm ? 3 : 2);
      for (const file of files) {
        const [card] = parseAgentCard(JSON.parse(await readFile(join(root, file), 'utf8')), { file });
        expect(missingRequired(served(card)), `${root}: ${file}`).toEqual([]);
      }
    }
  });
});
