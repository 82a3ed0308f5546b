import { z } from 'zod';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import { InvalidModelOutputError } from '../core/errors/invalid-model-output-error.js';
import { parseJsonOrUndefined } from '../core/json.js';
import type { LanguageModel } from '../llm/language-model.js';
import type { MemoryMessage } from './memory-records.js';

/**
 * What system memory asks a language model for, as the Agent Memory Server
 * (AMS 0.15.2) does with its generation model: query optimisation for vector
 * search, progressive summarisation of working memory that outgrows its
 * context window, and extraction of discrete memories (with topics and
 * entities) from messages, the reply constrained by a JSON schema.
 * Prompts are AMS's (config.py, memory_strategies.py), shortened where noted.
 */

/** The model the memory service uses: a runtime (our `model serve`, Ollama, or a scripted one in tests) and a model name. */
export interface MemoryLanguageModel {
  model: LanguageModel;
  name: string;
  /** The model's context window in tokens (sizes the summaries, as AMS's model config); default 8192. */
  contextTokens?: number;
}

/** AMS's `summarization_threshold`: summarise once messages pass 70 % of the context window. */
export const SUMMARIZATION_THRESHOLD = 0.7;

/**
 * Context windows of the model names AMS knows that clients commonly send
 * (`model_name`); another name is refused unless it is the memory service's
 * own model. `context_window_max` always works.
 */
export const KNOWN_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  'gpt-3.5-turbo': 4096,
  'gpt-3.5-turbo-16k': 16384,
  'gpt-4': 8192,
  'gpt-4-32k': 32768,
  'gpt-4o': 128000,
  'gpt-4o-mini': 128000,
  'gpt-4.1': 1047576,
  'gpt-4.1-mini': 1047576,
  'claude-3-opus-20240229': 200000,
  'claude-3-5-sonnet-20240620': 200000,
  'claude-3-7-sonnet-latest': 200000,
};

/**
 * Tokens of a text as AMS estimates them when tiktoken is unavailable:
 * `max(1, ceil(chars / 4))` (we have no tokenizer of the client's model).
 */
export function countTokens(text: string): number {
  return Math.max(1, Math.floor((text.length + 3) / 4));
}

/** Tokens of a message as AMS counts them: `"role: content"`. */
export function messageTokens(message: Pick<MemoryMessage, 'role' | 'content'>): number {
  return countTokens(`${message.role}: ${message.content}`);
}

/**
 * AMS's `_get_effective_token_limit`: `context_window_max` when given, else
 * the window of `model_name`; undefined when neither is given.
 */
export function tokenLimit(options: {
  modelName?: string | undefined;
  contextWindowMax?: number | undefined;
  own?: MemoryLanguageModel | undefined;
}): number | undefined {
  if (options.contextWindowMax !== undefined) return options.contextWindowMax;
  if (options.modelName === undefined) return undefined;
  if (options.own && options.modelName === options.own.name) return options.own.contextTokens ?? 8192;
  const known = KNOWN_CONTEXT_WINDOWS[options.modelName];
  if (known !== undefined) return known;
  throw new BadRequestError({
    code: 'invalid_request',
    message: `model_name "${options.modelName}" is not a model whose context window this memory server knows (${[...Object.keys(KNOWN_CONTEXT_WINDOWS), ...(options.own ? [options.own.name] : [])].join(', ')}); send context_window_max instead.`,
  });
}

/** AMS's `_calculate_context_usage_percentages`: share of the window used, and of the summarisation threshold; null without a limit. */
export function contextPercentages(messages: readonly MemoryMessage[], limit: number | undefined): [number | null, number | null] {
  if (limit === undefined || limit <= 0) return [null, null];
  if (messages.length === 0) return [0, 0];
  const used = messages.reduce((sum, m) => sum + messageTokens(m), 0);
  const threshold = Math.floor(limit * SUMMARIZATION_THRESHOLD);
  return [Math.min((used / limit) * 100, 100), threshold <= 0 ? 100 : Math.min((used / threshold) * 100, 100)];
}

const OPTIMIZE_PROMPT = `Transform this natural language query into an optimized version for semantic search. The goal is to make it more effective for finding semantically similar content while preserving the original intent.

Guidelines:
- Keep the core meaning and intent
- Use more specific and descriptive terms
- Remove unnecessary words like "tell me", "I want to know", "can you"
- Focus on the key concepts and topics
- Make it concise but comprehensive

Original query: {query}

Optimized query:`;

/** AMS's `min_optimized_query_length`: a shorter rewrite is ignored. */
const MIN_OPTIMIZED_LENGTH = 2;

/** The query rewritten for vector search (AMS `optimize_query`); the original when the model's answer is too short. */
export async function optimizeQuery(lm: MemoryLanguageModel, query: string): Promise<string> {
  const { text } = await lm.model.chat({ model: lm.name, messages: [{ role: 'user', content: OPTIMIZE_PROMPT.replace('{query}', query) }], temperature: 0 });
  const optimized = text.trim().split('\n')[0]!.trim();
  return optimized.length >= MIN_OPTIMIZED_LENGTH ? optimized : query;
}

// AMS's progressive summarisation prompt, without its worked example.
const SUMMARY_PROMPT = `You are a precise summarization assistant. Your task is to progressively
summarize conversation history while maintaining critical context and accuracy.

INSTRUCTIONS:
1. Build upon the previous summary by incorporating new information chronologically
2. Preserve key details: names, technical terms, code references, and important decisions
3. Maintain the temporal sequence of events and discussions
4. Keep the summary concise but complete - aim for 2-3 sentences unless more detail is crucial
5. Use neutral, factual language

Current summary:
{prev_summary}

New lines of conversation:
{messages_joined}

New summary:
`;

/**
 * AMS's `_summarize_working_memory`: when the messages pass 70 % of the
 * limit, the older ones (all but the most recent that fit in 40 % of it,
 * at least the last) are folded into `context` by the model and dropped;
 * `tokens` grows by the tokens the model used. Unchanged otherwise.
 */
export async function summarizeIfNeeded<M extends { messages: MemoryMessage[]; context: string | null; tokens: number }>(
  memory: M,
  limit: number,
  lm: MemoryLanguageModel,
): Promise<M> {
  const used = memory.messages.reduce((sum, m) => sum + messageTokens(m), 0);
  if (used <= Math.floor(limit * SUMMARIZATION_THRESHOLD)) return memory;
  const window = lm.contextTokens ?? 8192;
  const summaryTokens =
    window < 10000 ? Math.max(512, Math.floor(window / 8)) : window < 50000 ? Math.max(1024, Math.floor(window / 10)) : Math.max(2048, Math.floor(window / 20));
  const buffer = Math.min(Math.max(230, Math.floor(window / 100)), 1000);
  const maxMessageTokens = window - summaryTokens - buffer;
  const keepBudget = Math.floor(limit * 0.4);
  let keep = 0;
  let kept = 0;
  for (let i = memory.messages.length - 1; i >= 0; i--) {
    const tokens = messageTokens(memory.messages[i]!);
    if (kept + tokens > keepBudget) break;
    kept += tokens;
    keep++;
  }
  const older = keep > 0 ? memory.messages.slice(0, -keep) : memory.messages.slice(0, -1);
  const lines: string[] = [];
  let total = 0;
  for (const message of older) {
    let line = `${message.role}: ${message.content}`;
    if (countTokens(line) > maxMessageTokens) line = line.slice(0, Math.floor(maxMessageTokens / 2));
    const tokens = countTokens(line);
    if (total + tokens > maxMessageTokens) break;
    total += tokens;
    lines.push(line);
  }
  if (lines.length === 0) return memory;
  const prompt = SUMMARY_PROMPT.replace('{prev_summary}', memory.context ?? '').replace('{messages_joined}', lines.join('\n'));
  const result = await lm.model.chat({ model: lm.name, messages: [{ role: 'user', content: prompt }], temperature: 0 });
  const usedTokens = (result.usage?.promptTokens ?? countTokens(prompt)) + (result.usage?.completionTokens ?? countTokens(result.text));
  return {
    ...memory,
    context: result.text.trim(),
    messages: keep > 0 ? memory.messages.slice(-keep) : memory.messages.slice(-1),
    tokens: memory.tokens + usedTokens,
  };
}

/** The JSON schema the extraction reply must follow (sent as the chat `format`). */
export const EXTRACTION_SCHEMA = {
  type: 'object',
  properties: {
    // Bounded, so a small model cannot generate forever inside the grammar.
    memories: {
      type: 'array',
      maxItems: 5,
      items: {
        type: 'object',
        properties: {
          type: { type: 'string', enum: ['episodic', 'semantic'] },
          text: { type: 'string', maxLength: 200 },
          topics: { type: 'array', maxItems: 3, items: { type: 'string', maxLength: 40 } },
          entities: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 60 } },
        },
        required: ['type', 'text', 'topics', 'entities'],
      },
    },
  },
  required: ['memories'],
} as const;

const ExtractionSchema = z.object({
  memories: z.array(
    z.object({
      type: z.enum(['episodic', 'semantic']),
      text: z.string(),
      topics: z.array(z.string()).default([]),
      entities: z.array(z.string()).default([]),
      event_date: z.string().nullable().optional(),
    }),
  ),
});

/** One memory extracted from messages. */
export interface ExtractedMemory {
  type: 'episodic' | 'semantic';
  text: string;
  topics: string[];
  entities: string[];
  eventDate: string | null;
}

// AMS's discrete-strategy prompt, shortened (its grounding rules kept in brief).
const EXTRACTION_PROMPT = `You are a long-memory manager. Your job is to analyze text and extract
information that might be useful in future conversations with users.

Current date and time: {current_datetime}

Extract two types of memories:
1. EPISODIC: Memories about specific episodes in time. Example: "User had a bad experience on a flight to Paris in 2024"
2. SEMANTIC: User preferences and general knowledge. Example: "User prefers window seats when flying"

Resolve pronouns, relative dates and places to what they refer to; call the application user "User".
For each memory give: type ("episodic" or "semantic"), text, topics (at most 3), entities.
Only extract information genuinely useful for future interactions. Return {"memories": []} when there is none.

Message:
{message}

Extracted memories:`;

/** Tags as AMS sanitises them: commas become spaces, blanks dropped. */
const tags = (values: readonly string[]) => values.map((v) => v.replace(/,/g, ' ').replace(/\s+/g, ' ').trim()).filter((v) => v !== '');

/**
 * Discrete memories (AMS's default strategy) from messages, with topics and
 * entities, the model's reply held to `EXTRACTION_SCHEMA`. A reply that is
 * not such JSON is an `InvalidModelOutputError`.
 */
export async function extractMemories(lm: MemoryLanguageModel, messages: readonly MemoryMessage[], now: Date): Promise<ExtractedMemory[]> {
  const text = messages.map((m) => `${m.role}: ${m.content}`).join('\n');
  const result = await lm.model.chat({
    model: lm.name,
    messages: [{ role: 'user', content: EXTRACTION_PROMPT.replace('{current_datetime}', now.toISOString()).replace('{message}', text) }],
    format: EXTRACTION_SCHEMA,
    temperature: 0,
  });
  const parsed = ExtractionSchema.safeParse(parseJsonOrUndefined(result.text));
  if (!parsed.success)
    throw new InvalidModelOutputError({ message: 'The model did not answer extracted memories in the required JSON shape', output: result.text });
  return parsed.data.memories
    .filter((m) => m.text.trim() !== '')
    .map((m) => ({
      type: m.type,
      text: m.text.trim(),
      topics: tags(m.topics),
      entities: tags(m.entities),
      eventDate: m.event_date && Number.isFinite(Date.parse(m.event_date)) ? new Date(m.event_date).toISOString() : null,
    }));
}
