import { Hono, type Context } from 'hono';
import { FrameworkError } from '../core/framework-error.js';
import { errorFields, type Logger } from '../core/logger.js';
import { clientAbort } from '../core/server/node-bindings.js';
import { decodePathSegment, malformedPathMessage } from '../core/server/path-segment.js';
import { errorText, generationBody, runGeneration, startGeneration, type GenerationEvent } from './generation-events.js';
import { modelTag } from './known-models.js';
import type { EngineMessage, EngineOptions, EngineRequest, EngineResult, EngineToolCall, EngineToolChoice, LlamaEngine } from './llama-engine.js';
import { ModelRequestError } from './model-request-error.js';
import type { ModelPool } from './model-pool.js';
import type { StoredModel } from './model-store.js';
import { responsesRoute } from './responses-routes.js';
import {
  base64Embedding,
  ChatCompletionRequestSchema,
  CompletionRequestSchema,
  EmbeddingRequestSchema,
  openAiError,
  randomId,
  type ChatCompletionRequest,
  type CompletionRequest,
  type OpenAiMessage,
} from './openai-wire.js';
import { parseModelRequest, readModelRequest } from './read-model-request.js';
import { argumentsValue } from './tool-calling.js';

export type { ModelPool } from './model-pool.js';

/**
 * OpenAI's API as Ollama serves it under `/v1`: chat completions,
 * completions, embeddings and the model list, over the same engines as
 * the Ollama routes. Errors are OpenAI's `{"error": {message, type, param, code}}`.
 *
 * @example
 * app.route('/v1', openAiRoutes({ pool, maxBodyBytes: 8 << 20, logger }));
 */
export function openAiRoutes(options: { pool: ModelPool; maxBodyBytes: number; logger: Logger }): Hono {
  const { pool, maxBodyBytes, logger } = options;
  const app = new Hono();

  app.onError((error, c) => {
    if (error instanceof ModelRequestError) {
      const code = error.status === 404 ? 'model_not_found' : null;
      return c.json(openAiError({ status: error.status, message: error.message, param: error.param ?? null, code }), error.status);
    }
    if (FrameworkError.isInstance(error) && error.code === 'payload_too_large') return c.json(openAiError({ status: 413, message: error.message }), 413);
    logger.error('model request failed', { path: c.req.path, ...errorFields(error) });
    return c.json(openAiError({ status: 500, message: `internal error: ${(error as Error).message ?? 'unknown'}` }), 500);
  });

  app.get('/models', async (c) => c.json({ object: 'list', data: (await pool.store.list()).map(modelObject) }));

  // A model name may hold slashes (`hf.co/owner/repo`), so the rest of the path is the name.
  app.get('/models/*', async (c) => {
    const name = decodePathSegment(c.req.path.slice(c.req.path.indexOf('/models/') + '/models/'.length));
    if (name === undefined) throw new ModelRequestError({ status: 400, message: malformedPathMessage(c.req.path) });
    const stored = name ? await pool.store.get(name) : undefined;
    if (!stored) throw notFound(name);
    return c.json(modelObject(stored));
  });

  app.post('/chat/completions', async (c) => {
    const body = parseModelRequest(ChatCompletionRequestSchema, await readModelRequest(c, maxBodyBytes));
    const messages = body.messages.map(engineMessage);
    const engine = await pool.chatEngine(body.model);
    const format = formatOf(body.response_format);
    const tools = (body.tools ?? []).map((t) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters }));
    const toolChoice = toolChoiceOf(body, pool.forceToolCall === true);
    if (tools.length === 0 && (toolChoice === 'required' || typeof toolChoice === 'object')) {
      throw new ModelRequestError({ status: 400, message: 'tool_choice asks for a tool call but no tools were given', param: 'tool_choice' });
    }
    return complete(c, engine, pool.hold(engine.model.name), {
      body,
      request: {
        messages,
        options: sampling(body, body.max_completion_tokens ?? body.max_tokens),
        ...(format ? { format } : {}),
        ...(tools.length > 0 ? { tools, toolChoice } : {}),
      },
      id: `chatcmpl-${randomId()}`,
      object: 'chat.completion',
      choice: (text, streamed, toolCalls) => {
        if (!toolCalls?.length) return streamed ? { delta: { role: 'assistant', content: text } } : { message: { role: 'assistant', content: text } };
        // OpenAI's tool calls: `arguments` as a JSON string, an id the tool result names; indexed when streamed.
        const calls = toolCalls.map((call, index) => ({
          ...(streamed ? { index } : {}),
          id: `call_${randomId()}`,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
        }));
        const message = { role: 'assistant', content: text === '' ? null : text, tool_calls: calls };
        return streamed ? { delta: message } : { message };
      },
    });
  });

  app.post('/completions', async (c) => {
    const body = parseModelRequest(CompletionRequestSchema, await readModelRequest(c, maxBodyBytes));
    const prompt = typeof body.prompt === 'string' ? body.prompt : body.prompt[0];
    const engine = await pool.chatEngine(body.model);
    return complete(c, engine, pool.hold(engine.model.name), {
      body,
      request: { messages: [{ role: 'user', content: prompt }], options: sampling(body, body.max_tokens) },
      id: `cmpl-${randomId()}`,
      object: 'text_completion',
      choice: (text) => ({ text, logprobs: null }),
    });
  });

  app.post('/embeddings', async (c) => {
    const body = parseModelRequest(EmbeddingRequestSchema, await readModelRequest(c, maxBodyBytes));
    const embedder = await pool.embedder(body.model);
    embedder.checkDimensions(body.dimensions);
    const inputs = typeof body.input === 'string' ? [body.input] : body.input;
    const release = pool.hold(embedder.model.name);
    const result = await embedder.embed({ inputs, truncate: true, signal: clientAbort(c).signal }).finally(release);
    return c.json({
      object: 'list',
      data: result.embeddings.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: body.encoding_format === 'base64' ? base64Embedding(vector) : vector,
      })),
      model: body.model,
      usage: { prompt_tokens: result.promptEvalCount, total_tokens: result.promptEvalCount },
    });
  });

  responsesRoute(app, { pool, maxBodyBytes });

  app.all('*', (c) => c.json(openAiError({ status: 404, message: `no route ${c.req.method} ${c.req.path}` }), 404));
  return app;
}

interface Completion {
  body: ChatCompletionRequest | CompletionRequest;
  request: Omit<EngineRequest, 'signal' | 'onText'>;
  id: string;
  object: 'chat.completion' | 'text_completion';
  /** A choice's request-specific part carrying `text` and the tool calls (a `delta` when streamed). */
  choice: (text: string, streamed: boolean, toolCalls?: readonly EngineToolCall[]) => Record<string, unknown>;
}

/** Answers a (chat) completion as one JSON object, or as server-sent events ending with `data: [DONE]`. */
async function complete(c: Context, engine: LlamaEngine, settled: () => void, k: Completion): Promise<Response> {
  const abort = clientAbort(c);
  const created = Math.floor(Date.now() / 1000);
  const head = { id: k.id, created, model: k.body.model, system_fingerprint: 'fp_ollama' };
  const usage = (r: EngineResult) => ({ prompt_tokens: r.promptEvalCount, completion_tokens: r.evalCount, total_tokens: r.promptEvalCount + r.evalCount });
  const generation = { engine, request: { ...k.request, signal: abort.signal }, settled, unloadAfter: false };

  if (!k.body.stream) {
    const result = await runGeneration(generation);
    return c.json({
      ...head,
      object: k.object,
      choices: [{ index: 0, ...k.choice(result.text, false, result.toolCalls), finish_reason: finishReason(result) }],
      usage: usage(result),
    });
  }

  const events = await startGeneration(generation);
  const object = k.object === 'chat.completion' ? 'chat.completion.chunk' : 'text_completion';
  const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
  const chunk = (text: string, finish: string | null) => ({ ...head, object, choices: [{ index: 0, ...k.choice(text, true), finish_reason: finish }] });
  const render = (event: GenerationEvent): string => {
    switch (event.kind) {
      case 'text':
        return data(chunk(event.text, null));
      case 'done': {
        const calls = event.result.toolCalls?.length
          ? data({ ...head, object, choices: [{ index: 0, ...k.choice('', true, event.result.toolCalls), finish_reason: null }] })
          : '';
        const last = `${calls}${data(chunk('', finishReason(event.result)))}`;
        const counts = k.body.stream_options?.include_usage ? data({ ...head, object, choices: [], usage: usage(event.result) }) : '';
        return `${last}${counts}data: [DONE]\n\n`;
      }
      case 'error':
        // The openai client raises an APIError for an event whose data holds `error`.
        return data(openAiError({ status: 500, message: errorText(event.error) }));
      default: {
        const never: never = event;
        throw new Error(`unexpected event ${JSON.stringify(never)}`);
      }
    }
  };
  return new Response(generationBody({ events, abort, render }), {
    headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
  });
}

/** Ollama's OpenAI defaults: temperature and top_p 1 unless given; the penalties pass through. */
function sampling(body: ChatCompletionRequest | CompletionRequest, maxTokens: number | undefined): EngineOptions {
  return {
    temperature: body.temperature ?? 1,
    top_p: body.top_p ?? 1,
    ...(maxTokens === undefined ? {} : { num_predict: maxTokens }),
    ...(body.seed === undefined ? {} : { seed: body.seed }),
    ...(body.stop === undefined ? {} : { stop: typeof body.stop === 'string' ? [body.stop] : body.stop }),
    ...(body.frequency_penalty === undefined ? {} : { frequency_penalty: body.frequency_penalty }),
    ...(body.presence_penalty === undefined ? {} : { presence_penalty: body.presence_penalty }),
  };
}

/** `tool_calls` when the reply is tool calls, else the engine's reason. */
function finishReason(result: EngineResult): string {
  return result.toolCalls?.length ? 'tool_calls' : result.doneReason;
}

/** The request's `tool_choice` for the engine; without one, `auto` (or `required` after a user message with tools under `forceToolCall`). */
function toolChoiceOf(body: ChatCompletionRequest, forceToolCall: boolean): EngineToolChoice {
  const choice = body.tool_choice;
  if (choice === undefined) return forceToolCall && (body.tools?.length ?? 0) > 0 && body.messages.at(-1)?.role === 'user' ? 'required' : 'auto';
  return typeof choice === 'string' ? choice : { name: choice.function.name };
}

function formatOf(format: ChatCompletionRequest['response_format']): EngineRequest['format'] {
  if (!format || format.type === 'text') return undefined;
  if (format.type === 'json_object') return 'json';
  return format.json_schema.schema ?? 'json';
}

function engineMessage(message: OpenAiMessage, index: number): EngineMessage {
  const role = message.role === 'developer' ? 'system' : message.role;
  const { content } = message;
  const tools = {
    ...(message.tool_calls?.length
      ? { toolCalls: message.tool_calls.map((call) => ({ id: call.id, name: call.function.name, arguments: argumentsValue(call.function.arguments) })) }
      : {}),
    ...(message.tool_call_id ? { toolCallId: message.tool_call_id } : {}),
    ...(role === 'tool' && message.name ? { toolName: message.name } : {}),
  };
  if (content === undefined || typeof content === 'string') return { role, content: content ?? '', ...tools };
  const texts = content.map((part, j) => {
    if (part.type === 'text' && typeof part.text === 'string') return part.text;
    throw new ModelRequestError({
      status: 400,
      message: `content parts of type '${part.type}' are not supported: the models here read text only`,
      param: `messages.${index}.content.${j}`,
    });
  });
  return { role, content: texts.join(''), ...tools };
}

function modelObject(m: StoredModel) {
  return { id: modelTag(m.name), object: 'model', created: Math.floor(Date.parse(m.modifiedAt) / 1000), owned_by: 'library' };
}

function notFound(name: string): ModelRequestError {
  return new ModelRequestError({ status: 404, message: `model '${name}' not found, try pulling it first`, param: 'model' });
}
