import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { BundleConfigError, bundleConfigOf } from '../../../runtime/policy/server/bundle-config.js';
import { BundleDownloader } from '../../../runtime/policy/server/bundle-download.js';
import { startPolicyServer, type RunningPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { waitFor } from '../../support/net.js';
import { tarGz } from '../../support/tar.js';

// Long polling as OPA's downloader does it (v1/download/download.go), against a real bundle server that
// long-polls as OPA's protocol has it: `Prefer: modes=snapshot,delta;wait=N`, the request held while the
// bundle is unchanged, 304 after N seconds, bundles answered as application/vnd.openpolicyagent.bundles.
// The polling delays are 60..120 s, so a change seen within the test's seconds came through a held request.

function archive(revision: string, user: string): Buffer {
  return tarGz([
    { name: '.manifest', content: `{"revision":"${revision}","roots":["authz"]}` },
    { name: 'authz/policy.rego', content: `package authz\n\ndefault allow := false\n\nallow if input.user == "${user}"\n` },
  ]);
}

interface Seen {
  prefer: string | undefined;
  ifNoneMatch: string | undefined;
  /** Set when the client went away before an answer (an aborted held request). */
  abandoned: boolean;
}

/** A bundle server that long-polls when asked to wait, answering with `contentType`. */
class LongPollServer {
  current: { body: Buffer; etag: string };
  contentType = 'application/vnd.openpolicyagent.bundles';
  readonly seen: Seen[] = [];
  readonly #held = new Set<() => void>();
  readonly #server: Server;

  constructor(first: { body: Buffer; etag: string }) {
    this.current = first;
    this.#server = createServer((req, res) => this.#handle(req, res));
  }

  get held(): number {
    return this.#held.size;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as { port: number }).port}`;
  }

  /** A new bundle: the held requests are answered with it. */
  publish(next: { body: Buffer; etag: string }): void {
    this.current = next;
    for (const wake of [...this.#held]) wake();
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const prefer = String(req.headers.prefer ?? '');
    const seen: Seen = { prefer: req.headers.prefer === undefined ? undefined : prefer, ifNoneMatch: req.headers['if-none-match'], abandoned: false };
    this.seen.push(seen);
    const answer = () => {
      if (req.headers['if-none-match'] === this.current.etag) return void res.writeHead(304).end();
      res.writeHead(200, { 'Content-Type': this.contentType, ETag: this.current.etag }).end(this.current.body);
    };
    const wait = /(?:^|;)\s*wait=(\d+)/.exec(prefer)?.[1];
    if (wait === undefined || req.headers['if-none-match'] !== this.current.etag) return answer();
    const wake = () => {
      clearTimeout(timer);
      this.#held.delete(wake);
      answer();
    };
    const timer = setTimeout(wake, Number(wait) * 1000);
    this.#held.add(wake);
    res.on('close', () => {
      if (res.writableEnded) return;
      seen.abandoned = true;
      clearTimeout(timer);
      this.#held.delete(wake);
    });
  }
}

const config = (url: string, polling: Record<string, number>) =>
  bundleConfigOf({ services: { acme: { url } }, bundles: { authz: { service: 'acme', resource: 'bundles/authz.tar.gz', polling } } });

let servers: RunningPolicyServer[] = [];
let bundleServers: LongPollServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(bundleServers.map((s) => s.close()));
  servers = [];
  bundleServers = [];
});

async function start(bundles: LongPollServer, polling: Record<string, number>): Promise<RunningPolicyServer> {
  bundleServers.push(bundles);
  const server = await startPolicyServer({ port: 0, watch: false, workers: 0, remoteBundles: config(await bundles.listen(), polling) });
  servers.push(server);
  return server;
}

const revision = async (server: RunningPolicyServer) =>
  ((await (await fetch(`${server.url}/v1/status`)).json()) as { result: { bundles: { authz: { active_revision: string } } } }).result.bundles.authz
    .active_revision;

describe('bundle long polling (polling.long_polling_timeout_seconds)', () => {
  it('holds a request with the ETag and activates the next bundle as soon as the server answers it; stop aborts the held request', async () => {
    const bundles = new LongPollServer({ body: archive('rev-1', 'alice'), etag: '"e1"' });
    const server = await start(bundles, { min_delay_seconds: 60, max_delay_seconds: 120, long_polling_timeout_seconds: 600 });
    await waitFor(async () => (await revision(server)) === 'rev-1', 'rev-1 activated');
    expect(bundles.seen[0]?.prefer).toBe('modes=snapshot,delta;wait=600');
    await waitFor(async () => bundles.held === 1, 'a held request');
    expect(bundles.seen.at(-1)).toMatchObject({ prefer: 'modes=snapshot,delta;wait=600', ifNoneMatch: '"e1"' });

    bundles.publish({ body: archive('rev-2', 'bob'), etag: '"e2"' });
    await waitFor(async () => (await revision(server)) === 'rev-2', 'rev-2 activated through the held request');
    const allowed = (await (await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: '{"input":{"user":"bob"}}' })).json()) as unknown;
    expect(allowed).toEqual({ result: true });

    // The next request is held again, with the new ETag; stopping the server abandons it (not 600 s later).
    await waitFor(async () => bundles.held === 1 && bundles.seen.at(-1)?.ifNoneMatch === '"e2"', 'the next held request');
    const held = bundles.seen.at(-1)!;
    await server.close();
    servers = [];
    await waitFor(async () => held.abandoned, 'the held request abandoned on stop');
  });

  it('asks again at once after the server lets a held request go with 304', async () => {
    const bundles = new LongPollServer({ body: archive('rev-1', 'alice'), etag: '"e1"' });
    await start(bundles, { min_delay_seconds: 60, max_delay_seconds: 120, long_polling_timeout_seconds: 1 });
    // rev-1, then held requests each answered 304 after a second, one after the other.
    await waitFor(async () => bundles.seen.length >= 4, 'several long polls in a row');
    for (const seen of bundles.seen.slice(1)) expect(seen).toMatchObject({ prefer: 'modes=snapshot,delta;wait=1', ifNoneMatch: '"e1"', abandoned: false });
  });

  it('falls back to periodic polling, without asking to wait, when the server answers with another content type', async () => {
    const bundles = new LongPollServer({ body: archive('rev-1', 'alice'), etag: '"e1"' });
    bundles.contentType = 'application/gzip';
    const server = await start(bundles, { min_delay_seconds: 1, max_delay_seconds: 1, long_polling_timeout_seconds: 600 });
    await waitFor(async () => (await revision(server)) === 'rev-1', 'rev-1 activated');
    await waitFor(async () => bundles.seen.length >= 2, 'the next periodic poll');
    expect(bundles.seen[0]?.prefer).toBe('modes=snapshot,delta;wait=600');
    expect(bundles.seen[1]).toMatchObject({ prefer: 'modes=snapshot,delta', ifNoneMatch: '"e1"' });
    expect(bundles.held).toBe(0);
  });

  it('gives up a held request that outlasts the wait asked for (plus the download timeout), instead of waiting on it', async () => {
    // A server that holds every request and never answers, whatever wait it was asked for.
    const seen: Seen[] = [];
    const silent = createServer((req, res) => {
      const entry: Seen = { prefer: String(req.headers.prefer ?? ''), ifNoneMatch: undefined, abandoned: false };
      seen.push(entry);
      res.on('close', () => (entry.abandoned = true));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const [bundle] = config(`http://127.0.0.1:${(silent.address() as { port: number }).port}`, {
      min_delay_seconds: 60,
      max_delay_seconds: 120,
      long_polling_timeout_seconds: 1,
    });
    const downloader = new BundleDownloader(bundle!, { activate: () => Promise.resolve(true), timeoutMs: 200 });
    try {
      expect(await downloader.poll()).toBe(false);
      expect(downloader.lastError?.message).toMatch(/^bundle download from .* failed: /);
      expect(seen).toHaveLength(1);
      expect(seen[0]?.prefer).toBe('modes=snapshot,delta;wait=1');
      await waitFor(async () => seen[0]?.abandoned === true, 'the held request abandoned');
    } finally {
      downloader.stop();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('refuses a long-polling timeout OPA refuses', () => {
    const refusal = (value: unknown) => {
      try {
        bundleConfigOf({ services: { s: { url: 'http://x' } }, bundles: { b: { polling: { long_polling_timeout_seconds: value } } } });
      } catch (error) {
        if (error instanceof BundleConfigError) return error.message;
        throw error;
      }
      return 'accepted';
    };
    for (const bad of [0, -5, 1.5, '10'])
      expect(refusal(bad)).toBe('bundles.b.polling.long_polling_timeout_seconds must be a whole number of seconds, at least 1');
    expect(refusal(10)).toBe('accepted');
    expect(bundleConfigOf({ services: { s: { url: 'http://x' } }, bundles: { b: { polling: { long_polling_timeout_seconds: 10 } } } })[0]).toMatchObject({
      longPollingTimeoutSeconds: 10,
    });
  });
});
