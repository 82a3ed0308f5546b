import { writeFile } from 'node:fs/promises';
import { parseAgentCard } from '../a2a/agent-card.js';

/** A skill as the user describes it. */
export interface SkillAnswer {
  name: string;
  description: string;
}

/** The card file of the spec: name, description, url, version, capabilities as words, skills. */
export interface AgentCardDocument {
  name: string;
  description: string;
  url: string;
  version: string;
  capabilities: { streaming: 'True' | 'False'; pushNotifications: 'True' | 'False' };
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: { id: string; name: string; description: string; tags: string[]; examples: string[] }[];
}

/**
 * The card of a generated agent, checked with the toolkit's card parser.
 *
 * @example
 * buildAgentCard({ name: 'helper', description: 'Helps', port: 8002, skills: [] }).url; // 'http://127.0.0.1:8002/'
 */
export function buildAgentCard(options: { name: string; description: string; port: number; skills: readonly SkillAnswer[] }): AgentCardDocument {
  const card: AgentCardDocument = {
    name: options.name,
    description: options.description,
    url: `http://127.0.0.1:${options.port}/`,
    version: '0.1.0',
    capabilities: { streaming: 'True', pushNotifications: 'False' },
    defaultInputModes: ['text', 'text/plain'],
    defaultOutputModes: ['text', 'text/plain'],
    skills: options.skills.map((skill, index) => ({
      id:
        skill.name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, '_')
          .replace(/^_|_$/g, '') || `skill_${index + 1}`,
      name: skill.name,
      description: skill.description,
      tags: [options.name],
      examples: [],
    })),
  };
  parseAgentCard(card, { file: `${options.name}.json` });
  return card;
}

/** Writes a card file (2-space JSON). */
export async function writeAgentCard(options: { path: string; card: AgentCardDocument }): Promise<void> {
  await writeFile(options.path, `${JSON.stringify(options.card, null, 2)}\n`);
}
