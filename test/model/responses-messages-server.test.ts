import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { startModelServer, type RunningModelServer } from '../../runtime/model/start-model-server.js';
import { defaultModelStore } from './support/default-model.js';

// Generation shares two cores with the rest of the suite: allow for that, and keep replies short.
vi.setConfig({ testTimeout: 120_000 });

/**
 * The APIs Ollama serves besides chat completions, with the official
 * TypeScript clients against the real default model (SmolLM2-135M): OpenAI's
 * Responses API (the `openai` client's `responses`, and the AI SDK's default
 * `openai(model)` provider, which calls it) and Anthropic's Messages API
 * (`@anthropic-ai/sdk`).
 */
let server: RunningModelServer;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  const { store } = await defaultModelStore();
  server = await startModelServer({ store, host: '127.0.0.1', port: 0 });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  // The Anthropic SDKs take the server's URL without /v1.
  anthropic = new Anthropic({ baseURL: server.url, apiKey: 'unused', maxRetries: 0 });
}, 300_000);

afterAll(async () => {
  await server?.close();
});

// pydantic's Optional[str] and a 1-5 range, as real clients send them.
const weatherParameters = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    days: { anyOf: [{ type: 'integer', minimum: 1, maximum: 5 }, { type: 'null' }], default: null },
  },
  required: ['city'],
};
const WeatherArguments = z.object({ city: z.string(), days: z.number().int().min(1).max(5).nullable().optional() }).strict();
const question = 'What is the weather in Paris?';
// The Anthropic SDK's types no longer list `temperature` (newer Claude models refuse it); the server still reads it.
const greedy = { temperature: 0 } as object;

describe('POST /v1/responses with the openai client', () => {
  it('answers text input with a message, usage and the response object', async () => {
    const response = await openai.responses.create({ model: 'smollm2', input: 'Say hello.', instructions: 'Be brief.', max_output_tokens: 6, temperature: 0 });
    expect(response.object).toBe('response');
    expect(response.id).toMatch(/^resp_/);
    expect(response.output_text.length).toBeGreaterThan(0);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(response.usage!.output_tokens).toBeGreaterThan(0);
    expect(response.usage!.output_tokens).toBeLessThanOrEqual(6);
    expect(response.usage!.input_tokens).toBeGreaterThan(0);
    expect(['completed', 'incomplete']).toContain(response.status);
    if (response.status === 'incomplete') expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  });

  it('streams the Responses event sequence, the deltas adding up to the final text', async () => {
    const stream = await openai.responses.create({
      model: 'smollm2',
      input: [{ role: 'user', content: 'Say hello.' }],
      max_output_tokens: 6,
      temperature: 0,
      stream: true,
    });
    const types: string[] = [];
    let deltas = '';
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') deltas += event.delta;
      if (event.type === 'response.completed') final = event.response;
    }
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added']);
    expect(types).toContain('response.output_text.delta');
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed']);
    // `output_text` is the SDK's convenience on `create` replies only; a streamed response carries the output items.
    const message = final!.output[0];
    if (message?.type !== 'message' || message.content[0]?.type !== 'output_text') throw new Error('expected a message');
    expect(message.content[0].text).toBe(deltas);
    expect(final!.usage!.output_tokens).toBeGreaterThan(0);
  });

  it('answers tool_choice required with a function_call item, streamed as arguments deltas', async () => {
    const tools: OpenAI.Responses.FunctionTool[] = [
      { type: 'function', name: 'get_weather', description: 'Get the weather for a city', parameters: weatherParameters, strict: false },
    ];
    const response = await openai.responses.create({ model: 'smollm2', input: question, tools, tool_choice: 'required', temperature: 0 });
    const call = response.output.find((item) => item.type === 'function_call');
    if (call?.type !== 'function_call') throw new Error('expected a function call');
    expect(call.name).toBe('get_weather');
    expect(call.call_id).toMatch(/^call_/);
    WeatherArguments.parse(JSON.parse(call.arguments));
    expect(response.usage!.output_tokens).toBeGreaterThan(0);

    const stream = await openai.responses.create({ model: 'smollm2', input: question, tools, tool_choice: 'required', temperature: 0, stream: true });
    const types: string[] = [];
    let args = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.function_call_arguments.delta') args += event.delta;
    }
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    WeatherArguments.parse(JSON.parse(args));
  });

  it('reads function_call and function_call_output items back and answers with text', async () => {
    const response = await openai.responses.create({
      model: 'smollm2',
      input: [
        { role: 'user', content: question },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris","days":null}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temperature":18,"sky":"sunny"}' },
      ],
      tools: [{ type: 'function', name: 'get_weather', parameters: weatherParameters, strict: false }],
      tool_choice: 'none',
      max_output_tokens: 12,
      temperature: 0,
    });
    expect(response.output.map((item) => item.type)).toEqual(['message']);
    expect(response.output_text.length).toBeGreaterThan(0);
  });

  it('answers text.format json_schema with JSON matching the schema', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string', maxLength: 20 } }, required: ['city'], additionalProperties: false };
    const response = await openai.responses.create({
      model: 'smollm2',
      input: 'Name a city in France as JSON.',
      text: { format: { type: 'json_schema', name: 'city', schema, strict: true } },
      temperature: 0,
      max_output_tokens: 40,
    });
    expect(
      z
        .object({ city: z.string().max(20) })
        .strict()
        .parse(JSON.parse(response.output_text)),
    ).toBeTruthy();
  });

  it('refuses previous_response_id with a 400 saying the server is stateless', async () => {
    const error = await openai.responses.create({ model: 'smollm2', input: 'Hi', previous_response_id: 'resp_1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toMatch(/previous_response_id.*stateless/);
  });

  it('refuses hosted tools and non-text input with a 400 naming them', async () => {
    const hosted = await openai.responses.create({ model: 'smollm2', input: 'Hi', tools: [{ type: 'web_search' }] }).catch((e: unknown) => e);
    expect(hosted).toBeInstanceOf(OpenAI.BadRequestError);
    expect((hosted as Error).message).toMatch(/only tools of type 'function'/);
    const image = await openai.responses
      .create({ model: 'smollm2', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' }] }] })
      .catch((e: unknown) => e);
    expect(image).toBeInstanceOf(OpenAI.BadRequestError);
    expect((image as Error).message).toMatch(/input_image/);
  });
});

describe("the AI SDK's default openai(model) provider (the Responses API)", () => {
  const provider = createOpenAI({ baseURL: `http://placeholder/v1`, apiKey: 'unused' });
  const model = () => createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused' })('smollm2');

  it('calls /v1/responses', () => {
    expect(provider('smollm2').provider).toBe('openai.responses');
  });

  it('generates and streams text', async () => {
    const generated = await generateText({ model: model(), prompt: 'Say hello.', maxOutputTokens: 6, temperature: 0, maxRetries: 0 });
    expect(generated.text.length).toBeGreaterThan(0);
    expect(generated.usage.outputTokens).toBeGreaterThan(0);
    const streamed = streamText({ model: model(), prompt: 'Say hello.', maxOutputTokens: 6, temperature: 0, maxRetries: 0 });
    let text = '';
    for await (const part of streamed.textStream) text += part;
    expect(text).toBe(generated.text);
  });

  it('runs a tool the model is made to call, then answers with text', async () => {
    const calls: unknown[] = [];
    const result = await generateText({
      model: model(),
      prompt: question,
      tools: {
        get_weather: tool({
          description: 'Get the weather for a city',
          inputSchema: jsonSchema<{ city: string; days?: number | null }>(weatherParameters as Exclude<Parameters<typeof jsonSchema>[0], () => unknown>),
          execute: async (input) => {
            calls.push(input);
            return { temperature: 18 };
          },
        }),
      },
      prepareStep: ({ stepNumber }) => ({ toolChoice: stepNumber === 0 ? 'required' : 'none' }),
      stopWhen: stepCountIs(2),
      maxOutputTokens: 40,
      temperature: 0,
      maxRetries: 0,
    });
    expect(calls).toHaveLength(1);
    WeatherArguments.parse(calls[0]);
    expect(result.steps).toHaveLength(2);
    expect(result.text.length).toBeGreaterThan(0);
  });
});

describe('POST /v1/messages with the Anthropic TypeScript SDK', () => {
  const tools: Anthropic.Tool[] = [
    { name: 'get_weather', description: 'Get the weather for a city', input_schema: weatherParameters as Anthropic.Tool.InputSchema },
  ];

  it('creates a message with text content, a stop reason and usage', async () => {
    const message = await anthropic.messages.create({
      model: 'smollm2',
      max_tokens: 6,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'Say hello.' }],
      ...greedy,
    });
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: 'smollm2' });
    expect(message.id).toMatch(/^msg_/);
    expect(message.content[0]!.type).toBe('text');
    expect(['end_turn', 'max_tokens']).toContain(message.stop_reason);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it('stops at a stop sequence and names it', async () => {
    const message = await anthropic.messages.create({
      model: 'smollm2',
      max_tokens: 30,
      messages: [{ role: 'user', content: 'Count from 1 to 10, separated by commas.' }],
      stop_sequences: ['3'],
      ...greedy,
    });
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe('3');
  });

  it('streams with messages.stream, the final message matching the text events', async () => {
    const stream = anthropic.messages.stream({ model: 'smollm2', max_tokens: 6, messages: [{ role: 'user', content: 'Say hello.' }], ...greedy });
    const types: string[] = [];
    stream.on('streamEvent', (event) => types.push(event.type));
    let text = '';
    stream.on('text', (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(types[0]).toBe('message_start');
    expect(types).toContain('content_block_delta');
    expect(types.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(final.content).toEqual([{ type: 'text', text, citations: null }].map(({ citations: _c, ...block }) => expect.objectContaining(block)));
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  it('answers tool_choice any with a tool_use block, created and streamed as input_json_delta', async () => {
    const message = await anthropic.messages.create({
      model: 'smollm2',
      max_tokens: 60,
      messages: [{ role: 'user', content: question }],
      tools,
      tool_choice: { type: 'any' },
      ...greedy,
    });
    expect(message.stop_reason).toBe('tool_use');
    const use = message.content.find((block) => block.type === 'tool_use');
    if (use?.type !== 'tool_use') throw new Error('expected a tool_use block');
    expect(use.name).toBe('get_weather');
    expect(use.id).toMatch(/^toolu_/);
    WeatherArguments.parse(use.input);
    expect(message.usage.output_tokens).toBeGreaterThan(0);

    const stream = anthropic.messages.stream({
      model: 'smollm2',
      max_tokens: 60,
      messages: [{ role: 'user', content: question }],
      tools,
      tool_choice: { type: 'tool', name: 'get_weather' },
      ...greedy,
    });
    const deltas: string[] = [];
    stream.on('inputJson', (partial) => deltas.push(partial));
    const final = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(0);
    const streamed = final.content.find((block) => block.type === 'tool_use');
    if (streamed?.type !== 'tool_use') throw new Error('expected a tool_use block');
    WeatherArguments.parse(streamed.input);
    expect(final.stop_reason).toBe('tool_use');
  });

  it('reads tool_use and tool_result blocks back and answers with text', async () => {
    const message = await anthropic.messages.create({
      model: 'smollm2',
      max_tokens: 12,
      messages: [
        { role: 'user', content: question },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18 degrees and sunny' }] },
      ],
      tools,
      tool_choice: { type: 'none' },
      ...greedy,
    });
    expect(message.content.map((block) => block.type)).toEqual(['text']);
  });

  it("answers errors in Anthropic's shape: unknown model 404, bad request 400, images refused", async () => {
    const unknown = await anthropic.messages.create({ model: 'nope', max_tokens: 4, messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
    expect((unknown as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const image = await anthropic.messages
      .create({
        model: 'smollm2',
        max_tokens: 4,
        messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      })
      .catch((e: unknown) => e);
    expect(image).toBeInstanceOf(Anthropic.BadRequestError);
    expect((image as Error).message).toMatch(/'image' are not supported/);
    const raw = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'anything', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'smollm2', messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: expect.stringMatching(/max_tokens/) } });
  });
});
