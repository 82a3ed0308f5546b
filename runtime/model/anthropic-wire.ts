import { z } from 'zod';

/**
 * Request body of Anthropic's Messages API (`POST /v1/messages`) as Ollama
 * serves it. What no model here can honour (images, documents, thinking,
 * server tools) is refused with a 400 naming it; `null` means "not set".
 */

const notSupported = (what: string) => `${what} is not supported by this server`;

const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() });

/** One content block of a message, checked by its `type` where it is read. */
export const AnthropicBlockSchema = z.looseObject({ type: z.string() });

export const AnthropicTextBlockSchema = TextBlockSchema;

export const AnthropicToolUseBlockSchema = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown().default({}),
});

export const AnthropicToolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(AnthropicBlockSchema)]).default(''),
  is_error: z.boolean().optional(),
});

export const AnthropicMessageSchema = z.object({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(AnthropicBlockSchema)]),
});

/** A client tool; server tools (web search, code execution, …) have a versioned `type` and are refused. */
export const AnthropicToolSchema = z.object({
  type: z.literal('custom', { error: 'only client tools (with an input_schema) are supported: this server runs no server tools' }).optional(),
  name: z.string().min(1, 'a tool needs a name'),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown(), { error: 'a tool needs an input_schema object' }),
  cache_control: z.unknown().optional(),
});

export const AnthropicToolChoiceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }),
  z.object({ type: z.literal('none') }),
]);

/** `POST /v1/messages` body. */
export const AnthropicRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  max_tokens: z.number({ error: 'max_tokens is required' }).int().positive(),
  messages: z.array(AnthropicMessageSchema),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))]).optional(),
  tools: z.array(AnthropicToolSchema).optional(),
  tool_choice: AnthropicToolChoiceSchema.optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().default(false),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().min(0).optional(),
  metadata: z.looseObject({ user_id: z.string().optional() }).optional(),
  service_tier: z.string().optional(),
  thinking: z.looseObject({ type: z.literal('disabled', { error: `thinking: ${notSupported('extended thinking')}; no model here thinks` }) }).optional(),
  container: z.undefined({ error: notSupported('container') }).optional(),
  mcp_servers: z.undefined({ error: notSupported('mcp_servers') }).optional(),
});
export type AnthropicRequest = z.infer<typeof AnthropicRequestSchema>;

/** Anthropic's error `type` for an HTTP status. */
export function anthropicErrorType(status: number): string {
  if (status === 400) return 'invalid_request_error';
  if (status === 401) return 'authentication_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 503) return 'overloaded_error';
  return 'api_error';
}

/** Anthropic's error body. */
export function anthropicError(status: number, message: string) {
  return { type: 'error', error: { type: anthropicErrorType(status), message } };
}
