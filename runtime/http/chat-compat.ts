import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { stream as honoStream } from 'hono/streaming';
import { z } from 'zod';
import type { AgentResponse } from '../core/agent-response.js';
import { BadRequestError } from '../core/errors/bad-request-error.js';
import type { FrameworkCore } from '../core/framework-core.js';
import type { Logger } from '../core/logger.js';
import type { SessionStore } from '../sessions/session-store.js';
import type { AgentIdentity } from './agent-identity.js';
import { clientAbort, requestHeader } from '../core/server/node-bindings.js';
import { readJsonBody } from '../core/server/read-json-body.js';
import { assertNever } from '../core/assert-never.js';
import { runTaskForTransport } from '../core/task-events.js';

/**
 * The chat-UI compatibility mode: the part of the Ollama API that chat web
 * interfaces (Open WebUI and the like) speak, with the agent listed as a model.
 *
 * Chat APIs carry no conversation id: the client resends the whole history.
 * Conversations are bound to who is calling, so one caller can never reach
 * another's: `Authorization: Bearer` with one of the agent's API keys
 * (CHAT_API_KEYS) or a session token. With an API key, Open WebUI's forwarded
 * `X-OpenWebUI-User-Id` and `X-OpenWebUI-Chat-Id` headers name the user and
 * the chat (a chat id maps to its own context directly). Otherwise, after a
 * reply, the fingerprint of the caller and the history including that reply
 * is remembered, and a request whose earlier messages match it continues that
 * context. A caller without identity gets a new conversation every time,
 * unless the operator allows anonymous continuation (unsafe with more than
 * one user: anyone replaying a history continues it).
 *
 * Approvals (a tool call or a plan waiting for a person's "yes") are asked
 * only of callers the chat can tell apart: a session token, a key with a
 * forwarded user header, or a key that belongs to one person
 * (CHAT_PER_USER_KEYS). Otherwise the task refuses what needs approval and
 * says how to enable it. Each question ends with a server-issued random
 * reference, so the history that continues the conversation holding it
 * cannot be rebuilt from the question's public format.
 */
export interface ChatCompatOptions {
  core: FrameworkCore;
  sessions: SessionStore;
  agent: AgentIdentity;
  logger: Logger;
  maxBodyBytes: number;
  /** Keys accepted as `Authorization: Bearer`; when any is set, every chat request needs a key or a session token. */
  apiKeys?: readonly string[];
  /** Continue conversations of callers without identity by their history alone (CHAT_ANONYMOUS_CONTINUATION). */
  anonymousContinuation?: boolean;
  /** Every key of `apiKeys` belongs to one person (CHAT_PER_USER_KEYS), so a key alone tells callers apart. */
  perUserKeys?: boolean;
}

/** Who is calling, as far as the request proves it. */
interface Caller {
  /** Stable scope of the caller's conversations; undefined for an anonymous caller. */
  scope: string | undefined;
  /** The chat the caller named (Open WebUI's chat id), when trusted. */
  chatId: string | undefined;
  /** Why no one can approve anything for this caller (callers sharing this identity cannot be told apart); undefined when they can. */
  approvalsOff: string | undefined;
}

/** Why approvals are refused to a caller that cannot be told from others, and how to enable them. */
const APPROVALS_OFF = {
  anonymous:
    'this chat cannot tell its users apart (no API key or session token), so no one can approve here. To enable approvals, send a per-user key (CHAT_API_KEYS with CHAT_PER_USER_KEYS=true) or a session token from POST /session/start',
  sharedKey:
    'this chat cannot tell its users apart (one API key shared, no forwarded user headers), so no one can approve here. To enable approvals, give each person their own key (CHAT_API_KEYS with CHAT_PER_USER_KEYS=true) or have the chat interface forward user headers (Open WebUI: ENABLE_FORWARD_USER_INFO_HEADERS=true, which sends X-OpenWebUI-User-Id)',
};

/** Background prompts of Open WebUI (titles, tags, follow-up questions): never the agent's task. */
const BACKGROUND_TASK = /^\s*### Task:/;

/** Longest reply kept to answer a regenerated request without running the task again. */
const MAX_REMEMBERED_REPLY = 64 * 1024;

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

  const doneMessage = (content: string) => ({
    model: modelName,
    created_at: new Date().toISOString(),
    message: { role: 'assistant', content },
    done: true,
    done_reason: 'stop',
  });
  /** A reply given without running the task: one JSON object, or as NDJSON with the content then the final line. */
  const answerWith = (c: Context, content: string, stream: boolean): Response => {
    if (!stream) return c.json(doneMessage(content));
    const partial = { model: modelName, created_at: new Date().toISOString(), message: { role: 'assistant', content }, done: false };
    return c.body(`${JSON.stringify(partial)}\n${JSON.stringify(doneMessage(''))}\n`, 200, { 'Content-Type': 'application/x-ndjson' });
  };
  // Background tasks get a harmless answer every task kind can parse; the agent's task never runs for them.
  const backgroundAnswer = (c: Context, stream: boolean) => answerWith(c, JSON.stringify({ title: options.agent.name, tags: [], follow_ups: [] }), stream);
  const replay = (c: Context, reply: string, stream: boolean) => answerWith(c, reply, stream);

  const keyHashes = (options.apiKeys ?? []).map((key) => createHash('sha256').update(key).digest());

  /** The caller of a request; a bearer that is neither a key nor a live session token is refused. */
  async function callerOf(header: (name: string) => string | undefined): Promise<Caller | 'refused'> {
    const bearer = /^Bearer\s+(\S+)$/i.exec(header('authorization') ?? '')?.[1];
    if (bearer === undefined) {
      if (keyHashes.length > 0) return 'refused';
      return { scope: options.anonymousContinuation ? 'anonymous' : undefined, chatId: undefined, approvalsOff: APPROVALS_OFF.anonymous };
    }
    const hash = createHash('sha256').update(bearer).digest();
    if (keyHashes.some((known) => timingSafeEqual(known, hash))) {
      const user = header('x-openwebui-user-id');
      const chat = header('x-openwebui-chat-id');
      return {
        scope: `key:${hash.toString('base64url').slice(0, 16)}${user ? `|user:${user}` : ''}`,
        chatId: chat || undefined,
        approvalsOff: user || options.perUserKeys ? undefined : APPROVALS_OFF.sharedKey,
      };
    }
    const session = await options.sessions.resolve(bearer);
    return session ? { scope: `session:${session.contextId}`, chatId: undefined, approvalsOff: undefined } : 'refused';
  }

  app.post('/api/chat', async (c) => {
    const caller = await callerOf((name) => requestHeader(c, name));
    if (caller === 'refused') {
      return c.json(
        { error: "unauthorized: send Authorization: Bearer with one of this agent's API keys (CHAT_API_KEYS) or a session token from POST /session/start" },
        401,
        {
          'WWW-Authenticate': 'Bearer realm="agent chat"',
        },
      );
    }
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
    if (BACKGROUND_TASK.test(last.content)) return backgroundAnswer(c, request.stream !== false);
    const earlier = conversation.slice(0, -1);
    const scoped = (messages: readonly Pick<ChatMessage, 'role' | 'content'>[], kind: string) => `${kind}:${fingerprint(messages, `${caller.scope}`)}`;
    const known =
      caller.chatId !== undefined
        ? `chat-${createHash('sha256').update(`${caller.scope}\u0000${caller.chatId}`).digest('hex').slice(0, 32)}`
        : caller.scope !== undefined && earlier.length > 0
          ? await options.sessions.findConversation(scoped(earlier, 'conv'))
          : undefined;
    const contextId = known ?? randomUUID();
    // A regenerated reply resends the same history: answer it from memory rather than run the task (and apply a plan change)
    // twice. Not for a first message: two new chats may well open alike, and a first message starts a new context anyway.
    const answeredKey = caller.scope === undefined || earlier.length === 0 ? undefined : scoped(conversation, 'answered');
    const answered = answeredKey === undefined ? undefined : await options.sessions.findConversation(answeredKey);
    if (answered !== undefined) return replay(c, answered, request.stream !== false);

    const abort = clientAbort(c);
    const started = process.hrtime.bigint();
    const responses = runTaskForTransport({
      core: options.core,
      query: last.content,
      contextId,
      ...(caller.approvalsOff === undefined ? {} : { approvalsOff: caller.approvalsOff }),
      abort,
      logger: options.logger,
    });
    /** A response as chat text; a question waiting for a reply ends with a random reference that binds the conversation (see above). */
    const textOf = (response: AgentResponse) =>
      response.type === 'input_required' ? `${renderAsText(response)}_Reference ${randomBytes(12).toString('base64url')}_\n\n` : renderAsText(response);
    let reply = '';
    let pieces = 0;
    const remember = async () => {
      if (caller.scope === undefined) return; // an anonymous conversation cannot be continued: nothing to remember
      await options.sessions.rememberConversation(scoped([...conversation, { role: 'assistant', content: reply }], 'conv'), contextId);
      if (answeredKey !== undefined && reply.length <= MAX_REMEMBERED_REPLY) await options.sessions.rememberConversation(answeredKey, reply);
    };
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
        reply += textOf(response);
        pieces += 1;
      }
      await remember();
      return c.json(final());
    }

    c.header('Content-Type', 'application/x-ndjson');
    return honoStream(c, async (out) => {
      out.onAbort(() => abort.abort());
      for await (const response of responses) {
        const text = textOf(response);
        reply += text;
        pieces += 1;
        await out.write(`${JSON.stringify(chunk(text, false))}\n`);
      }
      if (abort.aborted) return;
      await remember().catch((error: unknown) => options.logger.warn('could not remember chat conversation', { error: String(error) }));
      await out.write(`${JSON.stringify(final())}\n`);
    });
  });
}

/** Stable key of a chat history (roles and contents only) within a caller's `scope`. */
export function fingerprint(messages: readonly Pick<ChatMessage, 'role' | 'content'>[], scope = ''): string {
  const hash = createHash('sha256');
  hash.update(`${scope}\u0002`);
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
