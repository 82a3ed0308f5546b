import type { Context, Hono } from 'hono';
import { clientAbort } from '../core/server/node-bindings.js';
import { errorText, generationBody, runGeneration, startGeneration, type GenerationEvent } from './generation-events.js';
import type { EngineMessage, EngineRequest, EngineResult, EngineToolChoice } from './llama-engine.js';
import { ModelRequestError } from './model-request-error.js';
import type { ModelPool } from './model-pool.js';
import { openAiError, randomId } from './openai-wire.js';
import { parseModelRequest, readModelRequest } from './read-model-request.js';
import {
  ResponsesFunctionCallItemSchema,
  ResponsesFunctionCallOutputItemSchema,
  ResponsesMessageItemSchema,
  ResponsesRequestSchema,
  type ResponsesRequest,
} from './responses-wire.js';
import { argumentsValue } from './tool-calling.js';

/**
 * `POST /responses` (under `/v1`): OpenAI's Responses API as Ollama serves
 * it since v0.13.3, stateless. `input` as text or items (messages,
 * `function_call`, `function_call_output`), `instructions`, function tools
 * and `tool_choice`, `text.format`, `max_output_tokens`, sampling, and
 * `stream` as the Responses event sequence. Errors are OpenAI's error object
 * (the `/v1` app's handler).
 *
 * @example
 * responsesRoute(app, { pool, maxBodyBytes: 8 << 20 });
 */
export function responsesRoute(app: Hono, options: { pool: ModelPool; maxBodyBytes: number }): void {
  const { pool, maxBodyBytes } = options;
  app.post('/responses', async (c) => {
    const body = parseModelRequest(ResponsesRequestSchema, await readModelRequest(c, maxBodyBytes));
    const messages = engineMessages(body);
    const engine = await pool.chatEngine(body.model);
    const tools = (body.tools ?? []).map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
    const choice = toolChoiceOf(body, pool.forceToolCall === true);
    const format = body.text?.format;
    const request: Omit<EngineRequest, 'signal' | 'onText'> = {
      messages,
      options: {
        temperature: body.temperature ?? 1,
        top_p: body.top_p ?? 1,
        ...(body.max_output_tokens === undefined ? {} : { num_predict: body.max_output_tokens }),
      },
      ...(format?.type === 'json_object' ? { format: 'json' as const } : format?.type === 'json_schema' ? { format: format.schema } : {}),
      ...(tools.length > 0 ? { tools, toolChoice: choice } : {}),
    };
    if (tools.length === 0 && choice !== 'auto' && choice !== 'none') {
      throw new ModelRequestError({ status: 400, message: 'tool_choice asks for a tool call but no tools were given', param: 'tool_choice' });
    }
    return respond(c, { engine, settled: pool.hold(engine.model.name), request, body });
  });
}

/** `tool_choice` for the engine; without one, `auto`, or `required` after a user message when tools come under `forceToolCall`. */
function toolChoiceOf(body: ResponsesRequest, forceToolCall: boolean): EngineToolChoice {
  const choice = body.tool_choice;
  if (choice !== undefined) return typeof choice === 'string' ? choice : { name: choice.name };
  const last = typeof body.input === 'string' ? { role: 'user' } : body.input.at(-1);
  const fromUser = last !== undefined && (last.type === undefined || last.type === 'message') && last.role === 'user';
  return forceToolCall && (body.tools?.length ?? 0) > 0 && fromUser ? 'required' : 'auto';
}

/** `instructions` and `input` as the engine's conversation; an item of another kind is a 400 naming it. */
function engineMessages(body: ResponsesRequest): EngineMessage[] {
  const messages: EngineMessage[] = body.instructions ? [{ role: 'system', content: body.instructions }] : [];
  if (typeof body.input === 'string') return [...messages, { role: 'user', content: body.input }];
  const callNames = new Map<string, string>();
  body.input.forEach((item, index) => {
    const param = `input.${index}`;
    const type = item.type ?? 'message';
    if (type === 'message') {
      const m = parseModelRequest(ResponsesMessageItemSchema, item);
      messages.push({ role: m.role === 'developer' ? 'system' : m.role, content: textOf(m.content, param) });
    } else if (type === 'function_call') {
      const call = parseModelRequest(ResponsesFunctionCallItemSchema, item);
      callNames.set(call.call_id, call.name);
      const toolCall = { id: call.call_id, name: call.name, arguments: argumentsValue(call.arguments) };
      const last = messages.at(-1);
      // Calls one after another (and after the text they came with) belong to one assistant turn.
      if (last?.role === 'assistant') messages[messages.length - 1] = { ...last, toolCalls: [...(last.toolCalls ?? []), toolCall] };
      else messages.push({ role: 'assistant', content: '', toolCalls: [toolCall] });
    } else if (type === 'function_call_output') {
      const output = parseModelRequest(ResponsesFunctionCallOutputItemSchema, item);
      const name = callNames.get(output.call_id);
      messages.push({ role: 'tool', content: textOf(output.output, `${param}.output`), toolCallId: output.call_id, ...(name ? { toolName: name } : {}) });
    } else if (type !== 'reasoning') {
      // Reasoning items (from another model's reply) carry nothing a model here can read; others cannot be honoured.
      throw new ModelRequestError({ status: 400, message: `input items of type '${type}' are not supported by this server`, param });
    }
  });
  return messages;
}

function textOf(content: string | ReadonlyArray<{ type: string; text?: string | undefined }>, param: string): string {
  if (typeof content === 'string') return content;
  return content
    .map((part, j) => {
      if (['input_text', 'output_text', 'text'].includes(part.type) && typeof part.text === 'string') return part.text;
      throw new ModelRequestError({
        status: 400,
        message: `content parts of type '${part.type}' are not supported: the models here read text only`,
        param: `${param}.content.${j}`,
      });
    })
    .join('');
}

interface Reply {
  engine: Parameters<typeof runGeneration>[0]['engine'];
  settled: () => void;
  request: Omit<EngineRequest, 'signal' | 'onText'>;
  body: ResponsesRequest;
}

/** Answers with the response object, or with the Responses API's server-sent events ending in `response.completed`. */
async function respond(c: Context, k: Reply): Promise<Response> {
  const abort = clientAbort(c);
  const generation = { engine: k.engine, request: { ...k.request, signal: abort.signal }, settled: k.settled, unloadAfter: false };
  const shell = responseShell(k.body);
  if (!k.body.stream) {
    const result = await runGeneration(generation);
    const output = [...(result.text === '' && result.toolCalls?.length ? [] : [messageItem(`msg_${randomId()}`, result.text)]), ...callItems(result)];
    return c.json(finished(shell, result, output));
  }

  const events = await startGeneration(generation);
  let sequence = 0;
  const sse = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  const messageId = `msg_${randomId()}`;
  let text: string | undefined;
  const output: unknown[] = [];
  const opening = sse('response.created', { response: shell }) + sse('response.in_progress', { response: shell });
  let opened = false;
  const open = () => {
    if (opened) return '';
    opened = true;
    return opening;
  };
  const textPart = (value: string) => ({ type: 'output_text', text: value, annotations: [], logprobs: [] });
  const render = (event: GenerationEvent): string => {
    switch (event.kind) {
      case 'text': {
        let out = open();
        if (text === undefined) {
          text = '';
          out += sse('response.output_item.added', {
            output_index: 0,
            item: { type: 'message', id: messageId, status: 'in_progress', role: 'assistant', content: [] },
          });
          out += sse('response.content_part.added', { item_id: messageId, output_index: 0, content_index: 0, part: textPart('') });
        }
        text += event.text;
        return out + sse('response.output_text.delta', { item_id: messageId, output_index: 0, content_index: 0, delta: event.text, logprobs: [] });
      }
      case 'done': {
        let out = open();
        if (text === undefined && !event.result.toolCalls?.length) {
          // An empty reply is still a message, as from OpenAI.
          text = '';
          out += sse('response.output_item.added', {
            output_index: 0,
            item: { type: 'message', id: messageId, status: 'in_progress', role: 'assistant', content: [] },
          });
          out += sse('response.content_part.added', { item_id: messageId, output_index: 0, content_index: 0, part: textPart('') });
        }
        if (text !== undefined) {
          const item = messageItem(messageId, text);
          out += sse('response.output_text.done', { item_id: messageId, output_index: 0, content_index: 0, text, logprobs: [] });
          out += sse('response.content_part.done', { item_id: messageId, output_index: 0, content_index: 0, part: textPart(text) });
          out += sse('response.output_item.done', { output_index: 0, item });
          output.push(item);
        }
        for (const item of callItems(event.result)) {
          const index = output.length;
          out += sse('response.output_item.added', { output_index: index, item: { ...item, arguments: '', status: 'in_progress' } });
          out += sse('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: item.arguments });
          out += sse('response.function_call_arguments.done', { item_id: item.id, output_index: index, name: item.name, arguments: item.arguments });
          out += sse('response.output_item.done', { output_index: index, item });
          output.push(item);
        }
        const response = finished(shell, event.result, output);
        // Always `response.completed` (its status says `incomplete` at max_output_tokens): the openai client's stream helper
        // fails without that event, and the AI SDK reads the status from either.
        return out + sse('response.completed', { response });
      }
      case 'error': {
        const { error } = openAiError({ status: 500, message: errorText(event.error) });
        return open() + sse('error', { code: 'server_error', message: error.message, param: null });
      }
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

/** The response object before its output: what the request asked for, echoed as OpenAI does. */
function responseShell(body: ResponsesRequest) {
  return {
    id: `resp_${randomId()}`,
    object: 'response' as const,
    created_at: Math.floor(Date.now() / 1000),
    status: 'in_progress' as 'in_progress' | 'completed' | 'incomplete',
    background: false,
    error: null,
    incomplete_details: null as null | { reason: string },
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: body.model,
    output: [] as unknown[],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: false,
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: (body.tools ?? []).map((t) => ({ ...t, strict: t.strict ?? false })),
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: null as null | Record<string, unknown>,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

function finished(shell: ReturnType<typeof responseShell>, result: EngineResult, output: unknown[]) {
  const incomplete = result.doneReason === 'length' && !result.toolCalls?.length;
  return {
    ...shell,
    status: incomplete ? ('incomplete' as const) : ('completed' as const),
    incomplete_details: incomplete ? { reason: 'max_output_tokens' } : null,
    output,
    usage: {
      input_tokens: result.promptEvalCount,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: result.evalCount,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: result.promptEvalCount + result.evalCount,
    },
  };
}

function messageItem(id: string, text: string) {
  return { type: 'message', id, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
}

/** The reply's tool calls as `function_call` items: arguments as a JSON string, a `call_id` the output item names. */
function callItems(result: EngineResult) {
  return (result.toolCalls ?? []).map((call) => ({
    type: 'function_call' as const,
    id: `fc_${randomId()}`,
    call_id: `call_${randomId()}`,
    name: call.name,
    arguments: JSON.stringify(call.arguments ?? {}),
    status: 'completed' as const,
  }));
}
