import { readFile } from 'node:fs/promises';
import type { AgentCard, AgentSkill } from '@a2a-js/sdk';
import { z } from 'zod';
import { AgentCardError } from './errors/agent-card-error.js';
import { findSecretField } from '../core/secret-fields.js';
import type { AgentRef } from './validation-input.js';

/** The A2A protocol version our endpoint serves, and the older one it also answers (the SDK's compatibility layer). */
export const A2A_PROTOCOL_VERSION = '1.0';
export const A2A_LEGACY_PROTOCOL_VERSION = '0.3';
/** The two bindings our endpoint serves: JSON-RPC at the card's URL, HTTP+JSON (REST) under it at `rest`. */
export const A2A_PROTOCOL_BINDING = 'JSONRPC';
export const A2A_REST_BINDING = 'HTTP+JSON';
export const A2A_GRPC_BINDING = 'GRPC';

/**
 * Bare words older cards (and the spec's card files) use for modes, and the
 * media types A2A defines them as (`defaultInputModes` are MIME types).
 */
const MODE_MEDIA_TYPES: Readonly<Record<string, string>> = {
  text: 'text/plain',
  data: 'application/json',
  json: 'application/json',
  file: 'application/octet-stream',
};

/** What our executor reads and writes: text parts and JSON data parts. */
export const DEFAULT_MODES: readonly string[] = ['text/plain', 'application/json'];

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

/** A media type (`type/subtype`), or a bare word of `MODE_MEDIA_TYPES` turned into one. */
const mediaType = z
  .string({ error: 'must be a string' })
  .trim()
  .transform((mode) => MODE_MEDIA_TYPES[mode.toLowerCase()] ?? mode)
  .pipe(z.string().regex(/^[\w.+-]+\/[\w.+*-]+$/, 'must be a media type such as text/plain or application/json'));

/** A list of modes without duplicates (`text` and `text/plain` are the same mode). */
const modeList = z.array(mediaType, { error: 'must be an array of media types' }).transform((modes) => [...new Set(modes)]);

const SkillSchema = z.looseObject({
  id: z.string().min(1).optional(),
  name: z.string({ error: 'must be a string' }).min(1, 'must not be empty'),
  description: z.string({ error: 'must be a string' }).optional(),
  tags: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
  examples: z.array(z.string(), { error: 'must be an array of strings' }).optional(),
  inputModes: modeList.optional(),
  outputModes: modeList.optional(),
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
  defaultInputModes: modeList.optional(),
  defaultOutputModes: modeList.optional(),
  provider: z.object({ organization: z.string(), url: z.string() }).optional(),
  documentationUrl: z.string().optional(),
  /** A v0.3 card's protocol version: `0.3.x` marks a peer that speaks A2A 0.3 only (older SDKs). */
  protocolVersion: z
    .string()
    .regex(/^\d+\.\d+(\.\d+)?$/, 'must be a protocol version such as 0.3.0 or 1.0')
    .optional(),
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
  'protocolVersion',
]);

/** Card fields A2A does not define, kept beside the card; `file` is where it was read from. */
export interface AgentCardMeta {
  readonly file: string | undefined;
  readonly extra: Readonly<Record<string, unknown>>;
}

/**
 * The URL of the HTTP+JSON (REST) binding beside the JSON-RPC endpoint at
 * `rpcUrl`: the same path with `rest` appended (`http://h:8101/` →
 * `http://h:8101/rest`, `http://h/rpc/` → `http://h/rpc/rest`).
 */
export function restUrlFor(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/rest`;
  return url.toString();
}

/**
 * The interfaces our endpoint serves when its JSON-RPC URL is `url`:
 * JSON-RPC and HTTP+JSON in protocol 1.0, and JSON-RPC in 0.3 at the same
 * URL (a request without `A2A-Version`, or with 0.3, is answered by the
 * SDK's v0.3 compatibility layer), and HTTP+JSON in 0.3 at the same URL
 * (its routes are under `/v1/`). A 1.0 client picks the first.
 */
export function interfacesFor(url: string): AgentCard['supportedInterfaces'] {
  const rest = restUrlFor(url);
  return [
    { url, protocolBinding: A2A_PROTOCOL_BINDING, tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    { url: rest, protocolBinding: A2A_REST_BINDING, tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    { url, protocolBinding: A2A_PROTOCOL_BINDING, tenant: '', protocolVersion: A2A_LEGACY_PROTOCOL_VERSION },
    { url, protocolBinding: A2A_REST_BINDING, tenant: '', protocolVersion: A2A_LEGACY_PROTOCOL_VERSION },
  ];
}

/** The interface of a peer whose card file says `protocolVersion: "0.3.x"`: v0.3 JSON-RPC only, called through the SDK's compatibility layer. */
function legacyInterfaces(url: string): AgentCard['supportedInterfaces'] {
  return [{ url, protocolBinding: A2A_PROTOCOL_BINDING, tenant: '', protocolVersion: A2A_LEGACY_PROTOCOL_VERSION }];
}

/**
 * Turns the spec's card file format into an A2A AgentCard for the SDK (the
 * interfaces of `interfacesFor(url)`, or v0.3 JSON-RPC only when the file
 * says `protocolVersion: "0.3.x"`) and the leftover fields. Modes are
 * media types: the bare words `text`, `data`/`json` and `file` become
 * `text/plain`, `application/json` and `application/octet-stream`.
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
  const modes = file.defaultInputModes ?? [...DEFAULT_MODES];
  const card: AgentCard = {
    name: file.name,
    description: file.description,
    supportedInterfaces: file.protocolVersion?.startsWith('0.') ? legacyInterfaces(file.url) : interfacesFor(file.url),
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
    skills: file.skills.length > 0 ? file.skills.map((skill, index) => toSkill(skill, index)) : [wholeAgentSkill(file)],
    signatures: [],
  };
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(file)) if (!A2A_FIELDS.has(key)) extra[key] = value;
  return [card, { file: options.file, extra }];
}

function toSkill(skill: z.infer<typeof SkillSchema>, index: number): AgentSkill {
  const id = skill.id ?? (snakeWord(skill.name) || `skill_${index + 1}`);
  return {
    id,
    name: skill.name,
    // The 1.0 proto marks a skill's description and tags REQUIRED: a card file may leave them out, the served card
    // says the skill's name and tags it with its id.
    description: skill.description || skill.name,
    tags: skill.tags && skill.tags.length > 0 ? skill.tags : [id],
    examples: skill.examples ?? [],
    inputModes: skill.inputModes ?? [],
    outputModes: skill.outputModes ?? [],
    securityRequirements: [],
  };
}

/**
 * The skill a card with none is served with: the agent as a whole. The 1.0
 * proto requires at least one skill (`skills` is REQUIRED, and the TCK
 * refuses an empty list); a card file or a configuration that names none
 * still describes what the agent does, in its name and description.
 */
function wholeAgentSkill(file: { name: string; description: string }): AgentSkill {
  const id = snakeWord(file.name) || 'agent';
  return {
    id,
    name: file.name,
    description: file.description || file.name,
    tags: [id],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  };
}

function snakeWord(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
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

/** The URL of a card's JSON-RPC endpoint (its first JSON-RPC interface, else its first). */
export function cardUrl(card: AgentCard): string {
  const url = (card.supportedInterfaces.find((i) => i.protocolBinding === A2A_PROTOCOL_BINDING) ?? card.supportedInterfaces[0])?.url;
  if (!url) throw new AgentCardError({ file: card.name, field: 'url', message: `Agent card "${card.name}" has no endpoint URL.` });
  return url;
}

/** What policies see of a card: name, description, url. */
export function cardRef(card: AgentCard): AgentRef {
  return { name: card.name, description: card.description, url: card.supportedInterfaces[0]?.url ?? '' };
}

/** A card for an agent that has no card file, built from its configuration. */
export function cardFromConfig(options: {
  name: string;
  description: string;
  version: string;
  url: string;
  streaming?: boolean;
  pushNotifications?: boolean;
}): AgentCard {
  return parseAgentCard({
    name: options.name,
    description: options.description,
    url: options.url,
    version: options.version,
    capabilities: { streaming: options.streaming ?? true, pushNotifications: options.pushNotifications ?? false },
    skills: [],
  })[0];
}
