import { z } from 'zod';

/** The spec's LLM_CONFIG: which runtime, which model, how to reach it. */
export const LlmConfigSchema = z.object({
  provider: z.enum(['ollama', 'openai']),
  model: z.string().min(1, 'model must be a non-empty string'),
  temperature: z.number().min(0).max(2).optional(),
  /** Address of the runtime; for `ollama` falls back to OLLAMA_HOST, for `openai` to OPENAI_BASE_URL. */
  base_url: z.url().optional(),
  /** Bearer key for `openai`-compatible servers; falls back to OPENAI_API_KEY. */
  api_key: z.string().optional(),
});

export type LlmConfig = z.infer<typeof LlmConfigSchema>;
