import { createServer, type Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../../runtime/core/logger.js';
import { startPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { tarGz } from '../../support/tar.js';

// A large downloaded bundle inflates off the event loop: the server keeps answering /health between the moment the
// bundle server has sent the last byte and the moment the bundle is activated (inflated, read, compiled).

const MiB = 1024 * 1024;
let bundleServer: Server | undefined;
afterAll(async () => {
  await new Promise((resolve) => (bundleServer ? bundleServer.close(resolve) : resolve(undefined)));
});

describe('a large bundle archive', () => {
  it('inflates while the server keeps answering /health', async () => {
    // 3 x 60 MiB of zeros (about 180 KiB compressed): files the bundle does not load, but the archive must inflate.
    const archive = tarGz([
      { name: '.manifest', content: '{"revision":"big-1","roots":["authz"]}' },
      { name: 'authz/policy.rego', content: 'package authz\n\nallow := true\n' },
      ...[1, 2, 3].map((i) => ({ name: `blobs/blob-${i}.bin`, content: Buffer.alloc(60 * MiB) })),
    ]);
    const events: string[] = [];
    bundleServer = createServer((_req, res) => {
      res.once('finish', () => events.push('bundle sent'));
      res.writeHead(200, { ETag: '"big"' }).end(archive);
    });
    await new Promise<void>((resolve) => bundleServer?.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(bundleServer.address() as { port: number }).port}`;
    const logger: Logger = {
      debug() {},
      info(message) {
        if (message === 'bundle activated') events.push('activated');
      },
      warn(message, fields) {
        events.push(`warn ${message} ${JSON.stringify(fields)}`);
      },
      error() {},
    };
    const server = await startPolicyServer({
      port: 0,
      watch: false,
      workers: 0,
      logger,
      bundleLimits: { maxArchiveBytes: 16 * MiB, maxTotalBytes: 200 * MiB, maxFileBytes: 64 * MiB, maxFiles: 10 },
      remoteBundles: [{ name: 'authz', url: `${url}/bundle.tar.gz`, headers: {}, minDelaySeconds: 60, maxDelaySeconds: 60 }],
    });
    try {
      // Health requests one after another until the bundle is active; each answer is an event in order.
      let longestGapMs = 0;
      let last = performance.now();
      const deadline = Date.now() + 60_000;
      while (!events.includes('activated') && !events.some((e) => e.startsWith('warn')) && Date.now() < deadline) {
        const res = await fetch(`${server.url}/health`);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        events.push('health');
        const now = performance.now();
        if (events.includes('bundle sent')) longestGapMs = Math.max(longestGapMs, now - last);
        last = now;
      }
      expect(events.filter((e) => e.startsWith('warn'))).toEqual([]);
      const sent = events.indexOf('bundle sent');
      const activated = events.indexOf('activated');
      expect(sent).toBeGreaterThanOrEqual(0);
      expect(activated).toBeGreaterThan(sent);
      const answeredMeanwhile = events.slice(sent, activated).filter((e) => e === 'health').length;
      console.log(`health answers while the bundle inflated: ${answeredMeanwhile}; longest wait for one: ${longestGapMs.toFixed(0)} ms`);
      // Inflated on the event loop, 180 MiB holds it for the whole inflation: at most the one answer already on its way.
      expect(answeredMeanwhile).toBeGreaterThanOrEqual(3);
      const decision = await fetch(`${server.url}/v1/data/authz/allow`);
      expect(await decision.json()).toEqual({ result: true });
    } finally {
      await server.close();
    }
  }, 90_000);
});
