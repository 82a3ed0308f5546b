import { counter } from '../core/telemetry/service-metrics.js';
import type { ChatHistoryItem, ChatModelFunctions, ChatWrapper, Llama, LlamaChatSession, LlamaContext, LlamaGrammar, LlamaModel } from 'node-llama-cpp';
import { ConfigError } from '../core/errors/config-error.js';
import { CpuThreads } from './cpu-threads.js';
import { llamaGpuFromEnv, loadLlamaCpp } from './llama-runtime.js';
import { ModelRequestError } from './model-request-error.js';
import type { StoredModel } from './model-store.js';
import { SequenceSlots } from './sequence-slots.js';
import { checkedTools, checkToolCalls } from './tool-arguments-check.js';
import { choiceStepRequest, pickedChoice, usesChoiceStep } from './tool-choice-step.js';
import {
  documentedWrapper,
  forcedCallWrapper,
  functionsOf,
  toolChatHistory,
  type CheckedTool,
  type EngineTool,
  type EngineToolCall,
  type EngineToolChoice,
} from './tool-calling.js';

export type { EngineTool, EngineToolCall, EngineToolChoice } from './tool-calling.js';

export interface EngineMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** An assistant message's tool calls. */
  toolCalls?: readonly EngineToolCall[];
  /** A tool message: the id of the call it answers (OpenAI). */
  toolCallId?: string;
  /** A tool message: the name of the tool that ran (Ollama). */
  toolName?: string;
}

/** Sampling and length options, with Ollama's names; unset ones take Ollama's defaults (`OLLAMA_SAMPLING_DEFAULTS`). */
export interface EngineOptions {
  temperature?: number;
  num_predict?: number;
  num_ctx?: number;
  seed?: number;
  stop?: string[];
  top_k?: number;
  top_p?: number;
  min_p?: number;
  repeat_penalty?: number;
  /** Recent tokens the repeat, presence and frequency penalties look at; 0 turns them off, -1 means the whole context. */
  repeat_last_n?: number;
  presence_penalty?: number;
  frequency_penalty?: number;
}

/** Ollama's sampling defaults (its `api.DefaultOptions`). */
export const OLLAMA_SAMPLING_DEFAULTS = {
  temperature: 0.8,
  top_k: 40,
  top_p: 0.9,
  min_p: 0,
  repeat_penalty: 1.1,
  repeat_last_n: 64,
  presence_penalty: 0,
  frequency_penalty: 0,
} as const satisfies EngineOptions;

export interface EngineRequest {
  messages: readonly EngineMessage[];
  /** `"json"` for any JSON, an object for a JSON schema. */
  format?: 'json' | Record<string, unknown>;
  options?: EngineOptions;
  /** Ollama's `raw`: give the model the last user message as it is, without the chat template. */
  raw?: boolean;
  /** Tools the model may call; its calls come back in `EngineResult.toolCalls`, with arguments that match each tool's schema. */
  tools?: readonly EngineTool[];
  /** Default `auto`. */
  toolChoice?: EngineToolChoice;
  signal?: AbortSignal;
  onText?: (text: string) => void;
}

/** Counts and durations (nanoseconds), as Ollama reports them. */
export interface EngineResult {
  text: string;
  /** The tool calls the reply ended with (the reply is then done with reason `stop`). */
  toolCalls?: EngineToolCall[];
  doneReason: 'stop' | 'length';
  /** The request's stop sequence that ended the reply, if one did. */
  stopSequence?: string;
  promptEvalCount: number;
  promptEvalDuration: number;
  evalCount: number;
  evalDuration: number;
  loadDuration: number;
}

const DEFAULT_CONTEXT = 2048;

/** Sequences per loaded model when neither `numParallel` nor `OLLAMA_NUM_PARALLEL` says (Ollama picks 1 or 4 by free memory). */
export const DEFAULT_NUM_PARALLEL = 2;

/**
 * The number of parallel sequences: the explicit option, then `OLLAMA_NUM_PARALLEL`, then 2.
 * Anything but a whole number from 1 is an error naming both.
 */
export function resolveNumParallel(option: number | undefined, env: NodeJS.ProcessEnv = process.env): number {
  const raw = option ?? (env.OLLAMA_NUM_PARALLEL?.trim() ? Number(env.OLLAMA_NUM_PARALLEL) : DEFAULT_NUM_PARALLEL);
  if (!Number.isInteger(raw) || raw < 1 || raw > 64) {
    throw new ConfigError({
      issues: [
        {
          variable: option === undefined ? 'OLLAMA_NUM_PARALLEL' : 'numParallel',
          message: `must be a whole number from 1 to 64 (numParallel or OLLAMA_NUM_PARALLEL), got ${JSON.stringify(option ?? env.OLLAMA_NUM_PARALLEL)}`,
        },
      ],
      context: 'Invalid model server configuration',
    });
  }
  return raw;
}

const ns = (ms: number) => Math.round(ms * 1e6);

/**
 * One GGUF model loaded once through node-llama-cpp, on the CPU, with one
 * context of `numParallel` sequences: that many requests generate at once
 * (node-llama-cpp evaluates their tokens in shared batches), the others wait
 * in line (`SequenceSlots`). Each sequence has the request's `num_ctx`
 * tokens, so the context holds `num_ctx × numParallel`, as Ollama's does.
 *
 * @example
 * const engine = new LlamaEngine({ model: await store.get('smollm2') });
 * const { text } = await engine.generate({ messages: [{ role: 'user', content: 'Hi' }], options: { num_predict: 16 } });
 */
export class LlamaEngine {
  readonly model: StoredModel;
  #lib?: typeof import('node-llama-cpp');
  #llama?: Llama;
  #loaded?: LlamaModel;
  /**
   * The model's chat wrapper, resolved once at load: node-llama-cpp resolves
   * it anew for every session made without one, which parses and probes the
   * model's Jinja template (about 300 ms for SmolLM2 on this machine's CPU,
   * four times the prompt's own evaluation).
   */
  #chatWrapper?: ChatWrapper;
  #context?: { size: number; ready: Promise<LlamaContext> };
  #loading?: Promise<number>;
  readonly #slots: SequenceSlots;
  readonly #threads: CpuThreads;
  #loadedAt?: Date;

  /**
   * `numParallel`: requests generating at once, each in its own context sequence (default 2).
   * `maxQueue`: requests that may wait for a free sequence before new ones get a 503 (default 16).
   * `threads`: a fixed count of CPU threads for generation; default: the cores other processes leave free, up to all of them (`CpuThreads`).
   * `loadAverage`: the machine's 1-minute load average, for tests (default `os.loadavg()[0]`).
   */
  constructor(options: { model: StoredModel; numParallel?: number; maxQueue?: number; threads?: number; loadAverage?: () => number }) {
    this.model = options.model;
    this.#slots = new SequenceSlots({ slots: Math.max(1, options.numParallel ?? DEFAULT_NUM_PARALLEL), maxQueue: options.maxQueue ?? 16 });
    this.#threads = new CpuThreads({
      ...(options.threads === undefined ? {} : { threads: options.threads }),
      ...(options.loadAverage ? { loadAverage: options.loadAverage } : {}),
    });
  }

  /** CPU threads the last generation was given. */
  get threads(): number {
    return this.#threads.current;
  }

  /** Requests that may generate at once. */
  get numParallel(): number {
    return this.#slots.slots;
  }

  /** When the model was loaded, or undefined while it is not. */
  get loadedAt(): Date | undefined {
    return this.#loadedAt;
  }

  /** The context window of one sequence (the default until a request set `num_ctx`). */
  get contextSize(): number {
    return this.#context?.size ?? DEFAULT_CONTEXT;
  }

  /** Loads the model if needed; resolves to the time it took this call (ms). */
  async #load(): Promise<number> {
    if (this.#loaded) return 0;
    const started = performance.now();
    this.#loading ??= (async () => {
      // Loaded on first use, so importing the toolkit does not load llama.cpp (nor need it installed).
      this.#lib = await loadLlamaCpp();
      // At most one thread per core: more threads than cores makes llama.cpp's spinning workers
      // fight for the CPU (the prebuilt binary got 70 times slower on two cores). Each generation
      // then lowers `maxThreads` to the cores other processes leave free (see `#generate`).
      this.#llama = await this.#lib.getLlama({
        gpu: llamaGpuFromEnv(),
        build: 'never',
        maxThreads: this.#threads.limit,
        logLevel: this.#lib.LlamaLogLevel.error,
      });
      this.#loaded = await this.#llama.loadModel({ modelPath: this.model.path });
      this.#chatWrapper = this.#lib.resolveChatWrapper(this.#loaded);
      this.#loadedAt = new Date();
      return 0;
    })();
    try {
      await this.#loading;
    } catch (error) {
      this.#loading = undefined;
      throw error;
    }
    return performance.now() - started;
  }

  /**
   * The context with sequences of `size` tokens, made anew when the size
   * changes. `SequenceSlots` admits side by side only requests of one size,
   * so a change happens only when no other request uses the old context.
   */
  #contextOf(size: number): Promise<LlamaContext> {
    if (this.#context?.size === size) return this.#context.ready;
    const previous = this.#context?.ready;
    const ready = (async () => {
      await (await previous?.catch(() => undefined))?.dispose();
      // node-llama-cpp gives each sequence `contextSize` cells: the native context holds size × sequences.
      // Made for the most threads: node-llama-cpp fixes a context's ideal count when it is made,
      // and gives each batch at most the Llama's current `maxThreads`.
      this.#llama!.maxThreads = this.#threads.limit;
      return this.#loaded!.createContext({ contextSize: size, sequences: this.#slots.slots, threads: this.#threads.limit });
    })();
    const entry = { size, ready };
    this.#context = entry;
    ready.catch(() => {
      if (this.#context === entry) this.#context = undefined;
    });
    return ready;
  }

  async #grammar(format: EngineRequest['format']): Promise<LlamaGrammar | undefined> {
    if (format === undefined) return undefined;
    try {
      if (format === 'json') return await this.#llama!.getGrammarFor('json');
      return await this.#llama!.createGrammarForJsonSchema(format as Parameters<Llama['createGrammarForJsonSchema']>[0]);
    } catch (error) {
      throw new ModelRequestError({ status: 400, message: `unsupported format schema: ${(error as Error).message}`, cause: error });
    }
  }

  /**
   * What a request with tools (or with tool calls and results in its
   * messages) needs: the functions offered, the chat wrapper (one that forces
   * a call for `required` or a named tool) and the chat history.
   */
  async #tools(request: EngineRequest, hasGrammar: boolean): Promise<ToolSetup | undefined> {
    const offered = request.tools ?? [];
    const usesTools = offered.length > 0 || request.messages.some((m) => m.role === 'tool' || m.toolCalls?.length);
    if (request.raw || !usesTools) return undefined;
    const choice = request.toolChoice ?? 'auto';
    // Every schema compiles (or is refused with a 400) before any generation.
    const checked = checkedTools(offered);
    const functions = functionsOf(checked, choice);
    const refuse = (message: string) => new ModelRequestError({ status: 400, message });
    if (functions && hasGrammar) throw refuse('a format (or response_format) cannot be combined with tools: the tool call arguments have their own grammar');
    const forced = choice === 'required' || typeof choice === 'object';
    if (forced && !functions)
      throw refuse(
        typeof choice === 'object' ? `tool_choice names '${choice.name}', which is not among the tools` : 'tool_choice is required but no tools were given',
      );
    if (forced && typeof choice === 'object' && Object.keys(functions!).length === 0)
      throw refuse(`tool_choice names '${choice.name}', which is not among the tools`);
    for (const tool of checked) {
      if (!tool.grammar) continue;
      try {
        await this.#llama!.createGrammarForJsonSchema(tool.grammar as Parameters<Llama['createGrammarForJsonSchema']>[0]);
      } catch (error) {
        throw refuse(`unsupported parameters schema for tool '${tool.name}': ${(error as Error).message}`);
      }
    }
    const lib = this.#lib!;
    const base = this.#chatWrapper!;
    const { history, continues } = toolChatHistory(request.messages);
    return {
      wrapper: documentedWrapper(forced ? forcedCallWrapper(base, lib) : base, functionsOf(checked, choice, 'documented')),
      functions,
      checked,
      history: continues ? history : [...history, { type: 'model', response: [] }],
    };
  }

  /**
   * Runs one generation in a free sequence, or once one is free (after the
   * requests that came first); rejects with a 503 when too many wait. A
   * request whose `signal` aborts while it waits leaves the line.
   */
  generate(request: EngineRequest): Promise<EngineResult> {
    if (usesChoiceStep(this.model.name, request)) return this.#chooseThenGenerate(request);
    return this.#admit(request);
  }

  /** `auto` for a model that never starts a call itself: the model picks a tool or text first, then replies so (`tool-choice-step.ts`). */
  async #chooseThenGenerate(request: EngineRequest): Promise<EngineResult> {
    const tools = request.tools ?? [];
    const step = choiceStepRequest(request);
    const choice = await this.#admit({ ...step, ...(request.signal ? { signal: request.signal } : {}) });
    const result = await this.#admit({ ...request, toolChoice: pickedChoice(choice, tools) });
    // The reply's counts include the choice's generated tokens and time; the prompt is the reply's.
    return {
      ...result,
      evalCount: result.evalCount + choice.evalCount,
      evalDuration: result.evalDuration + choice.evalDuration + choice.promptEvalDuration,
      loadDuration: result.loadDuration + choice.loadDuration,
    };
  }

  #admit(request: EngineRequest): Promise<EngineResult> {
    // Requests of one context size share the context; the trained size caps it once known.
    const wanted = Math.max(256, request.options?.num_ctx ?? DEFAULT_CONTEXT);
    const key = this.#loaded ? Math.max(256, Math.min(wanted, this.#loaded.trainContextSize)) : wanted;
    return this.#slots.run({ key, ...(request.signal ? { signal: request.signal } : {}), work: () => this.#generate(request) });
  }

  async #generate(request: EngineRequest): Promise<EngineResult> {
    request.signal?.throwIfAborted();
    const loadMs = await this.#load();
    const model = this.#loaded!;
    const lib = this.#lib!;
    const options = request.options ?? {};
    const contextSize = Math.max(256, Math.min(options.num_ctx ?? DEFAULT_CONTEXT, model.trainContextSize));
    const context = await this.#contextOf(contextSize);
    // Read per generation: node-llama-cpp gives each batch of this context at most `maxThreads`.
    this.#llama!.maxThreads = this.#threads.next();
    const grammar = await this.#grammar(request.format);
    const tools = await this.#tools(request, grammar !== undefined);
    // Disposed (and awaited) below, so the sequence is free before the next request is admitted.
    const contextSequence = context.getSequence();
    const chat = tools ? new lib.LlamaChat({ contextSequence, autoDisposeSequence: false, chatWrapper: tools.wrapper }) : undefined;
    const session =
      request.raw || chat ? undefined : new lib.LlamaChatSession({ contextSequence, autoDisposeSequence: false, chatWrapper: this.#chatWrapper! });
    const completion = request.raw ? new lib.LlamaCompletion({ contextSequence, autoDisposeSequence: false }) : undefined;
    try {
      const { prompt, promptTokens } = chat
        ? toolPrompt(tools!, model)
        : session
          ? chatPrompt(session, request.messages, model)
          : rawPrompt(request.messages, model);
      if (promptTokens >= contextSize) {
        throw new ModelRequestError({
          status: 400,
          message: `the prompt is ${promptTokens} tokens, which does not fit the context window of ${contextSize} tokens; shorten it or raise options.num_ctx (the model allows up to ${model.trainContextSize})`,
        });
      }
      const room = contextSize - promptTokens;
      const maxTokens = options.num_predict === undefined || options.num_predict < 0 ? room : Math.min(options.num_predict, room);
      const started = performance.now();
      let firstAt: number | undefined;
      let evalCount = 0;
      const sampling = { ...OLLAMA_SAMPLING_DEFAULTS, ...options };
      const common = {
        maxTokens,
        temperature: sampling.temperature,
        topK: Math.max(0, sampling.top_k),
        topP: sampling.top_p,
        minP: sampling.min_p,
        repeatPenalty: repeatPenalty(sampling, contextSize),
        ...(options.seed === undefined || options.seed < 0 ? {} : { seed: options.seed }),
        ...(options.stop?.length ? { customStopTriggers: options.stop } : {}),
        ...(request.signal ? { signal: request.signal } : {}),
        onToken: (tokens: readonly unknown[]) => {
          firstAt ??= performance.now();
          evalCount += tokens.length;
        },
        ...(request.onText ? { onTextChunk: request.onText } : {}),
      };
      const generation = { ...common, ...(grammar ? { grammar } : {}) };
      // node-llama-cpp's `onToken` does not see the tokens of a function call; the sequence's meter counts every sampled token.
      const meter = contextSequence.tokenMeter.getState();
      const { text, stopReason, toolCalls, trigger } = chat
        ? await chat
            .generateResponse(tools!.history, tools!.functions ? { ...common, functions: tools!.functions } : generation)
            .then((r) => ({ text: r.response, stopReason: r.metadata.stopReason, toolCalls: r.functionCalls ?? [], trigger: stopTrigger(r.metadata) }))
        : session
          ? await session
              .promptWithMeta(prompt, generation)
              .then((r) => ({ text: r.responseText, stopReason: r.stopReason, toolCalls: [], trigger: stopTrigger(r) }))
          : await completion!
              .generateCompletionWithMeta(prompt, generation)
              .then((r) => ({ text: r.response, stopReason: r.metadata.stopReason, toolCalls: [], trigger: stopTrigger(r.metadata) }));
      const ended = performance.now();
      request.signal?.throwIfAborted();
      const calls = toolCalls.map((c) => ({ name: c.functionName, arguments: c.params as unknown }));
      if (tools) checkToolCalls(tools.checked, calls);
      const outputTokens = Math.max(evalCount, contextSequence.tokenMeter.diff(meter).usedOutputTokens);
      // rate(model_output_tokens_total) is the runtime's tokens per second.
      tokens.output.inc(outputTokens);
      tokens.prompt.inc(promptTokens);
      return {
        text,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
        doneReason: stopReason === 'maxTokens' ? 'length' : 'stop',
        ...(trigger === undefined ? {} : { stopSequence: trigger }),
        promptEvalCount: promptTokens,
        promptEvalDuration: ns((firstAt ?? ended) - started),
        evalCount: outputTokens,
        evalDuration: ns(ended - (firstAt ?? ended)),
        loadDuration: ns(loadMs),
      };
    } finally {
      chat?.dispose();
      session?.dispose();
      completion?.dispose();
      await contextSequence.dispose();
    }
  }

  /** Loads the model now (after queued requests); resolves to the load time in nanoseconds, 0 if it was loaded. */
  load(): Promise<number> {
    return this.#slots.exclusive(() => this.#load()).then(ns);
  }

  /** Frees the context, the model and the native backend after queued requests; a later request loads it again. */
  unload(): Promise<void> {
    return this.#slots.exclusive(() => this.#release());
  }

  /** Same as `unload()`. */
  dispose(): Promise<void> {
    return this.unload();
  }

  async #release(): Promise<void> {
    const context = await this.#context?.ready.catch(() => undefined);
    const model = this.#loaded;
    const llama = this.#llama;
    this.#context = undefined;
    this.#loaded = undefined;
    this.#chatWrapper = undefined;
    this.#llama = undefined;
    this.#loadedAt = undefined;
    this.#loading = undefined;
    await context?.dispose();
    await model?.dispose();
    await llama?.dispose();
  }
}

/** The last user message as the prompt, the messages before it as the session's history, and the templated prompt's length. */
function chatPrompt(session: LlamaChatSession, messages: readonly EngineMessage[], model: LlamaModel) {
  const earlier = [...messages];
  const prompt = earlier.at(-1)?.role === 'user' ? earlier.pop()!.content : '';
  const history: ChatHistoryItem[] = earlier.map((m): ChatHistoryItem => {
    if (m.role === 'system') return { type: 'system', text: m.content };
    if (m.role === 'assistant') return { type: 'model', response: [m.content] };
    return { type: 'user', text: m.content };
  });
  session.setChatHistory(history);
  const { contextText } = session.chatWrapper.generateContextState({
    chatHistory: [...history, { type: 'user', text: prompt }, { type: 'model', response: [] }],
  });
  return { prompt, promptTokens: contextText.tokenize(model.tokenizer).length };
}

interface ToolSetup {
  wrapper: ChatWrapper;
  functions: ChatModelFunctions | undefined;
  /** The offered tools with their validators, which the generated calls are checked against. */
  checked: CheckedTool[];
  /** The conversation, ending with the (empty or continued) response to generate. */
  history: ChatHistoryItem[];
}

/** The templated length of a conversation with tools (the prompt itself is in `tools.history`). */
function toolPrompt(tools: ToolSetup, model: LlamaModel) {
  const { contextText } = tools.wrapper.generateContextState({
    chatHistory: tools.history,
    ...(tools.functions ? { availableFunctions: tools.functions } : {}),
  });
  return { prompt: '', promptTokens: contextText.tokenize(model.tokenizer).length };
}

/** Ollama's `raw`: the last user message's text as it is, with no template (system messages are dropped, as Ollama does). */
function rawPrompt(messages: readonly EngineMessage[], model: LlamaModel) {
  const prompt = messages.findLast((m) => m.role === 'user')?.content ?? '';
  return { prompt, promptTokens: model.tokenize(prompt).length + 1 };
}

/** The custom stop trigger that ended a generation, as text. */
function stopTrigger(meta: { stopReason: string; customStopTrigger?: ReadonlyArray<unknown> }): string | undefined {
  if (meta.stopReason !== 'customStopTrigger' || !meta.customStopTrigger) return undefined;
  return meta.customStopTrigger.filter((part): part is string => typeof part === 'string').join('');
}

/** node-llama-cpp's repeat penalty for Ollama's options, or `false` when they turn it off. */
function repeatPenalty(options: Required<Omit<EngineOptions, 'num_predict' | 'num_ctx' | 'seed' | 'stop'>>, contextSize: number) {
  const lastTokens = options.repeat_last_n < 0 ? contextSize : options.repeat_last_n;
  const off = options.repeat_penalty === 1 && options.presence_penalty === 0 && options.frequency_penalty === 0;
  if (lastTokens === 0 || off) return false as const;
  return {
    lastTokens,
    penalty: options.repeat_penalty,
    presencePenalty: options.presence_penalty,
    frequencyPenalty: options.frequency_penalty,
  };
}

/** Tokens generated and read by this runtime (/metrics). */
const tokens = {
  output: counter('model_output_tokens_total', 'Tokens generated by the model runtime.'),
  prompt: counter('model_prompt_tokens_total', 'Prompt tokens evaluated by the model runtime.'),
};
