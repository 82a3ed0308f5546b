import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST the receiver got. */
export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/**
 * A real webhook receiver on loopback (node:http): records every POST and
 * answers 200, or 503 for the first `failFirst` POSTs to a path. `waitFor`
 * resolves once `predicate` holds for the deliveries of a path.
 */
export async function startWebhookReceiver(options: { failFirst?: Record<string, number> } = {}) {
  const deliveries: Delivery[] = [];
  const attempts = new Map<string, number>();
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const n = (attempts.get(path) ?? 0) + 1;
      attempts.set(path, n);
      if (n <= (options.failFirst?.[path] ?? 0)) {
        res.writeHead(503).end('try later');
        return;
      }
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text
      }
      deliveries.push({ path, headers: req.headers, body });
      res.writeHead(200).end();
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    deliveries,
    attempts,
    /** Waits (up to 10 s) until `predicate` holds for the deliveries to `path`. */
    async waitFor(path: string, predicate: (got: Delivery[]) => boolean): Promise<Delivery[]> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const got = deliveries.filter((d) => d.path === path);
        if (predicate(got)) return got;
        if (Date.now() > deadline) throw new Error(`webhook ${path}: condition not met; got ${JSON.stringify(got.map((d) => d.body))}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200).unref();
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
