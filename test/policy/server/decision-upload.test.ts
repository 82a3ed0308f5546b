import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { BundleConfigError, serverConfigOf } from '../../../runtime/policy/server/bundle-config.js';
import { DecisionUploader } from '../../../runtime/policy/server/decision-upload.js';
import { startPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { waitFor } from '../../support/net.js';
import { tarGz } from '../../support/tar.js';

// Decision events and status reports uploaded as OPA's decision_logs and status plugins upload them, to a real HTTP
// receiver: gzip-compressed JSON arrays POSTed to <service>/logs within upload_size_limit_bytes, kept and sent again
// when the service fails, the oldest dropped past the buffer limit; status as JSON to <service>/status.

const work = mkdtempSync(join(tmpdir(), 'fw-decision-upload-'));
interface Received {
  path: string;
  headers: IncomingMessage['headers'];
  raw: Buffer;
}
const received: Received[] = [];
let failNext = 0;
let receiver: Server | undefined;
afterAll(async () => {
  await new Promise((resolve) => (receiver ? receiver.close(resolve) : resolve(undefined)));
  rmSync(work, { recursive: true, force: true });
});

async function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/bundles/authz' && req.method === 'GET') {
        return void res.writeHead(200).end(
          tarGz([
            { name: '.manifest', content: '{"revision": "r-9", "roots": ["ext"]}' },
            { name: 'ext/data.json', content: '{"on": true}' },
          ]),
        );
      }
      if (req.url === '/logs' && failNext > 0) {
        failNext--;
        return void res.writeHead(503).end();
      }
      received.push({ path: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
}

const logs = () => received.filter((r) => r.path === '/logs');
const uploadedEvents = () => logs().flatMap((r) => JSON.parse(gunzipSync(r.raw).toString('utf8')) as Array<Record<string, unknown>>);

/** An uploader to `url` that uploads only when asked (a minute between rounds), its warnings kept in `warnings`. */
function quietUploader(url: string, limits: { uploadSizeLimitBytes: number; bufferSizeLimitEvents: number }, warnings: string[]): DecisionUploader {
  return new DecisionUploader({
    config: { url, headers: {}, console: false, minDelaySeconds: 60, maxDelaySeconds: 60, ...limits },
    logger: { debug() {}, info() {}, error() {}, warn: (message) => void warnings.push(message) },
  });
}

describe('decision_logs and status uploads (--config-file)', () => {
  it('uploads decision events gzipped within the size limit, again after a failure, and the status after an activation', async () => {
    const url = await startReceiver();
    const dir = join(work, 'policies');
    mkdirSync(dir);
    writeFileSync(join(dir, 'authz.rego'), 'package authz\n\nallow if input.user == "alice"\n');
    const config = serverConfigOf({
      services: { acme: { url, credentials: { bearer: { token: 't0k3n' } } } },
      bundles: { authz: { polling: { min_delay_seconds: 60, max_delay_seconds: 60 } } },
      decision_logs: { reporting: { min_delay_seconds: 0.2, max_delay_seconds: 0.3, upload_size_limit_bytes: 400 } },
      status: {},
    });
    expect(config.decisionLogs).toMatchObject({ url: `${url}/logs`, uploadSizeLimitBytes: 400, bufferSizeLimitEvents: 10000 });
    expect(config.status).toMatchObject({ url: `${url}/status` });
    const localLog = join(work, 'decisions.log');
    failNext = 1; // the first upload fails: its events go in a later one
    const warnings: string[] = [];
    const server = await startPolicyServer({
      logger: { debug() {}, info() {}, error() {}, warn: (message) => void warnings.push(message) },
      dir,
      port: 0,
      watch: false,
      workers: 0,
      remoteBundles: config.bundles,
      decisionLog: localLog,
      mask: ['/input/password'],
      ...(config.decisionLogs ? { decisionUpload: config.decisionLogs } : {}),
      ...(config.status ? { statusUpload: config.status } : {}),
    });
    const ids: string[] = [];
    try {
      for (let i = 0; i < 12; i++) {
        const res = await fetch(`${server.url}/v1/data/authz/allow`, {
          method: 'POST',
          body: JSON.stringify({ input: { user: i % 3 === 0 ? 'alice' : `user-${i}`, password: 'secret', pad: 'x'.repeat(40) } }),
        });
        ids.push(((await res.json()) as { decision_id: string }).decision_id);
      }
      await waitFor(async () => uploadedEvents().length >= 12, 'the 12 events uploaded');
      // A status report with the downloaded bundle active.
      await waitFor(
        async () => received.some((r) => r.path === '/status' && JSON.parse(r.raw.toString('utf8')).bundles?.authz?.active_revision === 'r-9'),
        'a status report after the activation',
      );
    } finally {
      await server.close();
    }
    expect(warnings).toContain('decision log upload failed; the events wait for the next upload');
    expect(failNext).toBe(0);
    const events = uploadedEvents();
    // Every decision once (the failed upload's events were sent again, none twice), as the local decision log has them.
    expect(events.map((e) => e.decision_id).sort()).toEqual([...ids].sort());
    const local = readFileSync(localLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect([...events].sort((a, b) => String(a.decision_id).localeCompare(String(b.decision_id)))).toEqual(
      [...local].sort((a, b) => String(a.decision_id).localeCompare(String(b.decision_id))),
    );
    expect(events[0]).toMatchObject({ path: 'authz/allow', erased: ['/input/password'] });
    expect(Object.keys(events[0] as object)).toEqual(expect.arrayContaining(['decision_id', 'input', 'path', 'timestamp']));
    expect((events.find((e) => (e.input as { user: string }).user === 'alice') as { result: unknown }).result).toBe(true);
    for (const upload of logs()) {
      expect(upload.headers['content-encoding']).toBe('gzip');
      expect(upload.headers['content-type']).toBe('application/json');
      expect(upload.headers.authorization).toBe('Bearer t0k3n');
      expect(upload.raw.length).toBeLessThanOrEqual(400);
    }
    expect(logs().length).toBeGreaterThan(1); // 12 events of ~200 bytes do not fit one 400-byte upload
    const status = received.filter((r) => r.path === '/status').map((r) => JSON.parse(r.raw.toString('utf8')) as Record<string, unknown>);
    expect(status[0]).toMatchObject({ labels: { version: 'framework_core' }, plugins: { server: { state: 'OK' } } });
    expect(received.find((r) => r.path === '/status')?.headers.authorization).toBe('Bearer t0k3n');
  }, 60_000);

  it('keeps at most buffer_size_limit_events while the service fails, dropping the oldest, and uploads what is left on stop', async () => {
    const url = await startReceiverIfNeeded();
    received.length = 0;
    failNext = 1000;
    const warnings: string[] = [];
    const uploader = quietUploader(`${url}/logs`, { uploadSizeLimitBytes: 32768, bufferSizeLimitEvents: 3 }, warnings);
    for (let i = 0; i < 5; i++) uploader.push(JSON.stringify({ decision_id: `d-${i}` }));
    expect(uploader.pending).toBe(3);
    await uploader.flush(); // fails: the three wait
    expect(uploader.pending).toBe(3);
    expect(warnings).toEqual([
      'decision events dropped: the upload buffer is full (upload more often or raise the buffer limit)',
      'decision log upload failed; the events wait for the next upload',
    ]);
    uploader.push(JSON.stringify({ decision_id: 'd-5' }));
    failNext = 0;
    await uploader.stop();
    expect(uploadedEvents().map((e) => e.decision_id)).toEqual(['d-3', 'd-4', 'd-5']);
    expect(uploader.pending).toBe(0);
    // An event larger than the upload limit on its own is dropped with a warning, not retried forever.
    const small = quietUploader(`${url}/logs`, { uploadSizeLimitBytes: 64, bufferSizeLimitEvents: 10 }, warnings);
    small.push(JSON.stringify({ decision_id: 'big', input: Array.from({ length: 200 }, (_, i) => `v${i}`) }));
    await small.stop();
    expect(warnings.at(-1)).toBe('decision event dropped: larger than the upload size limit on its own');
  });

  it('prints events with console: true and refuses what it would not follow, naming the field', () => {
    const lines: string[] = [];
    const printer = new DecisionUploader({
      config: { headers: {}, console: true, minDelaySeconds: 1, maxDelaySeconds: 1, uploadSizeLimitBytes: 100, bufferSizeLimitEvents: 10 },
      console: (line) => lines.push(line),
    });
    printer.push('{"decision_id":"c-1"}');
    expect(lines).toEqual(['{"decision_id":"c-1"}']);
    expect(printer.pending).toBe(0);
    const refusal = (config: unknown) => {
      try {
        serverConfigOf(config);
      } catch (error) {
        if (error instanceof BundleConfigError) return error.message;
        throw error;
      }
      return 'accepted';
    };
    const services = { a: { url: 'http://a' }, b: { url: 'http://b' } };
    expect(refusal({ services, decision_logs: {} })).toBe('decision_logs.service names no configured service (name one, or set console: true)');
    expect(refusal({ services, decision_logs: { console: true } })).toBe('accepted');
    expect(refusal({ services, decision_logs: { service: 'a', mask_decision: 'x/y' } })).toBe('decision_logs.mask_decision is not supported here');
    expect(refusal({ services, status: { service: 'c' } })).toBe('status.service names no configured service');
    expect(refusal({ services, decision_logs: { service: 'a', reporting: { max_delay_seconds: 1, min_delay_seconds: 2 } } })).toBe(
      'decision_logs.reporting: max_delay_seconds is less than min_delay_seconds',
    );
    expect(serverConfigOf({ services, decision_logs: { service: 'b', resource: 'v2/logs' } }).decisionLogs).toMatchObject({
      url: 'http://b/v2/logs',
      minDelaySeconds: 300,
      maxDelaySeconds: 600,
      uploadSizeLimitBytes: 32768,
    });
  });
});

async function startReceiverIfNeeded(): Promise<string> {
  const address = receiver?.address();
  if (address && typeof address === 'object') return `http://127.0.0.1:${address.port}`;
  return startReceiver();
}
