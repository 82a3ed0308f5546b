/**
 * A service whose OTLP backend cannot be reached when it stops: the spans
 * still in its batch are lost, its log says so in one line, and the stop is
 * still a clean one (exit 0). Until 4 Dec the final flush's rejection became
 * the command's error: `serve agent` exited 1 with `connect ECONNREFUSED`,
 * as if it had crashed. A real `serve agent` child process, a port nothing
 * listens on. Run `npm run build` first.
 */
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/net.js';
import { startService } from '../support/processes.js';

describe('a service whose OTLP backend is down when it stops', () => {
  it('loses the last spans with a line in its log and exits 0', async () => {
    const [port, nobody] = [await freePort(), await freePort()];
    const agent = await startService({
      name: 'agent-backend-down',
      port,
      args: ['serve', 'agent', '--port', String(port)],
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${nobody}`,
        OTEL_METRICS_EXPORTER: 'none',
        // The exporter retries a refused connection until this timeout; short, so the stop is quick.
        OTEL_EXPORTER_OTLP_TIMEOUT: '1000',
      },
      timeoutMs: 45_000,
    });
    const exited = new Promise<number | null>((resolve) => agent.process.once('exit', (code) => resolve(code)));
    try {
      // A request makes spans, which wait in the batch (5 s) when the stop comes.
      const response = await fetch(`${agent.url}/stream`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"query":"hello"}' });
      expect(response.status).toBe(200);
      await response.text();
    } finally {
      await agent.stop();
    }
    expect(await exited).toBe(0);
    expect(agent.output()).toMatch(/telemetry: the last spans or metrics could not be sent when stopping \(.*ECONNREFUSED.*\); they are lost/);
    expect(agent.output()).not.toMatch(/Error: connect/);
  }, 60_000);
});
