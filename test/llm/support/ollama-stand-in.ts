import { echoReply, sleep, splitReply, startStandIn, writeSlowly, type ReplyScript, type ScriptedMessage, type StandInServer } from './http-stand-in.js';

export interface OllamaStandInOptions {
  /** Models it has; any other name gets Ollama's 404. Default `['test-model']`. */
  models?: string[];
  reply?: ReplyScript;
  /** Milliseconds between streamed lines (default 0). */
  chunkDelayMs?: number;
  /** Milliseconds before the response headers (default 0). */
  responseDelayMs?: number;
  /** An error to send inside the stream after the first chunk, as Ollama does for mid-generation failures. */
  streamError?: string;
}

/**
 * A stand-in for the Ollama runtime: `POST /api/chat`, one JSON object when
 * `stream` is false, NDJSON lines ending with `done: true` otherwise.
 */
export async function startOllamaStandIn(options: OllamaStandInOptions = {}): Promise<StandInServer> {
  const models = options.models ?? ['test-model'];
  const reply = options.reply ?? echoReply;
  return startStandIn(async (request, res) => {
    if (request.method !== 'POST' || request.path !== '/api/chat') {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('404 page not found');
      return;
    }
    const body = request.body as { model?: string; messages?: ScriptedMessage[]; stream?: boolean };
    const model = String(body.model);
    if (!models.includes(model)) {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ error: `model '${model}' not found, try pulling it first` }));
      return;
    }
    if (options.responseDelayMs) await sleep(options.responseDelayMs);
    if (res.destroyed) return;
    const scripted = reply(body.messages ?? [], model);
    const text = typeof scripted === 'string' ? scripted : (scripted.content ?? '');
    const toolCalls =
      typeof scripted === 'string'
        ? undefined
        : scripted.toolCalls.map((call) => ({ ...(call.id ? { id: call.id } : {}), function: { name: call.name, arguments: call.arguments } }));
    const createdAt = new Date().toISOString();
    const line = (content: string, done: boolean, calls?: unknown[]) =>
      JSON.stringify({
        model,
        created_at: createdAt,
        message: { role: 'assistant', content, ...(calls ? { tool_calls: calls } : {}) },
        done,
        ...(done ? { done_reason: 'stop', prompt_eval_count: 7, eval_count: 11 } : {}),
      });
    if (body.stream === false) {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(line(text, true, toolCalls));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const parts = text === '' && toolCalls ? [] : splitReply(text).map((piece) => `${line(piece, false)}\n`);
    // Ollama streams a reply's tool calls whole, in one line before the final one.
    if (toolCalls) parts.push(`${line('', false, toolCalls)}\n`);
    if (options.streamError) parts.splice(1, parts.length - 1, `${JSON.stringify({ error: options.streamError })}\n`);
    else parts.push(`${line('', true)}\n`);
    await writeSlowly(res, parts, options.chunkDelayMs ?? 0);
  });
}
