import { readFile } from 'node:fs/promises';
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { z } from 'zod';
import { AgentCardError } from './errors/agent-card-error.js';
import { findSecretField } from '../core/secret-fields.js';
import type { AgentRef } from './validation-input.js';

/** The A2A protocol version and binding our endpoint serves. */
export const A2A_PROTOCOL_VERSION = '1.0';
export const A2A_PROTOCOL_BINDING = 'JSONRPC';

const BOOLEAN_WORD_ERROR = 'must be true or false ("True"/"False" or a JSON boolean)';

/** `"True"` / `"False"` (the spec's card files) or a JSON boolean. */
const booleanWord = z.union(
  [
    z.boolean(),
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(['true', 'false'], { error: BOOLEAN_WORD_ERROR }))
      .transform((word) => word === 'true'),
  ],
  // Without this, a word such as "yes" fails both options and zod reports only "Invalid input".
  { error: BOOLEAN_WORD_ERROR },
);

const SkillSchema = z.looseObject({
  id: z.string().min(1).optional(),
  name: z.string({ error: 'must be a string' }).min(1, 'must not be empty'),
  description: z.string({ error: 'must be a string' }).optional(),
  tags: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
  examples: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
});

/** The agent card file format of the spec ("Agent card"), with the fields A2A adds as options. */
export const AgentCardFileSchema = z.looseObject({
  name: z.string({ error: 'is required and must be a string' }).min(1, 'must not be empty'),
  description: z.string({ error: 'is required and must be a string' }),
  url: z.url({ error: 'is required and must be an absolute URL such as http://127.0.0.1:8101' }),
  version: z.string({ error: 'is required and must be a string' }).regex(/^\d+\.\d+(\.\d+)?([-+].*)?$/, 'must be a semantic version such as 1.0.0'),
  capabilities: z.looseObject(
    {
      streaming: booleanWord.optional(),
      pushNotifications: booleanWord.optional(),
    },
    { error: 'is required and must be an object with "streaming" and "pushNotifications"' },
  ),
  skills: z.array(SkillSchema, { error: 'is required and must be an array (possibly empty)' }),
  defaultInputModes: z.array(z.string()).optional(),
  defaultOutputModes: z.array(z.string()).optional(),
  provider: z.object({ organization: z.string(), url: z.string() }).optional(),
  documentationUrl: z.string().optional(),
});
export type AgentCardFile = z.infer<typeof AgentCardFileSchema>;

const A2A_FIELDS = new Set([
  'name',
  'description',
  'url',
  'version',
  'capabilities',
  'skills',
  'defaultInputModes',
  'defaultOutputModes',
  'provider',
  'documentationUrl',
]);

/** Card fields A2A does not define, kept beside the card; `file` is where it was read from. */
export interface AgentCardMeta {
  readonly file: string | undefined;
  readonly extra: Readonly<Record<string, unknown>>;
}

/**
 * Turns the spec's card file format into an A2A AgentCard for the SDK (one
 * JSON-RPC interface at `url`, protocol 1.0) and the leftover fields.
 * Throws `AgentCardError` naming the file (or "card") and the field.
 */
export function parseAgentCard(raw: unknown, options: { file?: string } = {}): [AgentCard, AgentCardMeta] {
  const where = options.file ?? 'agent card';
  // Checked on the raw value: the schema strips unknown keys of some objects (provider), which would hide a secret.
  const secretField = findSecretField(raw);
  if (secretField !== undefined) {
    throw new AgentCardError({
      file: where,
      field: secretField,
      message: `${where}: field "${secretField}" looks like a secret; secrets never live in agent cards (put keys in A2A_KEYS_FILE, outside agent_cards/).`,
    });
  }
  const parsed = AgentCardFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(root)';
    const message = issue?.code === 'invalid_type' && issue.path.length === 0 ? 'must be a JSON object' : (issue?.message ?? 'is invalid');
    throw new AgentCardError({ file: where, field, message: `${where}: field "${field}" ${message}` });
  }
  const file = parsed.data;
  const modes = file.defaultInputModes ?? ['text', 'text/plain'];
  const card: AgentCard = {
    name: file.name,
    description: file.description,
    supportedInterfaces: [{ url: file.url, protocolBinding: A2A_PROTOCOL_BINDING, tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }],
    provider: file.provider,
    version: file.version,
    ...(file.documentationUrl === undefined ? {} : { documentationUrl: file.documentationUrl }),
    capabilities: {
      streaming: file.capabilities.streaming ?? false,
      pushNotifications: file.capabilities.pushNotifications ?? false,
      extensions: [],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: modes,
    defaultOutputModes: file.defaultOutputModes ?? modes,
    skills: file.skills.map((skill, index) => toSkill(skill, index)),
    signatures: [],
  };
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(file)) if (!A2A_FIELDS.has(key)) extra[key] = value;
  return [card, { file: options.file, extra }];
}

function toSkill(skill: z.infer<typeof SkillSchema>, index: number): AgentSkill {
  return {
    id:
      skill.id ??
      (skill.name
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .replace(/^_|_$/g, '') ||
        `skill_${index + 1}`),
    name: skill.name,
    description: skill.description ?? '',
    tags: skill.tags ?? [],
    examples: skill.examples ?? [],
    inputModes: skill.inputModes ?? [],
    outputModes: skill.outputModes ?? [],
    securityRequirements: [],
  };
}

/**
 * Reads an agent card file. Returns `[card, meta]`: `card` is a valid A2A
 * AgentCard, `meta` keeps the fields A2A does not define.
 *
 * @example
 * const [planner] = await loadAgentCard('agent_cards/planner.json');
 */
export async function loadAgentCard(path: string): Promise<[AgentCard, AgentCardMeta]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : `cannot be read (${code ?? String(cause)})`;
    throw new AgentCardError({ file: path, message: `Agent card ${path} ${why}. Check AGENT_CARD or the path given.`, cause });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (cause) {
    throw new AgentCardError({ file: path, message: `Agent card ${path} is not valid JSON: ${(cause as Error).message}`, cause });
  }
  return parseAgentCard(raw, { file: path });
}

/** The URL of a card's JSON-RPC endpoint (its first interface). */
export function cardUrl(card: AgentCard): string {
  const url = card.supportedInterfaces[0]?.url;
  if (!url) throw new AgentCardError({ file: card.name, field: 'url', message: `Agent card "${card.name}" has no endpoint URL.` });
  return url;
}

/** What policies see of a card: name, description, url. */
export function cardRef(card: AgentCard): AgentRef {
  return { name: card.name, description: card.description, url: card.supportedInterfaces[0]?.url ?? '' };
}

/** A card for an agent that has no card file, built from its configuration. */
export function cardFromConfig(options: { name: string; description: string; version: string; url: string; streaming?: boolean }): AgentCard {
  return parseAgentCard({
    name: options.name,
    description: options.description,
    url: options.url,
    version: options.version,
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false },
    skills: [],
  })[0];
}
