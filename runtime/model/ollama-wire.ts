import { z } from 'zod';
import { ModelRequestError } from './model-request-error.js';

/**
 * Request bodies of Ollama's API. Every field Ollama accepts is accepted
 * here; those we do not act on are listed in docs/models.md. A JSON `null`
 * means "not set", as in Ollama (its Go decoder leaves the field at its
 * default): `withoutNulls` drops them before these schemas see the body.
 */

// Ollama decodes numbers into Go ints by truncating, so 1.0 and 1.5 are both accepted where it wants an int.
const int = z.number().transform(Math.trunc);

/**
 * `options`: Ollama's model and runner options. Those we act on are typed
 * and passed to the engine; the rest are type-checked and ignored, and
 * unknown keys are ignored (Ollama logs them and goes on).
 */
export const OllamaOptionsSchema = z
  .object({
    temperature: z.number().min(0).optional(),
    num_predict: int.optional(),
    num_ctx: int.pipe(z.number().positive()).optional(),
    seed: int.optional(),
    stop: z.union([z.string(), z.array(z.string())]).optional(),
    top_k: int.optional(),
    top_p: z.number().min(0).max(1).optional(),
    min_p: z.number().min(0).max(1).optional(),
    repeat_penalty: z.number().optional(),
    repeat_last_n: int.optional(),
    presence_penalty: z.number().optional(),
    frequency_penalty: z.number().optional(),
    // Accepted and ignored.
    num_keep: int.optional(),
    typical_p: z.number().optional(),
    penalize_newline: z.boolean().optional(),
    mirostat: int.optional(),
    mirostat_tau: z.number().optional(),
    mirostat_eta: z.number().optional(),
    tfs_z: z.number().optional(),
    num_batch: int.optional(),
    num_gpu: int.optional(),
    main_gpu: int.optional(),
    num_thread: int.optional(),
    use_mmap: z.boolean().optional(),
    use_mlock: z.boolean().optional(),
    numa: z.boolean().optional(),
    low_vram: z.boolean().optional(),
    f16_kv: z.boolean().optional(),
    vocab_only: z.boolean().optional(),
    logits_all: z.boolean().optional(),
    embedding_only: z.boolean().optional(),
  })
  .passthrough();
export type OllamaOptions = z.infer<typeof OllamaOptionsSchema>;

const FormatSchema = z.union([z.literal(''), z.literal('json'), z.record(z.string(), z.unknown())]).optional();
const KeepAliveSchema = z.union([z.string(), z.number()]).optional();
// `think`: a boolean, or a level for models that take one ("high", "medium", "low"); accepted, no model here thinks.
const ThinkSchema = z.union([z.boolean(), z.enum(['high', 'medium', 'low'])]).optional();

/** A tool call in an assistant message sent back: Ollama's `arguments` is an object (a JSON string is read too). */
export const OllamaToolCallSchema = z.object({
  id: z.string().optional(),
  function: z.object({
    index: int.optional(),
    name: z.string().min(1),
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
  }),
});

export const OllamaMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  // An assistant message carrying only tool calls has no content.
  content: z.string().default(''),
  images: z.array(z.string()).optional(),
  thinking: z.string().optional(),
  tool_calls: z.array(OllamaToolCallSchema).optional(),
  tool_name: z.string().optional(),
});
export type OllamaMessage = z.infer<typeof OllamaMessageSchema>;

/** A tool offered to the model (`tools` of `/api/chat`); the same shape as OpenAI's. */
export const OllamaToolSchema = z.object({
  type: z.literal('function').default('function'),
  function: z.object({
    name: z.string().min(1, 'a tool needs a function name'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** `POST /api/chat` body. */
export const OllamaChatRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  messages: z.array(OllamaMessageSchema).default([]),
  tools: z.array(OllamaToolSchema).optional(),
  stream: z.boolean().default(true),
  format: FormatSchema,
  options: OllamaOptionsSchema.optional(),
  keep_alive: KeepAliveSchema,
  think: ThinkSchema,
  truncate: z.boolean().optional(),
  shift: z.boolean().optional(),
});
export type OllamaChatRequest = z.infer<typeof OllamaChatRequestSchema>;

/** `POST /api/generate` body. */
export const OllamaGenerateRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  prompt: z.string().default(''),
  suffix: z.string().optional(),
  system: z.string().optional(),
  template: z.string().optional(),
  context: z.array(z.number()).optional(),
  raw: z.boolean().optional(),
  images: z.array(z.string()).optional(),
  stream: z.boolean().default(true),
  format: FormatSchema,
  options: OllamaOptionsSchema.optional(),
  keep_alive: KeepAliveSchema,
  think: ThinkSchema,
  truncate: z.boolean().optional(),
  shift: z.boolean().optional(),
});
export type OllamaGenerateRequest = z.infer<typeof OllamaGenerateRequestSchema>;

/** `POST /api/show` body (`name` is the older spelling). */
export const OllamaShowRequestSchema = z
  .object({ model: z.string().optional(), name: z.string().optional(), verbose: z.boolean().optional() })
  .refine((b) => Boolean(b.model || b.name), 'model is required');

/** `POST /api/embed` body; no `input` just loads the model. */
export const OllamaEmbedRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  input: z.union([z.string(), z.array(z.string())]).optional(),
  truncate: z.boolean().default(true),
  dimensions: int.pipe(z.number().positive()).optional(),
  options: OllamaOptionsSchema.optional(),
  keep_alive: KeepAliveSchema,
});
export type OllamaEmbedRequest = z.infer<typeof OllamaEmbedRequestSchema>;

/** `POST /api/embeddings` body (the older, one-prompt endpoint). */
export const OllamaEmbeddingsRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  prompt: z.string().default(''),
  options: OllamaOptionsSchema.optional(),
  keep_alive: KeepAliveSchema,
});

/** `POST /api/pull` body (`name` is the older spelling; `insecure` is accepted and has no effect). */
export const OllamaPullRequestSchema = z
  .object({ model: z.string().optional(), name: z.string().optional(), insecure: z.boolean().optional(), stream: z.boolean().default(true) })
  .refine((b) => Boolean(b.model || b.name), 'model is required');

/** Keys under which a JSON `null` is data (a JSON schema may say `"const": null`; tool call arguments), not "not set". */
const OPAQUE_KEYS = new Set(['format', 'response_format', 'tools', 'schema', 'arguments']);

/**
 * The parsed body with every `null` object property removed (except inside
 * `format`, `response_format` and `tools`), so a client that sends
 * `"keep_alive": null` or `"options": {"mirostat": null}` gets the
 * defaults, as from Ollama. Array items are kept as they are.
 */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item !== null && typeof item === 'object' ? withoutNulls(item) : item));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === null) continue;
    out[key] = OPAQUE_KEYS.has(key) ? item : withoutNulls(item);
  }
  return out;
}

/**
 * Refuses, with Ollama's 400 and wording where it has one, what no model
 * here can do: thinking, images, insertion (`suffix`), rather than answering
 * as if it had been done. `template` (a Go template) and `context` (another
 * server's token ids) cannot be honoured either. Empty values pass.
 */
export function refuseUnsupported(
  model: string,
  body: Partial<Pick<OllamaGenerateRequest, 'think' | 'images' | 'suffix' | 'template' | 'context'>> & {
    messages?: ReadonlyArray<{ images?: string[] | undefined }>;
  },
): void {
  const refuse = (message: string) => {
    throw new ModelRequestError({ status: 400, message });
  };
  if (body.think !== undefined && body.think !== false) refuse(`"${model}" does not support thinking`);
  if (body.images?.length || body.messages?.some((m) => m.images?.length)) refuse(`"${model}" does not support image input`);
  if (body.suffix) refuse(`"${model}" does not support insert`);
  if (body.template) refuse("template is not supported by this server: the model's own chat template is used");
  if (body.context?.length) refuse('context is not supported by this server: send the conversation as /api/chat messages');
}
