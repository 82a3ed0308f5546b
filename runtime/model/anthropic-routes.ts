import { Hono, type Context } from 'hono';
import { FrameworkError } from '../core/framework-error.js';
import { errorFields, type Logger } from '../core/logger.js';
import { clientAbort } from '../core/server/node-bindings.js';
import {
  AnthropicRequestSchema,
  AnthropicTextBlockSchema,
  AnthropicToolResultBlockSchema,
  AnthropicToolUseBlockSchema,
  anthropicError,
  type AnthropicRequest,
} from './anthropic-wire.js';
import { errorText, generationBody, runGeneration, startGeneration, type GenerationEvent } from './generation-events.js';
import type { EngineMessage, EngineRequest, EngineResult, EngineToolCall, EngineToolChoice } from './llama-engine.js';
import type { ModelPool } from './model-pool.js';
import { ModelRequestError } from './model-request-error.js';
import { randomId } from './openai-wire.js';
import { parseModelRequest, readModelRequest } from './read-model-request.js';

/**
 * Anthropic's Messages API as Ollama serves it, mounted at `/v1/messages`
 * (the `anthropic` SDKs' base URL is the server's, without `/v1`): `system`,
 * text / tool_use / tool_result blocks, client tools and `tool_choice`,
 * `stop_sequences`, and `stream` as Anthropic's event sequence. `x-api-key`
 * and `anthropic-version` are accepted and not checked, as by Ollama.
 * Errors are Anthropic's `{"type":"error","error":{type,message}}`.
 *
 * @example
 * app.route('/v1/messages', anthropicRoutes({ pool, maxBodyBytes: 8 << 20, logger }));
 */
export function anthropicRoutes(options: { pool: ModelPool; maxBodyBytes: number; logger: Logger }): Hono {
  const { pool, maxBodyBytes, logger } = options;
  const app = new Hono();
  app.onError((error, c) => {
    if (error instanceof ModelRequestError) return c.json(anthropicError(error.status, error.message), error.status);
    if (FrameworkError.isInstance(error) && error.code === 'payload_too_large') return c.json(anthropicError(413, error.message), 413);
    logger.error('model request failed', { path: c.req.path, ...errorFields(error) });
    return c.json(anthropicError(500, `internal error: ${(error as Error).message ?? 'unknown'}`), 500);
  });

  app.post('/', async (c) => {
    const body = parseModelRequest(AnthropicRequestSchema, await readModelRequest(c, maxBodyBytes));
    const messages = engineMessages(body);
    const engine = await pool.chatEngine(body.model);
    const tools = (body.tools ?? []).map((t) => ({ name: t.name, description: t.description, parameters: t.input_schema }));
    const choice = toolChoiceOf(body, pool.forceToolCall === true);
    if (tools.length === 0 && choice !== 'auto' && choice !== 'none') {
      throw new ModelRequestError({ status: 400, message: 'tool_choice asks for a tool call but no tools were given' });
    }
    const request: Omit<EngineRequest, 'signal' | 'onText'> = {
      messages,
      options: {
        num_predict: body.max_tokens,
        // Anthropic's default temperature is 1.
        temperature: body.temperature ?? 1,
        ...(body.top_p === undefined ? {} : { top_p: body.top_p }),
        ...(body.top_k === undefined ? {} : { top_k: body.top_k }),
        ...(body.stop_sequences?.length ? { stop: body.stop_sequences } : {}),
      },
      ...(tools.length > 0 ? { tools, toolChoice: choice } : {}),
    };
    return respond(c, { engine, settled: pool.hold(engine.model.name), request, body });
  });

  app.all('*', (c) => c.json(anthropicError(404, `no route ${c.req.method} ${c.req.path}`), 404));
  return app;
}

function toolChoiceOf(body: AnthropicRequest, forceToolCall: boolean): EngineToolChoice {
  const choice = body.tool_choice;
  if (choice === undefined || choice.type === 'auto') {
    const fromUser = body.messages.at(-1)?.role === 'user' && !hasToolResult(body.messages.at(-1)!);
    return choice === undefined && forceToolCall && (body.tools?.length ?? 0) > 0 && fromUser ? 'required' : 'auto';
  }
  if (choice.type === 'any') return 'required';
  if (choice.type === 'none') return 'none';
  return { name: choice.name };
}

function hasToolResult(message: AnthropicRequest['messages'][number]): boolean {
  return typeof message.content !== 'string' && message.content.some((b) => b.type === 'tool_result');
}

/** `system` and `messages` as the engine's conversation; a block of another kind is a 400 naming it. */
function engineMessages(body: AnthropicRequest): EngineMessage[] {
  const out: EngineMessage[] = [];
  const system = typeof body.system === 'string' ? body.system : (body.system ?? []).map((b) => b.text).join('\n');
  if (system) out.push({ role: 'system', content: system });
  const names = new Map<string, string>();
  body.messages.forEach((m, i) => {
    if (typeof m.content === 'string') {
      out.push({ role: m.role, content: m.content });
      return;
    }
    const texts: string[] = [];
    const calls: EngineToolCall[] = [];
    m.content.forEach((block, j) => {
      const at = `messages.${i}.content.${j}`;
      if (block.type === 'text') texts.push(parseModelRequest(AnthropicTextBlockSchema, block).text);
      else if (block.type === 'tool_use' && m.role === 'assistant') {
        const use = parseModelRequest(AnthropicToolUseBlockSchema, block);
        names.set(use.id, use.name);
        calls.push({ id: use.id, name: use.name, arguments: use.input });
      } else if (block.type === 'tool_result' && m.role === 'user') {
        const result = parseModelRequest(AnthropicToolResultBlockSchema, block);
        const content = typeof result.content === 'string' ? result.content : blockTexts(result.content, at);
        const name = names.get(result.tool_use_id);
        out.push({
          role: 'tool',
          content: result.is_error ? `Error: ${content}` : content,
          toolCallId: result.tool_use_id,
          ...(name ? { toolName: name } : {}),
        });
      } else if (block.type !== 'thinking' && block.type !== 'redacted_thinking') {
        throw new ModelRequestError({
          status: 400,
          message: `${at}: content blocks of type '${block.type}' are not supported in ${m.role} messages by this server: the models here read text only`,
        });
      }
    });
    if (texts.length > 0 || calls.length > 0 || m.role === 'assistant') {
      out.push({ role: m.role, content: texts.join(''), ...(calls.length ? { toolCalls: calls } : {}) });
    }
  });
  return out;
}

function blockTexts(blocks: ReadonlyArray<{ type: string }>, at: string): string {
  return blocks
    .map((block) => {
      if (block.type === 'text') return parseModelRequest(AnthropicTextBlockSchema, block).text;
      throw new ModelRequestError({ status: 400, message: `${at}: tool results of type '${block.type}' are not supported: the models here read text only` });
    })
    .join('');
}

interface Reply {
  engine: Parameters<typeof runGeneration>[0]['engine'];
  settled: () => void;
  request: Omit<EngineRequest, 'signal' | 'onText'>;
  body: AnthropicRequest;
}

function stopReason(result: EngineResult): string {
  if (result.toolCalls?.length) return 'tool_use';
  if (result.doneReason === 'length') return 'max_tokens';
  return result.stopSequence === undefined ? 'end_turn' : 'stop_sequence';
}

function toolUses(result: EngineResult) {
  return (result.toolCalls ?? []).map((call) => ({ type: 'tool_use' as const, id: `toolu_${randomId()}`, name: call.name, input: call.arguments ?? {} }));
}

/** Answers with the message, or with Anthropic's server-sent events from `message_start` to `message_stop`. */
async function respond(c: Context, k: Reply): Promise<Response> {
  const abort = clientAbort(c);
  const generation = { engine: k.engine, request: { ...k.request, signal: abort.signal }, settled: k.settled, unloadAfter: false };
  const id = `msg_${randomId()}`;
  const usage = (r: EngineResult) => ({
    input_tokens: r.promptEvalCount,
    output_tokens: r.evalCount,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  });
  if (!k.body.stream) {
    const result = await runGeneration(generation);
    const content = [...(result.text === '' && result.toolCalls?.length ? [] : [{ type: 'text', text: result.text }]), ...toolUses(result)];
    return c.json({
      id,
      type: 'message',
      role: 'assistant',
      model: k.body.model,
      content,
      stop_reason: stopReason(result),
      stop_sequence: result.stopSequence ?? null,
      usage: usage(result),
    });
  }

  const events = await startGeneration(generation);
  const sse = (type: string, fields: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
  let started = false;
  let textOpen = false;
  let index = 0;
  const start = () => {
    if (started) return '';
    started = true;
    const message = { id, type: 'message', role: 'assistant', model: k.body.model, content: [], stop_reason: null, stop_sequence: null };
    return sse('message_start', { message: { ...message, usage: { input_tokens: 0, output_tokens: 0 } } }) + sse('ping', {});
  };
  const openText = () => {
    if (textOpen) return '';
    textOpen = true;
    return sse('content_block_start', { index, content_block: { type: 'text', text: '' } });
  };
  const render = (event: GenerationEvent): string => {
    switch (event.kind) {
      case 'text':
        return start() + openText() + sse('content_block_delta', { index, delta: { type: 'text_delta', text: event.text } });
      case 'done': {
        const { result } = event;
        let out = start();
        if (!textOpen && !result.toolCalls?.length) out += openText();
        if (textOpen) {
          out += sse('content_block_stop', { index });
          index += 1;
        }
        for (const use of toolUses(result)) {
          out += sse('content_block_start', { index, content_block: { ...use, input: {} } });
          out += sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(use.input) } });
          out += sse('content_block_stop', { index });
          index += 1;
        }
        out += sse('message_delta', { delta: { stop_reason: stopReason(result), stop_sequence: result.stopSequence ?? null }, usage: usage(result) });
        return out + sse('message_stop', {});
      }
      case 'error':
        return start() + sse('error', anthropicError(500, errorText(event.error)));
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
