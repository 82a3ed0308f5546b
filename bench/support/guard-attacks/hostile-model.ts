/** A scripted model for the guard's attacks: it asks for the tool call an attacker steered it to. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An Ollama `/api/chat` whose model asks for `place_trade` with `argumentsJson`
 * (JSON text, written as such: `1e400` stays `1e400`), then repeats the tool's answer.
 */
export async function startHostileModel(argumentsJson: string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url !== '/api/chat') {
        response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      const parsed = JSON.parse(body) as { stream?: boolean; messages: { role: string; content: string }[] };
      const last = parsed.messages.at(-1);
      const message =
        last?.role === 'tool'
          ? `{"role":"assistant","content":${JSON.stringify(`tool said: ${last.content}`)}}`
          : `{"role":"assistant","content":"","tool_calls":[{"function":{"name":"place_trade","arguments":${argumentsJson}}}]}`;
      const line = `{"model":"hostile","created_at":"2026-01-01T00:00:00Z","message":${message},"done":true,"done_reason":"stop"}`;
      response.writeHead(200, { 'content-type': parsed.stream === false ? 'application/json' : 'application/x-ndjson' }).end(`${line}\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
