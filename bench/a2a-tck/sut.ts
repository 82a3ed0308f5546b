/**
 * The A2A TCK's system under test, served by our A2A endpoint: JSON-RPC,
 * HTTP+JSON (REST), gRPC (on the next port) and v0.3 JSON-RPC, push notifications, the card, all
 * through `createA2AServer` (the same guard, stores and sender as an agent),
 * with the TCK's scenario executor behind it. Unsigned calls are accepted
 * (the TCK does not sign) and validation is disabled; push webhooks may
 * target any host (A2A_PUSH_ALLOWED_HOSTS=*, the TCK uses example.com).
 *
 * `A2A_TCK_SUT=main` serves what the TCK's `main` branch expects instead
 * (its reference SUT's executor: tasks stay working; the card at
 * `localhost`, since that TCK flags `127.0.0.1` in a card as an internal
 * address but allows `localhost`). `A2A_TCK_SUT=0.3` serves the TCK's
 * `0.3.x` branch: the same executor (its tests continue and cancel tasks
 * after the send answered, which needs tasks still in progress) and the card
 * in the 0.3 shape without an `A2A-Version` header (A2A_CARD_DEFAULT_VERSION=0.3),
 * as an agent serving v0.3 peers would run.
 *
 *   node dist/bench/a2a-tck/sut.js [port]   (default 9999; prints "listening <url>")
 */
import type { Context } from 'hono';
import { parseAgentCard } from '../../runtime/a2a/agent-card.js';
import { createA2AServer } from '../../runtime/a2a/a2a-server.js';
import { loadAgentConfig } from '../../runtime/core/config.js';
import { FrameworkCore } from '../../runtime/core/framework-core.js';
import { createLogger } from '../../runtime/core/logger.js';
import { createBaseApp } from '../../runtime/core/server/base-app.js';
import { listen } from '../../runtime/core/server/listen.js';
import { MainBranchExecutor } from './main-executor.js';
import { TckExecutor } from './tck-executor.js';

const port = Number(process.argv[2] ?? 9999);
const mainBranch = process.env.A2A_TCK_SUT === 'main';
const v03Branch = process.env.A2A_TCK_SUT === '0.3';
const env = {
  ...process.env,
  ...(v03Branch ? { A2A_CARD_DEFAULT_VERSION: '0.3' } : {}),
  AGENT_NAME: 'tck-sut',
  A2A_VALIDATION_MODE: 'disabled',
  SESSION_BACKEND: process.env.SESSION_BACKEND ?? 'memory',
  // The TCK registers webhooks on example.com and on its own loopback receiver; nothing else listens here.
  A2A_PUSH_ALLOWED_HOSTS: process.env.A2A_PUSH_ALLOWED_HOSTS ?? '*',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
};
const config = loadAgentConfig({ env });
const logger = createLogger({ name: 'tck-sut', level: config.logLevel });
const [card] = parseAgentCard({
  name: 'tck-sut',
  description: 'framework_core A2A endpoint under the A2A TCK',
  url: `http://${mainBranch ? 'localhost' : '127.0.0.1'}:${port}/`,
  version: '1.0.0',
  provider: { organization: 'framework_core', url: 'https://example.com/framework_core' },
  capabilities: { streaming: true, pushNotifications: true },
  skills: [{ id: 'tck', name: 'TCK Conformance', description: 'Handles TCK conformance messages', tags: ['tck'] }],
});
const server = await createA2AServer({
  core: new FrameworkCore(),
  card,
  config,
  logger,
  env,
  executor: mainBranch || v03Branch ? new MainBranchExecutor() : new TckExecutor(),
});
const app = createBaseApp({ logger });
const direct = server.mount(app);
if (mainBranch) {
  // The main branch's REST client joins its paths to the interface URL with a leading slash (urljoin(base, "/tasks")),
  // which drops the interface's `/rest`: its REST requests arrive at the root and are passed on to `/rest`.
  const forward = async (c: Context) => {
    const url = new URL(c.req.url);
    url.pathname = `/rest${url.pathname}`;
    // …and sends no A2A-Version (absent means 0.3, whose REST binding we do not serve); the 1.0-dev branch fixed both.
    const request = new Request(url, c.req.raw);
    if (!request.headers.has('A2A-Version')) request.headers.set('A2A-Version', '1.0');
    const response = await app.fetch(request);
    if (response.status < 400 || c.req.raw.body === null) return response;
    // A refusal that did not read the whole body (413 over the limit) cancels the forwarded body stream, and with it
    // the client's connection: say so (`Connection: close`) rather than promise a keep-alive the next request would
    // find closed.
    const headers = new Headers(response.headers);
    headers.set('connection', 'close');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
  for (const path of ['/message:send', '/message:stream', '/tasks', '/tasks/*', '/extendedAgentCard']) app.all(path, forward);
}
const listening = await listen(app, { host: '127.0.0.1', port, direct });
// The gRPC binding on the next port (as the TCK's reference SUT serves it), A2A_TCK_GRPC_PORT to choose another.
const grpcListening =
  mainBranch || v03Branch
    ? undefined
    : await server.serveGrpc({ host: '127.0.0.1', port: Number(process.env.A2A_TCK_GRPC_PORT ?? (port === 0 ? 0 : port + 1)) });
console.log(`listening ${listening.url}${grpcListening ? ` grpc ${grpcListening.url}` : ''}`);
const stop = async () => {
  await grpcListening?.close();
  await listening.close();
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
