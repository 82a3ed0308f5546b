import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/**
 * Request bodies of the OpenAI-compatible API (`/v1`), as Ollama serves it.
 * Fields this server cannot honour are refused with a 400 naming them
 * rather than ignored; `null` means "not set" (dropped before parsing).
 */

const ContentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

/** A tool call in an assistant message sent back; `arguments` is a JSON string. */
const OpenAiToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function').default('function'),
  function: z.object({ name: z.string().min(1), arguments: z.string().default('{}') }),
});

export const OpenAiMessageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool']),
  // An assistant message with only tool calls has no content.
  content: z.union([z.string(), z.array(ContentPartSchema)]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(OpenAiToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
});

/** A tool offered to the model. */
export const OpenAiToolSchema = z.object({
  type: z.literal('function', { error: "only tools of type 'function' are supported" }),
  function: z.object({
    name: z.string().min(1, 'a tool needs a function name'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().optional(),
  }),
});

/** `tool_choice`: `auto`, `none`, `required`, or one named function. */
export const ToolChoiceSchema = z.union([
  z.enum(['auto', 'none', 'required']),
  z.object({ type: z.literal('function'), function: z.object({ name: z.string().min(1) }) }),
]);
export type OpenAiMessage = z.infer<typeof OpenAiMessageSchema>;

const notSupported = (what: string) => `${what} is not supported by this server`;

/** Sampling and streaming fields shared by `/v1/chat/completions` and `/v1/completions`. */
const SamplingFields = {
  model: z.string().min(1, 'model is required'),
  stream: z.boolean().default(false),
  stream_options: z.object({ include_usage: z.boolean().optional() }).optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_tokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  n: z.literal(1, { error: `n other than 1: ${notSupported('more than one choice')}` }).optional(),
  user: z.string().optional(),
};

export const ResponseFormatSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    json_schema: z.object({
      name: z.string().optional(),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().optional(),
    }),
  }),
]);

/** `POST /v1/chat/completions` body. */
export const ChatCompletionRequestSchema = z.object({
  ...SamplingFields,
  messages: z.array(OpenAiMessageSchema).min(1, 'messages must hold at least one message'),
  max_completion_tokens: z.number().int().positive().optional(),
  response_format: ResponseFormatSchema.optional(),
  tools: z.array(OpenAiToolSchema).optional(),
  tool_choice: ToolChoiceSchema.optional(),
  // Accepted; the model makes at most the calls it makes, in order.
  parallel_tool_calls: z.boolean().optional(),
  logprobs: z.literal(false, { error: notSupported('logprobs') }).optional(),
  top_logprobs: z.literal(0, { error: notSupported('top_logprobs') }).optional(),
});
export type ChatCompletionRequest = z.infer<typeof ChatCompletionRequestSchema>;

/** `POST /v1/completions` body: one prompt, run through the model's chat template as Ollama does. */
export const CompletionRequestSchema = z.object({
  ...SamplingFields,
  prompt: z.union([z.string(), z.tuple([z.string()], { error: 'prompt must be a string or an array of one string' })]),
  suffix: z.literal('', { error: notSupported('suffix') }).optional(),
  echo: z.literal(false, { error: notSupported('echo') }).optional(),
  best_of: z.literal(1, { error: `best_of other than 1: ${notSupported('more than one choice')}` }).optional(),
  logprobs: z.literal(0, { error: notSupported('logprobs') }).optional(),
});
export type CompletionRequest = z.infer<typeof CompletionRequestSchema>;

/** `POST /v1/embeddings` body. */
export const EmbeddingRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  input: z.union([z.string(), z.array(z.string()).min(1, 'input must not be an empty array')], {
    error: 'input must be a string or an array of strings (token arrays are not supported)',
  }),
  encoding_format: z.enum(['float', 'base64']).default('float'),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});
export type EmbeddingRequest = z.infer<typeof EmbeddingRequestSchema>;

/** The `type` of an OpenAI error object for an HTTP status. */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 404 || status === 400 || status === 413) return 'invalid_request_error';
  if (status === 503) return 'server_error';
  return 'api_error';
}

/** OpenAI's error object; `param` names the request field at fault. */
export function openAiError(e: { status: number; message: string; param?: string | null; code?: string | null }) {
  return { error: { message: e.message, type: openAiErrorType(e.status), param: e.param ?? null, code: e.code ?? null } };
}

/** A random id for a reply or a tool call, after its prefix (`chatcmpl-`, `call_`, `resp_`, `toolu_`). */
export function randomId(): string {
  return randomUUID().replace(/-/g, '').slice(0, 24);
}

/** A vector as OpenAI's `encoding_format: "base64"`: little-endian float32 bytes in base64. */
export function base64Embedding(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((x, i) => bytes.writeFloatLE(x, i * 4));
  return bytes.toString('base64');
}
