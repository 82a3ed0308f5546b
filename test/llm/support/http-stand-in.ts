import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a stand-in received, as it arrived. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: any;
  /** Resolves when the exchange ends: `finished` when the reply was sent, `closed` when the client went away first. */
  settled: Promise<'finished' | 'closed'>;
}

export interface StandInServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export type StandInHandler = (request: RecordedRequest, res: ServerResponse) => Promise<void> | void;

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A real HTTP server on 127.0.0.1 and a free port that records every request. */
export async function startStandIn(handler: StandInHandler): Promise<StandInServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const settled = new Promise<'finished' | 'closed'>((resolve) => {
      res.on('close', () => resolve(res.writableFinished ? 'finished' : 'closed'));
    });
    void (async () => {
      const body = await readBody(req);
      const recorded: RecordedRequest = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body,
        settled,
      };
      requests.push(recorded);
      await handler(recorded, res);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An address where nothing listens: a port just released by the OS. */
export async function unusedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Writes `parts` with `delayMs` between them, stopping when the client goes away. */
export async function writeSlowly(res: ServerResponse, parts: readonly string[], delayMs: number): Promise<void> {
  for (const [i, part] of parts.entries()) {
    if (res.destroyed) return;
    if (i > 0 && delayMs > 0) await sleep(delayMs);
    if (res.destroyed) return;
    res.write(part);
  }
  if (!res.destroyed) res.end();
}

/**
 * A message as the stand-in received it, in its wire format (Ollama's
 * `tool_name`, OpenAI's `tool_call_id`, ...). On the OpenAI wire an assistant
 * message carrying only tool calls has `content: null`.
 */
export interface ScriptedMessage {
  role: string;
  content: string;
  tool_calls?: any[];
  tool_call_id?: string;
  tool_name?: string;
}

/** A scripted tool call; `arguments` as text is sent verbatim on the OpenAI wire (to script unparsable JSON). */
export interface ScriptedToolCall {
  /** Omitted: no id on the Ollama wire (as older Ollama versions send); the OpenAI stand-in makes one up. */
  id?: string;
  name: string;
  arguments: Record<string, unknown> | string;
}

/** A reply asking for tool calls, with optional text beside them. */
export interface ScriptedToolTurn {
  content?: string;
  toolCalls: ScriptedToolCall[];
}

/**
 * What a stand-in answers to `messages`: text, or tool calls. The default
 * echoes the last user message and counts the history.
 */
export type ReplyScript = (messages: ScriptedMessage[], model: string) => string | ScriptedToolTurn;

export const echoReply: ReplyScript = (messages) => {
  const last = [...messages].reverse().find((m) => m.role === 'user');
  return `echo: ${last?.content ?? ''} (${messages.length} messages)`;
};

/** The messages after the last user message: this `invoke`'s tool rounds so far. */
export function sinceLastUser(messages: readonly ScriptedMessage[]): ScriptedMessage[] {
  const index = messages.map((m) => m.role).lastIndexOf('user');
  return messages.slice(index + 1);
}

/**
 * Asks for `calls` until tool results arrive, then answers
 * `answer: <result contents joined by |>`.
 */
export function toolCallingReply(calls: ScriptedToolCall[]): ReplyScript {
  return (messages) => {
    const results = sinceLastUser(messages).filter((m) => m.role === 'tool');
    if (results.length === 0) return { toolCalls: calls };
    return `answer: ${results.map((r) => r.content).join(' | ')}`;
  };
}

/** Splits a reply into streamed pieces: words with their following space. */
export function splitReply(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [''];
}
