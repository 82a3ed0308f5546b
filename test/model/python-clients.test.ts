import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { venvPython } from '../support/python-venv.js';
import { defaultEmbeddingStore, defaultModelStore } from './support/default-model.js';

/**
 * The official Python clients against the model server with the real models:
 * `ollama` on /api, `openai` on /v1, LangChain's `langchain-ollama` on /api and
 * `langchain-openai` on /v1. `.ci/run` installs them (pinned) into
 * `.venv-model` and sets FRAMEWORK_MODEL_PYTHON to its python; locally:
 *
 *   FRAMEWORK_MODEL_PYTHON=.venv-model/bin/python npx vitest run test/model/python-clients.test.ts
 *
 * In CI (CI=true) a missing FRAMEWORK_MODEL_PYTHON fails the test; elsewhere it is skipped.
 */
const python = venvPython({
  env: 'FRAMEWORK_MODEL_PYTHON',
  setup:
    'python3 -m venv .venv-model && .venv-model/bin/pip install openai==3.57.0 ollama==0.6.3 langchain-ollama==1.1.0 langchain-openai==1.7.4 anthropic==2.15.0 openai-agents==0.24.0',
});
const SCRIPT = fileURLToPath(new URL('./support/python_clients.py', import.meta.url));

type Results = Record<string, Record<string, unknown>>;

describe.skipIf(!python)('the official Python model clients against the model server', () => {
  let server: RunningModelServer;
  let results: Results;

  beforeAll(async () => {
    const { store } = await defaultModelStore();
    await defaultEmbeddingStore();
    server = await startModelServer({ store, host: '127.0.0.1', port: 0 });
    // One run of the script for all the checks: it starts Python and the clients once.
    const { stdout } = await promisify(execFile)(python!, [SCRIPT, server.url], {
      timeout: 400_000,
      maxBuffer: 16 * 1024 * 1024,
      env: { PATH: process.env.PATH ?? '' },
    });
    results = JSON.parse(stdout) as Results;
  }, 420_000);

  afterAll(async () => {
    await server?.close();
  });

  /** One check's result; a check that raised shows its error in the assertion message. */
  const result = (name: string) => {
    const value = results[name];
    expect(value, `${name} did not run`).toBeDefined();
    expect(value!.error, `${name}: ${String(value!.error)}\n${String(value!.trace)}`).toBeUndefined();
    return value!;
  };

  it('ollama: chat (greedy: streamed gives the same text), embed and list', () => {
    const chat = result('ollama_chat');
    expect(String(chat.content).length).toBeGreaterThan(0);
    expect(chat.eval_count).toBeLessThanOrEqual(8);
    expect(chat.streamed_text).toBe(chat.content);
    expect(chat.streamed_parts).toBeGreaterThan(1);
    const embed = result('ollama_embed_list');
    expect(embed).toMatchObject({ count: 2, dimensions: 384 });
    expect(embed.models).toEqual(expect.arrayContaining(['smollm2:latest', 'all-minilm:latest']));
  });

  it('openai: chat completion with usage', () => {
    const chat = result('openai_chat');
    expect(chat).toMatchObject({ object: 'chat.completion', role: 'assistant', finish_reason: expect.stringMatching(/^(stop|length)$/) });
    expect(String(chat.content).length).toBeGreaterThan(0);
    expect(chat.completion_tokens).toBeGreaterThan(0);
    expect(chat.completion_tokens).toBeLessThanOrEqual(8);
    expect(chat.prompt_tokens).toBeGreaterThan(0);
  });

  it('openai: streamed chat with the usage chunk', () => {
    const stream = result('openai_stream');
    expect(stream.chunks).toBeGreaterThan(1);
    expect(String(stream.text).length).toBeGreaterThan(0);
    expect(stream.finish_reason).toBe('length');
    expect(stream.completion_tokens).toBe(8);
  });

  it('openai: response_format json_schema parsed into a pydantic model', () => {
    const parsed = result('openai_json_schema');
    expect(parsed.parsed).toEqual({ city: expect.any(String), country: expect.any(String) });
  });

  it('openai: embeddings as float and as the default base64, decoded alike', () => {
    const embeddings = result('openai_embeddings');
    expect(embeddings).toMatchObject({ count: 2, dimensions: 384, default_equals_float: true });
    // all-MiniLM-L6-v2's published figure for this pair.
    expect(embeddings.cosine).toBeCloseTo(0.7553, 3);
  });

  it('openai: models list and retrieve, and an unknown model as NotFoundError', () => {
    const models = result('openai_models');
    expect(models.ids).toEqual(expect.arrayContaining(['smollm2:latest', 'all-minilm:latest']));
    expect(models).toMatchObject({ retrieved: 'smollm2:latest', object: 'model', owned_by: 'library' });
    expect(result('openai_unknown_model')).toEqual({ type: 'NotFoundError', status: 404, code: 'model_not_found' });
  });

  it('langchain-ollama: ChatOllama invoke and stream', () => {
    const invoked = result('langchain_ollama_invoke');
    expect(invoked).toMatchObject({ type: 'ai', done_reason: expect.stringMatching(/^(stop|length)$/) });
    expect(String(invoked.content).length).toBeGreaterThan(0);
    const streamed = result('langchain_ollama_stream');
    expect(streamed.chunks).toBeGreaterThan(1);
    expect(String(streamed.text).length).toBeGreaterThan(0);
  });

  it('langchain-ollama: OllamaEmbeddings embed_documents and embed_query', () => {
    expect(result('langchain_ollama_embeddings')).toEqual({ documents: 2, dimensions: 384, query_dimensions: 384, query_matches_document: true });
  });

  it('langchain-openai: ChatOpenAI invoke and stream', () => {
    const invoked = result('langchain_openai_invoke');
    expect(invoked).toMatchObject({ type: 'ai', finish_reason: expect.stringMatching(/^(stop|length)$/) });
    expect(String(invoked.content).length).toBeGreaterThan(0);
    const streamed = result('langchain_openai_stream');
    expect(streamed.chunks).toBeGreaterThan(1);
    expect(String(streamed.text).length).toBeGreaterThan(0);
  });
});
