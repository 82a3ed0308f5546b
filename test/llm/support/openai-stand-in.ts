import { echoReply, sleep, splitReply, startStandIn, writeSlowly, type ReplyScript, type ScriptedMessage, type StandInServer } from './http-stand-in.js';

export interface OpenAiStandInOptions {
  /** Models it has; any other name gets a 404 `model_not_found`. Default `['test-model']`. */
  models?: string[];
  reply?: ReplyScript;
  /** Milliseconds between SSE events (default 0). */
  chunkDelayMs?: number;
  /** Milliseconds before the response headers (default 0). */
  responseDelayMs?: number;
  /** When set, requests without `Authorization: Bearer <key>` get a 401. */
  apiKey?: string;
}

/**
 * A stand-in for an OpenAI-compatible server: `POST /v1/chat/completions`,
 * one JSON completion, or SSE `data:` chunks ending with `data: [DONE]`.
 * Its base URL for clients is `${url}/v1`.
 */
export async function startOpenAiStandIn(options: OpenAiStandInOptions = {}): Promise<StandInServer> {
  const models = options.models ?? ['test-model'];
  const reply = options.reply ?? echoReply;
  return startStandIn(async (request, res) => {
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (request.method !== 'POST' || request.path !== '/v1/chat/completions') {
      json(404, { error: { message: `Unknown path ${request.path}`, type: 'invalid_request_error', code: null } });
      return;
    }
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      json(401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
      return;
    }
    const body = request.body as { model?: string; messages?: ScriptedMessage[]; stream?: boolean };
    const model = String(body.model);
    if (!models.includes(model)) {
      json(404, {
        error: {
          message: `The model \`${model}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          code: 'model_not_found',
        },
      });
      return;
    }
    if (options.responseDelayMs) await sleep(options.responseDelayMs);
    if (res.destroyed) return;
    const scripted = reply(body.messages ?? [], model);
    const text = typeof scripted === 'string' ? scripted : (scripted.content ?? '');
    const toolCalls =
      typeof scripted === 'string'
        ? undefined
        : scripted.toolCalls.map((call, i) => ({
            id: call.id ?? `call_stand_in_${i}`,
            type: 'function',
            function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
          }));
    const finishReason = toolCalls ? 'tool_calls' : 'stop';
    const id = 'chatcmpl-stand-in';
    const created = Math.floor(Date.now() / 1000);
    if (!body.stream) {
      json(200, {
        id,
        object: 'chat.completion',
        created,
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: toolCalls && !text ? null : text, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
            finish_reason: finishReason,
          },
        ],
        usage: { prompt_tokens: 7, completion_tokens: 11, total_tokens: 18 },
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (delta: Record<string, unknown>, finish: string | null) =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model,
        choices: [{ index: 0, delta, finish_reason: finish }],
      })}\n\n`;
    // Tool calls stream as OpenAI does: id and name first, then the arguments text in pieces.
    const toolParts = (toolCalls ?? []).flatMap((call, index) => {
      const args = call.function.arguments;
      const half = Math.ceil(args.length / 2);
      return [
        event({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }, null),
        ...[args.slice(0, half), args.slice(half)].filter(Boolean).map((piece) => event({ tool_calls: [{ index, function: { arguments: piece } }] }, null)),
      ];
    });
    const parts = [
      event({ role: 'assistant', content: toolCalls && !text ? null : '' }, null),
      ...(toolCalls && !text ? [] : splitReply(text).map((piece) => event({ content: piece }, null))),
      ...toolParts,
      event({}, finishReason),
      'data: [DONE]\n\n',
    ];
    await writeSlowly(res, parts, options.chunkDelayMs ?? 0);
  });
}
