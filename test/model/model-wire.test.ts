import { describe, expect, it } from 'vitest';
import { ModelRequestError } from '../../runtime/model/model-request-error.js';
import { OllamaChatRequestSchema, OllamaOptionsSchema, refuseUnsupported, withoutNulls } from '../../runtime/model/ollama-wire.js';
import { base64Embedding, ChatCompletionRequestSchema, EmbeddingRequestSchema } from '../../runtime/model/openai-wire.js';

// The request schemas alone: no sockets, no model.
describe('withoutNulls', () => {
  it('drops null properties at every depth, but keeps nulls inside a format or response_format schema', () => {
    const body = {
      model: 'm',
      keep_alive: null,
      options: { temperature: null, stop: null, top_k: 3 },
      messages: [{ role: 'user', content: 'hi', images: null }, null],
      format: { type: 'object', properties: { x: { const: null } } },
      response_format: { type: 'json_schema', json_schema: { schema: { default: null } } },
    };
    expect(withoutNulls(body)).toEqual({
      model: 'm',
      options: { top_k: 3 },
      messages: [{ role: 'user', content: 'hi' }, null],
      format: { type: 'object', properties: { x: { const: null } } },
      response_format: { type: 'json_schema', json_schema: { schema: { default: null } } },
    });
  });
});

describe('Ollama request schemas', () => {
  it('truncate integer options as Ollama does, and refuse a wrong type', () => {
    expect(OllamaOptionsSchema.parse({ num_predict: 4.7, seed: 3.2, mirostat: 0, unknown_option: 'x' })).toMatchObject({ num_predict: 4, seed: 3 });
    expect(OllamaOptionsSchema.safeParse({ temperature: 'hot' }).success).toBe(false);
    expect(OllamaOptionsSchema.safeParse({ use_mmap: 1 }).success).toBe(false);
  });

  it('default a missing message content to empty, and stream to true', () => {
    const parsed = OllamaChatRequestSchema.parse({ model: 'm', messages: [{ role: 'assistant' }] });
    expect(parsed).toMatchObject({ stream: true, messages: [{ role: 'assistant', content: '' }] });
  });

  it('refuse thinking, images and insert, and let their empty values pass', () => {
    expect(() => refuseUnsupported('m', { think: false, images: [], suffix: '', template: '', context: [] })).not.toThrow();
    for (const body of [{ think: true as const }, { images: ['x'] }, { suffix: 'x' }, { template: 'x' }, { context: [1] }, { messages: [{ images: ['x'] }] }]) {
      expect(() => refuseUnsupported('m', body)).toThrow(ModelRequestError);
    }
  });
});

describe('OpenAI request schemas', () => {
  it('refuse more than one choice and logprobs', () => {
    const base = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };
    expect(ChatCompletionRequestSchema.safeParse(base).success).toBe(true);
    expect(ChatCompletionRequestSchema.safeParse({ ...base, n: 2 }).success).toBe(false);
    expect(ChatCompletionRequestSchema.safeParse({ ...base, logprobs: true }).success).toBe(false);
    expect(ChatCompletionRequestSchema.safeParse({ ...base, messages: [] }).success).toBe(false);
  });

  it('take a string or strings as embedding input, never tokens', () => {
    expect(EmbeddingRequestSchema.parse({ model: 'm', input: 'a' })).toMatchObject({ encoding_format: 'float' });
    expect(EmbeddingRequestSchema.safeParse({ model: 'm', input: [[1, 2]] }).success).toBe(false);
  });

  it('encode a vector as little-endian float32 in base64', () => {
    const encoded = base64Embedding([1, -0.5, 0.25]);
    const bytes = Buffer.from(encoded, 'base64');
    expect(Array.from(new Float32Array(Uint8Array.from(bytes).buffer))).toEqual([1, -0.5, 0.25]);
  });
});
