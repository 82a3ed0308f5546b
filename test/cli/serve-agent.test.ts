import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

describe('framework-cli serve agent', () => {
  it('prints JSON lines with --json and stops cleanly on SIGTERM', async () => {
    const { code, stdout, stderr } = await runCli(['serve', 'agent', '--port', '0', '--json'], { stopWhen: /listening/ });
    expect(code, stderr).toBe(0);
    // One JSON line when listening, then oclif's JSON document of the result.
    const [first = '', ...rest] = stdout.trim().split('\n');
    const listening = JSON.parse(first) as { event: string; url: string };
    expect(listening.event).toBe('listening');
    expect(listening.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(JSON.parse(rest.join('\n'))).toEqual({ url: listening.url, stopped: true });
    expect(code).toBe(0);
  });

  it('says which port is taken and how to choose another', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, stderr } = await runCli(['serve', 'agent', '--port', String(port)], { stopWhen: /listening/ });
      expect(code).toBe(1);
      expect(stderr).toContain(`Port ${port} on 127.0.0.1 is already in use`);
      expect(stderr).toContain('AGENT_PORT');
    } finally {
      blocker.close();
    }
  });

  it('rejects a module that is not an agent with the expected shape', async () => {
    const { code, stderr } = await runCli(['serve', 'agent', '--module', 'package.json']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/not an agent module|Could not import/);
  });
});
