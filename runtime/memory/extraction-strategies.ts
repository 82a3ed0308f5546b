import { z } from 'zod';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { InvalidModelOutputError } from '../core/errors/invalid-model-output-error.js';
import { parseJsonOrUndefined } from '../core/json.js';
import { EXTRACTION_SCHEMA, extractMemories, type ExtractedMemory, type MemoryLanguageModel } from './memory-model.js';
import type { MemoryMessage, MemoryStrategyConfig } from './memory-records.js';

/**
 * AMS's long-term memory strategies (memory_strategies.py) beside the
 * discrete one: `summary` (one summary of the conversation, at most
 * `max_summary_length` words, default 500), `preferences` (the user's
 * preferences and traits) and `custom` (the session's own
 * `custom_prompt`, a template of AMS's allowed variables). Each asks the
 * generation model with AMS's prompt, the reply held to a JSON schema.
 * Custom output is filtered as AMS filters it (no instructions or secrets,
 * at most 1,000 characters, semantic or episodic).
 */

// AMS's SummaryMemoryStrategy prompt (its example kept).
const SUMMARY_PROMPT = `You are a conversation summarizer. Your job is to create a concise summary
of the conversation that captures the key points, decisions, and important
context.

CURRENT CONTEXT:
Current date and time: {current_datetime}

Create a summary that:
1. Captures the main topics discussed
2. Records key decisions made
3. Notes important user preferences or information revealed
4. Includes relevant context that would be useful for future conversations

Maximum summary length: {max_length} words

CONTEXTUAL GROUNDING REQUIREMENTS:
- Replace all pronouns with specific names (use "User" for the application user)
- Convert relative time references to absolute dates using the current datetime
- Make all references concrete and specific

Return a JSON object with "memories": one object with type "semantic", text (the summary), topics and entities.

Conversation:
{message}

Summary:`;

// AMS's UserPreferencesMemoryStrategy prompt, its examples shortened to one.
const PREFERENCES_PROMPT = `You are a user preference extractor. Your job is to identify and extract
user preferences, settings, likes, dislikes, and personal characteristics
from conversations.

CURRENT CONTEXT:
Current date and time: {current_datetime}

Focus on extracting:
1. User preferences (likes/dislikes, preferred options)
2. User settings and configurations
3. Personal characteristics and traits
4. Work patterns and habits
5. Communication preferences
6. Technology preferences

CONTEXTUAL GROUNDING REQUIREMENTS:
- Replace all pronouns with "User" for the application user
- Convert relative time references to absolute dates
- Make all references concrete and specific

For each preference return type "semantic", text (the preference statement), topics and entities, e.g.
{"memories": [{"type": "semantic", "text": "User prefers email notifications over SMS", "topics": ["preferences", "communication"], "entities": ["User", "email", "SMS"]}]}

IMPORTANT RULES:
1. Only extract clear, actionable preferences
2. Avoid extracting temporary states or one-time decisions
3. Focus on patterns and recurring preferences
4. Always use "User" for the application user
5. If no clear preferences are found, return an empty memories list

Message:
{message}

Extracted preferences:`;

/** The variables a custom prompt may use (AMS's `allowed_vars`), plus the strategy config's own keys. */
const CUSTOM_VARIABLES = ['message', 'current_datetime', 'session_id', 'namespace', 'user_id', 'model_name', 'context', 'topics', 'entities'];
const PLACEHOLDER = /\{\{|\}\}|\{([^{}]*)\}/g;
/** AMS's `_validate_memory_output`: custom memories mentioning these are dropped. */
const SUSPICIOUS = [
  'system',
  'instruction',
  'ignore',
  'override',
  'execute',
  'eval',
  'import',
  '__',
  'subprocess',
  'os.system',
  'api_key',
  'secret',
  'password',
  'token',
  'credential',
  'private_key',
];

const invalid = (message: string) => new BadRequestError({ code: 'invalid_request', message });

/** The custom prompt's placeholders, each a plain allowed name (no `{a.b}`, `{a[0]}`, `{a!r}`, `{a:>9}`), else a 400. */
function customPlaceholders(template: string, config: Record<string, unknown>): void {
  const allowed = new Set([...CUSTOM_VARIABLES, ...Object.keys(config)]);
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1];
    if (name === undefined) continue;
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || !allowed.has(name)) {
      throw invalid(
        `long_term_memory_strategy.config.custom_prompt: the placeholder {${name}} is not allowed; use ${[...allowed].map((v) => `{${v}}`).join(', ')}`,
      );
    }
  }
}

/**
 * Refuses a strategy that cannot run: `custom` without a `custom_prompt`
 * string or with a placeholder AMS does not allow, a `summary` whose
 * `max_summary_length` is not a positive whole number.
 */
export function validateStrategy(strategy: MemoryStrategyConfig): void {
  const { config } = strategy;
  if (strategy.strategy === 'custom') {
    if (typeof config.custom_prompt !== 'string' || config.custom_prompt.trim() === '') {
      throw invalid('long_term_memory_strategy.config.custom_prompt is required for the custom strategy (a prompt template using {message})');
    }
    customPlaceholders(config.custom_prompt, config);
  }
  if (strategy.strategy === 'summary' && config.max_summary_length !== undefined) {
    const length = config.max_summary_length;
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 1)
      throw invalid('long_term_memory_strategy.config.max_summary_length must be a positive whole number of words');
  }
}

/** Fills `{name}` placeholders (`{{`/`}}` are literal braces, as Python's format). */
function fill(template: string, values: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (whole, name: string | undefined) => {
    if (name === undefined) return whole === '{{' ? '{' : '}';
    const value = values[name];
    return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  });
}

const StrategyReplySchema = z.object({
  memories: z.array(
    z.object({
      type: z.string().optional(),
      text: z.unknown(),
      topics: z.unknown().optional(),
      entities: z.unknown().optional(),
    }),
  ),
});

/** The memories a strategy extracts from `messages` (AMS's `extract_memories` of each strategy). */
export async function extractWithStrategy(options: {
  lm: MemoryLanguageModel;
  strategy: MemoryStrategyConfig;
  messages: readonly MemoryMessage[];
  now: Date;
  session: { sessionId: string; namespace: string | null; userId: string | null };
}): Promise<ExtractedMemory[]> {
  const { lm, strategy, messages, now, session } = options;
  if (strategy.strategy === 'discrete') return extractMemories(lm, messages, now);
  const text = messages.map((m) => `${m.role}: ${m.content}`).join('\n');
  const config = strategy.config;
  const vars = { message: text, current_datetime: now.toISOString(), session_id: session.sessionId, namespace: session.namespace, user_id: session.userId };
  const maxWords = typeof config.max_summary_length === 'number' ? config.max_summary_length : 500;
  const prompt =
    strategy.strategy === 'summary'
      ? fill(SUMMARY_PROMPT, { ...vars, max_length: maxWords })
      : strategy.strategy === 'preferences'
        ? fill(PREFERENCES_PROMPT, vars)
        : fill(String(config.custom_prompt), { ...config, ...vars });
  const format =
    strategy.strategy === 'summary'
      ? {
          ...EXTRACTION_SCHEMA,
          properties: {
            memories: {
              ...EXTRACTION_SCHEMA.properties.memories,
              maxItems: 1,
              items: withTextLength(EXTRACTION_SCHEMA.properties.memories.items, maxWords * 8),
            },
          },
        }
      : strategy.strategy === 'custom'
        ? {
            ...EXTRACTION_SCHEMA,
            properties: { memories: { ...EXTRACTION_SCHEMA.properties.memories, items: withTextLength(EXTRACTION_SCHEMA.properties.memories.items, 1000) } },
          }
        : EXTRACTION_SCHEMA;
  const result = await lm.model.chat({ model: lm.name, messages: [{ role: 'user', content: prompt }], format, temperature: 0 });
  const parsed = StrategyReplySchema.safeParse(parseJsonOrUndefined(result.text));
  if (!parsed.success)
    throw new InvalidModelOutputError({ message: `The model did not answer ${strategy.strategy} memories in the required JSON shape`, output: result.text });
  const memories: ExtractedMemory[] = [];
  for (const m of parsed.data.memories) {
    if (typeof m.text !== 'string' || m.text.trim() === '') continue;
    const list = (value: unknown) => (Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined);
    const topics = m.topics === undefined ? [] : list(m.topics);
    const entities = m.entities === undefined ? [] : list(m.entities);
    const type = m.type === undefined || m.type === '' ? 'semantic' : m.type;
    if (strategy.strategy === 'custom') {
      // AMS's output check for custom prompts.
      const lower = m.text.toLowerCase();
      if (SUSPICIOUS.some((p) => lower.includes(p)) || m.text.length > 1000) continue;
      if (!topics || !entities || [...topics, ...entities].some((v) => v.length > 100)) continue;
    }
    if (type !== 'semantic' && type !== 'episodic') continue;
    memories.push({ type, text: m.text.trim(), topics: tags(topics ?? []), entities: tags(entities ?? []), eventDate: null });
  }
  return memories;
}

function withTextLength<T extends { properties: { text: object } }>(items: T, maxLength: number): T {
  return { ...items, properties: { ...items.properties, text: { type: 'string', maxLength } } };
}

/** Tags as AMS sanitises them: commas become spaces, blanks dropped. */
function tags(values: readonly string[]): string[] {
  return values.map((v) => v.replace(/,/g, ' ').replace(/\s+/g, ' ').trim()).filter((v) => v !== '');
}
