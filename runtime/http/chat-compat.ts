import { createHash, randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { stream as honoStream } from 'hono/streaming';
import { z } from 'zod';
import type { AgentResponse } from '../core/agent-response.js';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import type { FrameworkCore } from '../core/framework-core.js';
import type { Logger } from '../core/logger.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { AgentIdentity } from './agent-identity.js';
import { clientAbort } from '../core/server/node-bindings.js';
import { readJsonBody } from '../core/server/read-json-body.js';
import { assertNever } from '../core/assert-never.js';
import { runTaskForTransport } from '../core/task-events.js';

/**
 * The chat-UI compatibility mode: the part of the Ollama API that chat web
 * interfaces (Open WebUI and the like) speak, with the agent listed as a model.
 *
 * Chat APIs carry no conversation id: the client resends the whole history.
 * Each conversation gets its own context: after a reply, the fingerprint of
 * the history including that reply is remembered in the session store, and a
 * request whose earlier messages have a known fingerprint continues that
 * context. A history we never answered starts a new one.
 */
export interface ChatCompatOptions {
  core: FrameworkCore;
  sessions: SessionStore;
  agent: AgentIdentity;
  logger: Logger;
  maxBodyBytes: number;
}

const ChatMessageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
});

const ChatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessageSchema).min(1),
  stream: z.boolean().optional(),
});

type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** Ollama protocol version we answer with; clients use it for feature checks. */
const OLLAMA_API_VERSION = '0.6.0';

export function mountChatCompat(app: Hono, options: ChatCompatOptions): void {
  const modelName = `${options.agent.name}:latest`;
  const digest = createHash('sha256').update(modelName).digest('hex');
  const modifiedAt = new Date().toISOString();
  const modelMatches = (name: string) => name === modelName || name === options.agent.name;

  app.get('/api/version', (c) => c.json({ version: OLLAMA_API_VERSION }));

  app.get('/api/tags', (c) =>
    c.json({
      models: [
        {
          name: modelName,
          model: modelName,
          modified_at: modifiedAt,
          size: 0,
          digest,
          details: { parent_model: '', format: 'agent', family: 'framework_core', families: ['framework_core'], parameter_size: '', quantization_level: '' },
        },
      ],
    }),
  );

  app.post('/api/chat', async (c) => {
    const raw = await readJsonBody(c, { maxBytes: options.maxBodyBytes });
    const parsed = ChatRequestSchema.safeParse(raw);
    if (!parsed.success) {
      return c.json({ error: `invalid chat request: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}` }, 400);
    }
    const request = parsed.data;
    if (!modelMatches(request.model)) {
      return c.json({ error: `model '${request.model}' not found, this agent serves '${modelName}'` }, 404);
    }
    const conversation = request.messages.filter((m) => m.role === 'user' || m.role === 'assistant');
    const last = conversation.at(-1);
    if (!last || last.role !== 'user') {
      throw new BadRequestError({ code: 'invalid_request', message: 'The last chat message must come from the user.' });
    }
    const earlier = conversation.slice(0, -1);
    const known = earlier.length > 0 ? await options.sessions.findConversation(fingerprint(earlier)) : undefined;
    const contextId = known ?? randomUUID();

    const abort = clientAbort(c);
    const started = process.hrtime.bigint();
    const responses = runTaskForTransport({
      core: options.core,
      query: last.content,
      contextId,
      signal: abort.signal,
      logger: options.logger,
    });
    let reply = '';
    let pieces = 0;
    const remember = () => options.sessions.rememberConversation(fingerprint([...conversation, { role: 'assistant', content: reply }]), contextId);
    const chunk = (content: string, done: boolean) => ({
      model: modelName,
      created_at: new Date().toISOString(),
      message: { role: 'assistant', content },
      done,
    });
    const final = () => {
      const elapsed = Number(process.hrtime.bigint() - started);
      return {
        ...chunk(request.stream === false ? reply : '', true),
        done_reason: 'stop',
        total_duration: elapsed,
        load_duration: 0,
        prompt_eval_count: 0,
        prompt_eval_duration: 0,
        eval_count: pieces,
        eval_duration: elapsed,
      };
    };

    if (request.stream === false) {
      for await (const response of responses) {
        reply += renderAsText(response);
        pieces += 1;
      }
      await remember();
      return c.json(final());
    }

    c.header('Content-Type', 'application/x-ndjson');
    return honoStream(c, async (out) => {
      out.onAbort(() => abort.abort());
      for await (const response of responses) {
        const text = renderAsText(response);
        reply += text;
        pieces += 1;
        await out.write(`${JSON.stringify(chunk(text, false))}\n`);
      }
      if (abort.signal.aborted) return;
      await remember().catch((error: unknown) => options.logger.warn('could not remember chat conversation', { error: String(error) }));
      await out.write(`${JSON.stringify(final())}\n`);
    });
  });
}

/** Stable key of a chat history (roles and contents only). */
export function fingerprint(messages: readonly Pick<ChatMessage, 'role' | 'content'>[]): string {
  const hash = createHash('sha256');
  // Contents are trimmed: chat windows often drop the trailing blank lines of a reply.
  for (const m of messages) hash.update(`${m.role}\u0000${m.content.trim()}\u0001`);
  return hash.digest('base64url');
}

/** An agent response as assistant text for a chat window (Markdown). */
export function renderAsText(response: AgentResponse): string {
  switch (response.type) {
    case 'status':
      return `_${response.text}_\n\n`;
    case 'text':
    case 'input_required':
      return `${response.text}\n\n`;
    case 'result': {
      const { answer, sources } = response.data as { answer?: unknown; sources?: unknown };
      if (typeof answer === 'string') {
        const list =
          Array.isArray(sources) && sources.length > 0
            ? `\n\nSources:\n${sources.map((s) => `- ${typeof s === 'string' ? s : JSON.stringify(s)}`).join('\n')}`
            : '';
        return `${answer}${list}\n\n`;
      }
      return `\`\`\`json\n${JSON.stringify(response.data, null, 2)}\n\`\`\`\n\n`;
    }
    case 'error':
      return `**Error (${response.code}):** ${response.message}\n\n`;
    default:
      return assertNever(response);
  }
}
