import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { venvPython } from '../support/python-venv.js';
import { defaultModelStore } from './support/default-model.js';

/**
 * The newest agent clients from PyPI against the model server with the real
 * default model: `openai`'s Responses API, the OpenAI Agents SDK with a
 * plain model name, `anthropic`'s Messages API, and a LangChain `@tool` with
 * an `Optional` argument. `.ci/run` installs them (pinned) into `.venv-model`
 * and sets FRAMEWORK_MODEL_PYTHON; locally:
 *
 *   FRAMEWORK_MODEL_PYTHON=.venv-model/bin/python npx vitest run test/model/python-agent-clients.test.ts
 *
 * In CI (CI=true) a missing FRAMEWORK_MODEL_PYTHON fails the test; elsewhere it is skipped.
 */
const python = venvPython({
  env: 'FRAMEWORK_MODEL_PYTHON',
  setup:
    'python3 -m venv .venv-model && .venv-model/bin/pip install openai==3.57.0 ollama==0.6.3 langchain-ollama==1.1.0 langchain-openai==1.7.4 anthropic==2.15.0 openai-agents==0.24.0',
});
const SCRIPT = fileURLToPath(new URL('./support/python_agent_clients.py', import.meta.url));

type Results = Record<string, Record<string, unknown>>;
const Weather = z.object({ city: z.string(), days: z.number().int().nullable().optional() }).strict();

describe.skipIf(!python)('the newest Python agent clients against the model server', () => {
  let server: RunningModelServer;
  let results: Results;

  beforeAll(async () => {
    const { store } = await defaultModelStore();
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

  const result = (name: string) => {
    const value = results[name];
    expect(value, `${name} did not run`).toBeDefined();
    expect(value!.error, `${name}: ${String(value!.error)}\n${String(value!.trace)}`).toBeUndefined();
    return value!;
  };

  it('openai: responses.create with text input', () => {
    const response = result('responses_text');
    expect(response).toMatchObject({ object: 'response', status: expect.stringMatching(/^(completed|incomplete)$/) });
    expect(String(response.text).length).toBeGreaterThan(0);
    expect(response.output_tokens).toBeGreaterThan(0);
    expect(response.output_tokens).toBeLessThanOrEqual(6);
  });

  it('openai: responses.stream, deltas adding up to the final text', () => {
    const stream = result('responses_stream');
    const types = stream.types as string[];
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(stream.text).toBe(stream.final_text);
  });

  it('openai: a function tool with an Optional argument and tool_choice required', () => {
    const calls = result('responses_tool_required').calls as Array<{ name: string; arguments: unknown; call_id: string }>;
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe('get_weather');
    Weather.parse(calls[0]!.arguments);
    expect(result('responses_tool_required').output_tokens).toBeGreaterThan(0);
  });

  it('openai: responses.parse with text_format (json_schema) into a pydantic model', () => {
    expect(result('responses_json_schema').parsed).toEqual({ city: expect.any(String), country: expect.any(String) });
  });

  it('OpenAI Agents SDK: a string model name runs a tool with an Optional argument, then answers', () => {
    const run = result('agents_sdk_tool');
    expect(JSON.stringify(run.schema)).toMatch(/anyOf/);
    const calls = run.calls as unknown[];
    expect(calls.length).toBeGreaterThanOrEqual(1);
    Weather.parse(calls[0]);
    expect(typeof run.final_output).toBe('string');
  });

  it('anthropic: messages.create', () => {
    const message = result('anthropic_create');
    expect(message).toMatchObject({ type: 'message', role: 'assistant', content_types: ['text'] });
    expect(['end_turn', 'max_tokens']).toContain(message.stop_reason);
    expect(message.output_tokens).toBeGreaterThan(0);
    expect(message.input_tokens).toBeGreaterThan(0);
  });

  it('anthropic: messages.stream, the text events adding up to the final message', () => {
    const stream = result('anthropic_stream');
    const types = stream.types as string[];
    expect(types[0]).toBe('message_start');
    expect(types).toContain('text');
    expect(types.at(-1)).toBe('message_stop');
    expect(stream.text).toBe(stream.final_text);
  });

  it('anthropic: tool_use with tool_choice any', () => {
    const message = result('anthropic_tool_any');
    expect(message.stop_reason).toBe('tool_use');
    const uses = message.uses as Array<{ name: string; input: unknown; id: string }>;
    expect(uses).toHaveLength(1);
    expect(uses[0]!.name).toBe('get_weather');
    Weather.parse(uses[0]!.input);
  });

  it('LangChain: a @tool with an Optional argument (anyOf) bound with tool_choice required', () => {
    const run = result('langchain_tool_optional');
    expect(run.schema_has_anyof).toBe(true);
    const calls = run.calls as Array<{ name: string; args: unknown }>;
    expect(calls).toHaveLength(1);
    Weather.parse(calls[0]!.args);
    expect(String(run.ran)).toMatch(/^18 degrees in /);
  });
});
