import { Hono, type Context } from 'hono';
import { anthropicRoutes } from './anthropic-routes.js';
import { FrameworkError } from '../core/framework-error.js';
import { errorFields, silentLogger, type Logger } from '../core/logger.js';
import { clientAbort } from '../core/server/node-bindings.js';
import { EmbeddingEngine } from './embedding-engine.js';
import { DEFAULT_KEEP_ALIVE_MS, KeepAliveTimers, parseKeepAlive } from './keep-alive.js';
import { canonicalModelName, modelTag } from './known-models.js';
import { managementRoutes } from './management-routes.js';
import {
  LlamaEngine,
  resolveNumParallel,
  type EngineOptions,
  type EngineMessage,
  type EngineResult,
  type EngineTool,
  type EngineToolCall,
  type EngineToolChoice,
} from './llama-engine.js';
import { argumentsValue } from './tool-calling.js';
import { modelDetails, showModel } from './show-model.js';
import { engineOptions } from './model-defaults.js';
import { errorText, generationBody, runGeneration, startGeneration } from './generation-events.js';
import { ModelRequestError } from './model-request-error.js';
import type { ModelStore, StoredModel } from './model-store.js';
import { ollamaPullLines } from './ollama-pull.js';
import type { ModelPool } from './model-pool.js';
import { openAiRoutes } from './openai-routes.js';
import { metricsResponse } from '../core/telemetry/service-metrics.js';
import { parseModelRequest, readModelRequest } from './read-model-request.js';
import {
  OllamaChatRequestSchema,
  OllamaEmbeddingsRequestSchema,
  OllamaEmbedRequestSchema,
  OllamaGenerateRequestSchema,
  OllamaPullRequestSchema,
  OllamaShowRequestSchema,
  refuseUnsupported,
  type OllamaChatRequest,
  type OllamaMessage,
} from './ollama-wire.js';

export interface ModelServerOptions {
  store: ModelStore;
  logger?: Logger;
  /** Largest request body accepted; default 8 MiB. */
  maxBodyBytes?: number;
  /** Requests that may wait for a free sequence before new ones get a 503; default 16. */
  maxQueue?: number;
  /**
   * Requests a chat model generates at once, each in its own context
   * sequence of `num_ctx` tokens (the context holds `num_ctx × numParallel`).
   * Default: `OLLAMA_NUM_PARALLEL`, then 2.
   */
  numParallel?: number;
  /**
   * CPU threads a chat model generates with, whatever the load. Default: the
   * cores other processes leave free (from the load average), up to all of them.
   */
  threads?: number;
  /**
   * How long a model stays loaded after its last request when the request has
   * no `keep_alive`: seconds, or a duration such as `"10m"`; negative keeps it forever.
   * Default: `OLLAMA_KEEP_ALIVE`, then 5 minutes.
   */
  keepAlive?: string | number;
  /**
   * On every API (`/api/chat`, `/v1/chat/completions`, `/v1/responses`,
   * `/v1/messages`), when a request offers tools, sets no tool choice and its
   * last message is the user's, make the reply a call to one of them (its
   * arguments generated under the tool's schema) instead of letting the model
   * choose. Requests without tools are answered as usual. For small models
   * that never call tools on their own; Ollama lets the model choose, which is
   * the default here too.
   */
  forceToolCall?: boolean;
}

export interface ModelServer {
  app: Hono;
  /** Unloads every loaded model. */
  close(): Promise<void>;
}

/** Reported by `GET /api/version`. */
export const MODEL_SERVER_VERSION = '0.1.0';

/**
 * An HTTP server speaking the part of Ollama's API that the `ollama` client
 * and chat front ends use (`/api/chat`, `/api/generate`, `/api/tags`,
 * `/api/show`, `/api/ps`, `/api/version`, `/api/embed`, `/api/embeddings`,
 * `/api/pull`), model management (`managementRoutes`: create, copy, delete,
 * blobs, push refused), under `/v1` OpenAI's API as Ollama serves it
 * (`openAiRoutes`, with the Responses API) and Anthropic's Messages API (`anthropicRoutes`),
 * over the models of a `ModelStore`: chat models run by node-llama-cpp,
 * embedding models by `EmbeddingEngine`. Errors are `{"error": message}` with Ollama's status.
 *
 * @example
 * const server = createModelServer({ store: new ModelStore({ dir: resolveModelsDir() }) });
 * const running = await listen(server.app, { host: '127.0.0.1', port: 11434 });
 */
export function createModelServer(options: ModelServerOptions): ModelServer {
  const logger = options.logger ?? silentLogger;
  const maxBytes = options.maxBodyBytes ?? 8 * 1024 * 1024;
  const engines = new Map<string, LlamaEngine>();
  const numParallel = resolveNumParallel(options.numParallel);
  const defaultKeepAlive = parseKeepAlive(options.keepAlive ?? process.env.OLLAMA_KEEP_ALIVE, DEFAULT_KEEP_ALIVE_MS);
  const keepAliveOf = (value: string | number | undefined) => parseKeepAlive(value, defaultKeepAlive);
  // Unloads a model when its keep-alive runs out after its last request.
  const timers = new KeepAliveTimers({
    onExpire: (name) => {
      engines
        .get(name)
        ?.unload()
        .catch((error: unknown) => logger.error('unloading a model failed', errorFields(error)));
      embedders.get(name)?.unload();
    },
  });
  // One model is kept loaded; asking for another unloads it after its queue drains.
  let current: LlamaEngine | undefined;

  // Embedding models are small and stay loaded beside the chat model.
  const embedders = new Map<string, EmbeddingEngine>();

  async function embedderFor(name: string): Promise<EmbeddingEngine> {
    const stored = await options.store.get(name);
    if (!stored) throw notFound(name);
    if (stored.kind !== 'embedding')
      throw new ModelRequestError({ status: 400, message: `model '${name}' does not support embeddings; use an embedding model such as all-minilm` });
    const existing = embedders.get(stored.name);
    if (existing) return existing;
    const embedder = new EmbeddingEngine({ model: stored });
    embedders.set(stored.name, embedder);
    return embedder;
  }

  async function engineFor(name: string, endpoint: string): Promise<LlamaEngine> {
    const stored = await options.store.get(name);
    if (!stored) throw notFound(name);
    if (stored.kind === 'embedding')
      throw new ModelRequestError({
        status: 400,
        message: `model '${name}' is an embedding model and does not support ${endpoint}; use /api/embed or /v1/embeddings`,
      });
    const existing = engines.get(stored.name);
    if (existing) return existing;
    const engine = new LlamaEngine({
      model: stored,
      numParallel,
      ...(options.maxQueue === undefined ? {} : { maxQueue: options.maxQueue }),
      ...(options.threads === undefined ? {} : { threads: options.threads }),
    });
    if (current) {
      const previous = current;
      engines.delete(previous.model.name);
      timers.clear(previous.model.name);
      void previous.dispose().catch((error: unknown) => logger.error('unloading a model failed', errorFields(error)));
    }
    engines.set(stored.name, engine);
    current = engine;
    return engine;
  }

  const app = new Hono();
  const pool: ModelPool = {
    store: options.store,
    chatEngine: (name) => engineFor(name, 'chat completions'),
    embedder: embedderFor,
    hold: (name) => {
      timers.begin(name, defaultKeepAlive);
      return () => timers.end(name, defaultKeepAlive);
    },
    ...(options.forceToolCall ? { forceToolCall: true } : {}),
  };
  app.get('/metrics', () => metricsResponse());
  // Before `/v1`, whose catch-all would answer it with OpenAI's 404.
  app.route('/v1/messages', anthropicRoutes({ pool, maxBodyBytes: maxBytes, logger }));
  app.route('/v1', openAiRoutes({ pool, maxBodyBytes: maxBytes, logger }));
  app.onError((error, c) => {
    if (error instanceof ModelRequestError) return c.json({ error: error.message }, error.status);
    if (FrameworkError.isInstance(error) && error.code === 'payload_too_large') return c.json({ error: error.message }, 413);
    if (FrameworkError.isInstance(error) && ['invalid_json', 'invalid_request'].includes(error.code)) return c.json({ error: error.message }, 400);
    logger.error('model request failed', { path: c.req.path, ...errorFields(error) });
    return c.json({ error: `internal error: ${(error as Error).message ?? 'unknown'}` }, 500);
  });
  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));

  // A model whose manifest changes (create, copy onto it) or goes (delete) is unloaded first, so no engine keeps its old defaults.
  managementRoutes(app, {
    store: options.store,
    maxBodyBytes: maxBytes,
    unload: async (name) => {
      const canonical = canonicalModelName(name);
      const engine = engines.get(canonical);
      const embedder = embedders.get(canonical);
      engines.delete(canonical);
      embedders.delete(canonical);
      timers.clear(canonical);
      if (current === engine) current = undefined;
      embedder?.unload();
      await engine?.dispose();
    },
  });

  // An explicit init: @hono/node-server fails (500) on Hono's HEAD answer built from a response without one.
  app.get('/', () => new Response('Ollama is running', { status: 200, headers: { 'Content-Type': 'text/plain; charset=utf-8' } }));
  app.get('/api/version', (c) => c.json({ version: MODEL_SERVER_VERSION }));

  app.get('/api/tags', async (c) => {
    const models = await options.store.list();
    return c.json({ models: models.map((m) => ({ ...describe(m), modified_at: m.modifiedAt })) });
  });

  app.get('/api/ps', (c) =>
    c.json({
      models: [...engines.values(), ...embedders.values()]
        .filter((e) => e.loadedAt)
        .map((e) => ({
          ...describe(e.model),
          expires_at: timers.expiresAt(e.model.name) ?? '9999-12-31T23:59:59Z',
          size_vram: 0,
          context_length: e.contextSize,
        })),
    }),
  );

  app.post('/api/show', async (c) => {
    const body = parseModelRequest(OllamaShowRequestSchema, await readModelRequest(c, maxBytes));
    const name = (body.model || body.name)!;
    const stored = await options.store.get(name);
    if (!stored) throw notFound(name);
    return c.json(showModel(stored));
  });

  app.post('/api/embed', async (c) => {
    const started = performance.now();
    const body = parseModelRequest(OllamaEmbedRequestSchema, await readModelRequest(c, maxBytes));
    const keepAlive = keepAliveOf(body.keep_alive);
    const embedder = await embedderFor(body.model);
    embedder.checkDimensions(body.dimensions);
    const inputs = body.input === undefined ? [] : typeof body.input === 'string' ? [body.input] : body.input;
    timers.begin(embedder.model.name, keepAlive);
    const result = await embedder
      .embed({ inputs, truncate: body.truncate, signal: clientAbort(c).signal })
      .finally(() => timers.end(embedder.model.name, keepAlive));
    if (keepAlive === 0) embedder.unload();
    return c.json({
      model: modelTag(body.model),
      embeddings: result.embeddings,
      total_duration: Math.round((performance.now() - started) * 1e6),
      load_duration: result.loadDuration,
      prompt_eval_count: result.promptEvalCount,
    });
  });

  app.post('/api/embeddings', async (c) => {
    const body = parseModelRequest(OllamaEmbeddingsRequestSchema, await readModelRequest(c, maxBytes));
    const keepAlive = keepAliveOf(body.keep_alive);
    const embedder = await embedderFor(body.model);
    timers.begin(embedder.model.name, keepAlive);
    // Ollama answers an empty prompt with an empty vector.
    const result = await (
      body.prompt === '' ? Promise.resolve({ embeddings: [[]] }) : embedder.embed({ inputs: [body.prompt], truncate: true, signal: clientAbort(c).signal })
    ).finally(() => timers.end(embedder.model.name, keepAlive));
    if (keepAlive === 0) embedder.unload();
    return c.json({ embedding: result.embeddings[0] ?? [] });
  });

  app.post('/api/chat', async (c) => {
    const body = parseModelRequest(OllamaChatRequestSchema, await readModelRequest(c, maxBytes));
    const keepAlive = keepAliveOf(body.keep_alive);
    const engine = await engineFor(body.model, 'chat');
    refuseUnsupported(body.model, body);
    const model = modelTag(body.model);
    const name = engine.model.name;
    timers.begin(name, keepAlive);
    if (body.messages.length === 0) {
      const answer = loadOrUnload(engine, model, keepAlive === 0, { message: { role: 'assistant', content: '' } });
      return c.json(await answer.finally(() => timers.end(name, keepAlive)));
    }
    const tools = (body.tools ?? []).map((t) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters }));
    const forced = options.forceToolCall === true && tools.length > 0 && body.messages.at(-1)?.role === 'user';
    return respond(c, engine, {
      model,
      unloadAfter: keepAlive === 0,
      settled: () => timers.end(name, keepAlive),
      messages: body.messages.map(ollamaEngineMessage),
      format: formatOf(body.format),
      options: engineOptions(body.options),
      ...(tools.length > 0 ? { tools, toolChoice: forced ? 'required' : 'auto' } : {}),
      stream: body.stream,
      line: (text, toolCalls) => ({
        message: {
          role: 'assistant',
          content: text,
          ...(toolCalls?.length ? { tool_calls: toolCalls.map((call) => ({ function: { name: call.name, arguments: call.arguments } })) } : {}),
        },
      }),
    });
  });

  app.post('/api/generate', async (c) => {
    const body = parseModelRequest(OllamaGenerateRequestSchema, await readModelRequest(c, maxBytes));
    const keepAlive = keepAliveOf(body.keep_alive);
    const engine = await engineFor(body.model, 'generate');
    refuseUnsupported(body.model, body);
    const model = modelTag(body.model);
    const name = engine.model.name;
    timers.begin(name, keepAlive);
    if (body.prompt === '') return c.json(await loadOrUnload(engine, model, keepAlive === 0, { response: '' }).finally(() => timers.end(name, keepAlive)));
    const messages: EngineMessage[] = [...(body.system ? [{ role: 'system' as const, content: body.system }] : []), { role: 'user', content: body.prompt }];
    return respond(c, engine, {
      model,
      unloadAfter: keepAlive === 0,
      settled: () => timers.end(name, keepAlive),
      messages,
      format: formatOf(body.format),
      options: engineOptions(body.options),
      ...(body.raw ? { raw: true } : {}),
      stream: body.stream,
      line: (text) => ({ response: text }),
    });
  });

  app.post('/api/pull', async (c) => {
    const body = parseModelRequest(OllamaPullRequestSchema, await readModelRequest(c, maxBytes));
    const abort = clientAbort(c);
    const lines = ollamaPullLines({ store: options.store, name: (body.model || body.name)!, signal: abort.signal });
    if (!body.stream) {
      // Ollama answers a failed pull that was not streamed with a 500.
      for await (const line of lines) if ('error' in line) return c.json({ error: line.error }, 500);
      return c.json({ status: 'success' });
    }
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await lines.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(`${JSON.stringify(next.value)}\n`));
      },
      cancel() {
        abort.abort(new Error('client disconnected'));
      },
    });
    return new Response(stream, { headers: { 'Content-Type': 'application/x-ndjson' } });
  });

  return {
    app,
    close: async () => {
      timers.close();
      const all = [...engines.values()];
      engines.clear();
      for (const embedder of embedders.values()) embedder.unload();
      embedders.clear();
      current = undefined;
      await Promise.all(all.map((e) => e.dispose()));
    },
  };
}

interface Generation {
  model: string;
  /** `keep_alive: 0`: unload the model once this generation ends. */
  unloadAfter: boolean;
  /** Called once the generation has ended, however it ended. */
  settled: () => void;
  messages: readonly EngineMessage[];
  format: 'json' | Record<string, unknown> | undefined;
  options: EngineOptions;
  /** Ollama's `raw`: the prompt goes to the model without the chat template. */
  raw?: boolean;
  tools?: EngineTool[];
  toolChoice?: EngineToolChoice;
  stream: boolean;
  /** The request-specific part of a line carrying `text` (and the reply's tool calls). */
  line: (text: string, toolCalls?: readonly EngineToolCall[]) => Record<string, unknown>;
}

async function respond(c: Context, engine: LlamaEngine, g: Generation): Promise<Response> {
  const abort = clientAbort(c);
  const started = performance.now();
  const final = (result: EngineResult) => ({
    model: g.model,
    created_at: new Date().toISOString(),
    ...g.line(g.stream ? '' : result.text, g.stream ? undefined : result.toolCalls),
    done: true,
    done_reason: result.doneReason,
    total_duration: Math.round((performance.now() - started) * 1e6),
    load_duration: result.loadDuration,
    prompt_eval_count: result.promptEvalCount,
    prompt_eval_duration: result.promptEvalDuration,
    eval_count: result.evalCount,
    eval_duration: result.evalDuration,
  });
  const request = {
    messages: g.messages,
    options: g.options,
    signal: abort.signal,
    ...(g.format ? { format: g.format } : {}),
    ...(g.raw ? { raw: true } : {}),
    ...(g.tools ? { tools: g.tools } : {}),
    ...(g.toolChoice ? { toolChoice: g.toolChoice } : {}),
  };
  const generation = { engine, request, settled: g.settled, unloadAfter: g.unloadAfter };
  if (!g.stream) return c.json(final(await runGeneration(generation)));

  const events = await startGeneration(generation);
  const line = (value: unknown) => `${JSON.stringify(value)}\n`;
  const body = generationBody({
    events,
    abort,
    render: (event) => {
      switch (event.kind) {
        case 'text':
          return line({ model: g.model, created_at: new Date().toISOString(), ...g.line(event.text), done: false });
        case 'done': {
          // Ollama streams a reply's tool calls as one line of their own before the last line.
          const calls = event.result.toolCalls;
          const callLine = calls?.length ? line({ model: g.model, created_at: new Date().toISOString(), ...g.line('', calls), done: false }) : '';
          return `${callLine}${line(final(event.result))}`;
        }
        case 'error':
          // Ollama reports an error after the stream started as a line with `error`.
          return line({ error: errorText(event.error) });
        default: {
          const never: never = event;
          throw new Error(`unexpected event ${JSON.stringify(never)}`);
        }
      }
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'application/x-ndjson' } });
}

/** Ollama's answer to a request with no messages (or prompt): load the model, or unload it with `keep_alive: 0`. */
async function loadOrUnload(engine: LlamaEngine, model: string, unload: boolean, empty: Record<string, unknown>) {
  const loadDuration = unload ? 0 : await engine.load();
  if (unload) await engine.unload();
  return {
    model,
    created_at: new Date().toISOString(),
    ...empty,
    done: true,
    done_reason: unload ? 'unload' : 'load',
    ...(unload ? {} : { load_duration: loadDuration }),
  };
}

/** An Ollama chat message as the engine's: tool calls with their arguments, a tool result with its tool's name. */
function ollamaEngineMessage(m: OllamaMessage): EngineMessage {
  return {
    role: m.role,
    content: m.content,
    ...(m.tool_calls?.length
      ? { toolCalls: m.tool_calls.map((call) => ({ name: call.function.name, arguments: argumentsValue(call.function.arguments) })) }
      : {}),
    ...(m.tool_name ? { toolName: m.tool_name } : {}),
  };
}

function notFound(name: string): ModelRequestError {
  return new ModelRequestError({ status: 404, message: `model '${name}' not found, try pulling it first` });
}

function formatOf(format: OllamaChatRequest['format']): 'json' | Record<string, unknown> | undefined {
  return format === '' || format === undefined ? undefined : format;
}

function describe(m: StoredModel) {
  const tag = modelTag(m.name);
  return { name: tag, model: tag, size: m.size, digest: m.sha256, details: modelDetails(m) };
}
