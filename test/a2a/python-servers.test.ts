import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { AgentCard } from '@a2a-js/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { cardFromConfig } from '../../runtime/a2a/agent-card.js';
import { agentConnection } from '../../runtime/a2a/agent-connection.js';
import { freePort } from '../support/net.js';
import { venvPython } from '../support/python-venv.js';
import { collect } from './support.js';

/**
 * Our client (`agentConnection`) against agents served by the official Python
 * A2A SDK (a2a-sdk 1.3.0 with its gRPC extra), each speaking ONE binding:
 * JSON-RPC only, HTTP+JSON only, gRPC only. The client must pick the binding
 * the card declares and get the answer. The Python servers do not check our
 * HMAC signature (validation is off on the calling side: no keys needed).
 */
const python = venvPython({
  env: 'FRAMEWORK_A2A_PYTHON',
  setup: "python3 -m venv .venv-a2a && .venv-a2a/bin/pip install 'a2a-sdk[http-server,grpc]==1.3.0' uvicorn==0.54.0",
});
const SERVER = fileURLToPath(new URL('./fixtures/a2a_python_server.py', import.meta.url));

let server: ChildProcess | undefined;
afterEach(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await once(server, 'exit');
  }
  server = undefined;
});

async function startPythonAgent(binding: string): Promise<AgentCard> {
  const [httpPort, grpcPort] = [await freePort(), await freePort()];
  server = spawn(python!, [SERVER, binding, String(httpPort), String(grpcPort)], { stdio: ['ignore', 'pipe', 'inherit'] });
  // Read stdout to its end (closing the pipe early would break the server's later writes).
  let out = '';
  await new Promise<void>((resolve, reject) => {
    server!.stdout!.on('data', (chunk: Buffer) => {
      out += String(chunk);
      if (out.includes('ready')) resolve();
    });
    server!.once('exit', (code) => reject(new Error(`the Python agent exited (${String(code)}) before it was ready`)));
  });
  const json: unknown = await (await fetch(`http://127.0.0.1:${httpPort}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json();
  return AgentCard.fromJSON(json);
}

describe.skipIf(!python)('our client against the official Python A2A servers of each binding', () => {
  const caller = cardFromConfig({ name: 'orchestrator', description: 'caller', version: '1.0.0', url: 'http://127.0.0.1:1/' });
  const env = { A2A_VALIDATION_MODE: 'disabled' };

  for (const binding of ['JSONRPC', 'HTTP+JSON', 'GRPC']) {
    it(`a ${binding}-only agent: the client speaks what its card declares and gets the answer`, async () => {
      const card = await startPythonAgent(binding);
      expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual([binding]);
      const chunks = await collect(agentConnection(caller, card, `hello over ${binding}`, { env }));
      const texts = chunks.filter((chunk) => chunk.kind === 'artifact').map((chunk) => chunk.text);
      expect(texts).toContain(`python heard: hello over ${binding}`);
      expect(chunks.at(-1)?.state).toBe('completed');
    }, 60_000);
  }
});
