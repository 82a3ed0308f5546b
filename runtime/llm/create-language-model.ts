import type { Env } from '../core/config.js';
import { ConfigError } from '../core/errors/config-error.js';
import { LlmConfigSchema, type LlmConfig } from '../core/llm-config.js';
import type { LanguageModel } from './language-model.js';
import { OllamaLanguageModel } from './ollama-provider.js';
import { OpenAiLanguageModel } from './openai-provider.js';
import { tracedLanguageModel } from './traced-language-model.js';

/**
 * Validates an `llmConfig` given in code. A bad one throws `ConfigError`
 * whose issues name the fields, e.g. `llmConfig.temperature`.
 */
export function parseLlmConfig(value: unknown): LlmConfig {
  const parsed = LlmConfigSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new ConfigError({
    context: 'Invalid llmConfig',
    issues: parsed.error.issues.map((issue) => ({
      variable: ['llmConfig', ...issue.path.map(String)].join('.'),
      message: issue.message,
    })),
  });
}

/**
 * The provider an `llmConfig` names. Addresses and keys not in the config
 * come from the environment now, at call time (`OLLAMA_HOST`,
 * `OPENAI_BASE_URL`, `OPENAI_API_KEY`).
 *
 * @example
 * const model = createLanguageModel({ provider: 'ollama', model: 'smollm2' });
 * const { text } = await model.chat({ model: 'smollm2', messages: [{ role: 'user', content: 'Hi' }] });
 */
export function createLanguageModel(llmConfig: LlmConfig, options: { env?: Env } = {}): LanguageModel {
  const config = parseLlmConfig(llmConfig);
  switch (config.provider) {
    // Each call a GenAI span when tracing is on.
    case 'ollama':
      return tracedLanguageModel(new OllamaLanguageModel({ baseUrl: config.base_url, env: options.env }));
    case 'openai':
      return tracedLanguageModel(new OpenAiLanguageModel({ baseUrl: config.base_url, apiKey: config.api_key, env: options.env }));
    default: {
      const unknown: never = config.provider;
      throw new ConfigError({
        context: 'Invalid llmConfig',
        issues: [{ variable: 'llmConfig.provider', message: `unknown provider ${String(unknown)}` }],
      });
    }
  }
}
