import { z } from 'zod';

/** The `options` of Ollama requests that we honour; others are accepted and ignored. */
export const OllamaOptionsSchema = z
  .object({
    temperature: z.number().min(0).optional(),
    num_predict: z.number().int().optional(),
    num_ctx: z.number().int().positive().optional(),
    seed: z.number().int().optional(),
    stop: z.union([z.string(), z.array(z.string())]).optional(),
    top_k: z.number().int().positive().optional(),
    top_p: z.number().min(0).max(1).optional(),
    min_p: z.number().min(0).max(1).optional(),
  })
  .passthrough();

const FormatSchema = z.union([z.literal(''), z.literal('json'), z.record(z.string(), z.unknown())]).optional();

export const OllamaMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  images: z.array(z.string()).optional(),
});

/** `POST /api/chat` body. */
export const OllamaChatRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  messages: z.array(OllamaMessageSchema).default([]),
  stream: z.boolean().default(true),
  format: FormatSchema,
  options: OllamaOptionsSchema.optional(),
  keep_alive: z.union([z.string(), z.number()]).optional(),
});
export type OllamaChatRequest = z.infer<typeof OllamaChatRequestSchema>;

/** `POST /api/generate` body. */
export const OllamaGenerateRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  prompt: z.string().default(''),
  system: z.string().optional(),
  stream: z.boolean().default(true),
  format: FormatSchema,
  options: OllamaOptionsSchema.optional(),
  keep_alive: z.union([z.string(), z.number()]).optional(),
});
export type OllamaGenerateRequest = z.infer<typeof OllamaGenerateRequestSchema>;

/** `POST /api/show` body (`name` is the older spelling). */
export const OllamaShowRequestSchema = z
  .object({ model: z.string().optional(), name: z.string().optional() })
  .refine((b) => Boolean(b.model || b.name), 'model is required');

/** `POST /api/embed` body; no `input` just loads the model. */
export const OllamaEmbedRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  input: z.union([z.string(), z.array(z.string())]).optional(),
  truncate: z.boolean().default(true),
  options: OllamaOptionsSchema.optional(),
  keep_alive: z.union([z.string(), z.number()]).optional(),
});
export type OllamaEmbedRequest = z.infer<typeof OllamaEmbedRequestSchema>;

/** `POST /api/embeddings` body (the older, one-prompt endpoint). */
export const OllamaEmbeddingsRequestSchema = z.object({
  model: z.string().min(1, 'model is required'),
  prompt: z.string().default(''),
  options: OllamaOptionsSchema.optional(),
  keep_alive: z.union([z.string(), z.number()]).optional(),
});

/** `POST /api/pull` body (`name` is the older spelling; `insecure` is accepted and has no effect). */
export const OllamaPullRequestSchema = z
  .object({ model: z.string().optional(), name: z.string().optional(), insecure: z.boolean().optional(), stream: z.boolean().default(true) })
  .refine((b) => Boolean(b.model || b.name), 'model is required');
