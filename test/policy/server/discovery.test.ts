import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CompactSign } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BundleConfigError, serverConfigOf } from '../../../runtime/policy/server/bundle-config.js';
import { startPolicyServer, type RunningPolicyServer } from '../../../runtime/policy/server/start-policy-server.js';
import { waitFor } from '../../support/net.js';
import { tarGz } from '../../support/tar.js';

// OPA's discovery against a real bundle server: a signed discovery bundle whose policy yields the bundles to serve
// (reading the boot labels through opa.runtime()), changes to it applied, and the discovered configurations OPA
// refuses (or this server refuses, being stricter) refused while the last one keeps serving.

const work = mkdtempSync(join(tmpdir(), 'fw-discovery-'));
const SECRET = 'discovery-signing-secret';

async function signed(files: Record<string, string>, options: { tamper?: boolean } = {}): Promise<Buffer> {
  const list = Object.entries(files).map(([name, content]) => ({ name, hash: createHash('sha256').update(content).digest('hex'), algorithm: 'SHA-256' }));
  const token = await new CompactSign(new TextEncoder().encode(JSON.stringify({ files: list })))
    .setProtectedHeader({ alg: 'HS256', kid: 'ci' })
    .sign(new TextEncoder().encode(SECRET));
  const out = { ...files };
  if (options.tamper) out['config/config.rego'] = `${out['config/config.rego'] ?? ''}\n# changed after signing\n`;
  return tarGz(Object.entries({ ...out, '.signatures.json': JSON.stringify({ signatures: [token] }) }).map(([name, content]) => ({ name, content })));
}

const policyBundle = (revision: string, user: string) =>
  signed({
    '.manifest': `{"revision":"${revision}","roots":["authz"]}`,
    'authz/policy.rego': `package authz\n\ndefault allow := false\n\nallow if input.user == "${user}"\n`,
  });

/** A discovery bundle: `config/config.rego` defines `discovery` (the decision `config/discovery`). */
const discoveryBundle = (revision: string, rego: string, options: { tamper?: boolean } = {}) =>
  signed({ '.manifest': `{"revision":"${revision}","roots":["config"]}`, 'config/config.rego': `package config\n\n${rego}\n` }, options);

const AUTHZ =
  '"authz": {"service": "acme", "resource": sprintf("bundles/%s.tar.gz", [region_bundle[region]]), "signing": {"keyid": "ci"}, "polling": {"min_delay_seconds": 1, "max_delay_seconds": 1}}';
const REGION = 'region := opa.runtime().config.labels.region';

/** The bundle server: path to archive, with an ETag per content. */
const served = new Map<string, Buffer>();
let bundleServer: Server;
let url: string;
beforeAll(async () => {
  bundleServer = createServer((req, res) => {
    const body = served.get(req.url ?? '');
    if (body === undefined) return void res.writeHead(404).end();
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag) return void res.writeHead(304).end();
    res.writeHead(200, { ETag: etag }).end(body);
  });
  await new Promise<void>((resolve) => bundleServer.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(bundleServer.address() as { port: number }).port}`;
});
afterAll(async () => {
  bundleServer?.closeAllConnections();
  await new Promise((resolve) => bundleServer?.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

function boot(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    services: { acme: { url } },
    labels: { region: 'US' },
    discovery: {
      resource: 'discovery.tar.gz',
      decision: 'config/discovery',
      signing: { keyid: 'ci' },
      polling: { min_delay_seconds: 1, max_delay_seconds: 1 },
    },
    keys: { ci: { algorithm: 'HS256', key: SECRET } },
    ...extra,
  };
}

async function start(config: Record<string, unknown>): Promise<RunningPolicyServer> {
  const parsed = serverConfigOf(config);
  return startPolicyServer({ port: 0, watch: false, workers: 0, remoteBundles: parsed.bundles, ...(parsed.discovery ? { discovery: parsed.discovery } : {}) });
}

type Status = { bundles: Record<string, { active_revision: string; message?: string }>; discovery: { active_revision: string; message?: string } };
const status = async (server: RunningPolicyServer) => ((await (await fetch(`${server.url}/v1/status`)).json()) as { result: Status }).result;
const allows = async (server: RunningPolicyServer, user: string) =>
  ((await (await fetch(`${server.url}/v1/data/authz/allow`, { method: 'POST', body: JSON.stringify({ input: { user } }) })).json()) as { result?: boolean })
    .result;

describe('discovery (OPA discovery section)', () => {
  it('serves the bundles the discovery policy yields, follows its changes, and refuses what may not change', async () => {
    served.set('/bundles/us.tar.gz', await policyBundle('us-1', 'alice'));
    served.set('/bundles/uk.tar.gz', await policyBundle('uk-1', 'bob'));
    served.set(
      '/discovery.tar.gz',
      await discoveryBundle('d1', `${REGION}\n\nregion_bundle := {"US": "us", "UK": "uk"}\n\ndiscovery := {"bundles": {${AUTHZ}}}`),
    );
    const server = await start(boot());
    try {
      // The boot label (region US) picks bundles/us.tar.gz.
      await waitFor(async () => (await allows(server, 'alice')) === true, 'the discovered bundle activated');
      expect((await status(server)).discovery).toMatchObject({ name: 'discovery', active_revision: 'd1' });
      expect((await status(server)).bundles.authz?.active_revision).toBe('us-1');

      // A new discovery bundle maps US to the uk bundle: the authz bundle is downloaded anew from there.
      served.set('/discovery.tar.gz', await discoveryBundle('d2', `${REGION}\n\nregion_bundle := {"US": "uk"}\n\ndiscovery := {"bundles": {${AUTHZ}}}`));
      await waitFor(async () => (await allows(server, 'bob')) === true, 'the bundle of the new configuration');
      expect(await allows(server, 'alice')).toBe(false);
      expect((await status(server)).discovery.active_revision).toBe('d2');

      let active = 'd2';
      const refused = async (revision: string, rego: string, message: string | RegExp, options: { tamper?: boolean } = {}) => {
        served.set('/discovery.tar.gz', await discoveryBundle(revision, rego, options));
        await waitFor(async () => {
          const got = (await status(server)).discovery.message ?? '';
          return typeof message === 'string' ? got === message : message.test(got);
        }, `discovery ${revision} refused`);
        // The last configuration keeps serving.
        expect((await status(server)).discovery.active_revision).toBe(active);
        expect(await allows(server, 'bob')).toBe(true);
        expect(Object.keys((await status(server)).bundles)).toEqual(['authz']);
      };
      const uk = `${REGION}\n\nregion_bundle := {"US": "uk"}`;
      // Stricter than OPA: the boot configuration signs, so a discovered bundle must be signed too.
      await refused(
        'd3',
        `${uk}\n\ndiscovery := {"bundles": {${AUTHZ}, "extra": {"service": "acme", "resource": "bundles/us.tar.gz"}}}`,
        'bundles.extra: a discovered bundle must be signed (signing.keyid) when the boot configuration signs bundles',
      );
      // A discovered URL for the discovery service is overridden by the boot one (no change, so accepted), and said so.
      served.set(
        '/discovery.tar.gz',
        await discoveryBundle('d4', `${uk}\n\ndiscovery := {"bundles": {${AUTHZ}}, "services": {"acme": {"url": "http://127.0.0.1:1"}}}`),
      );
      await waitFor(async () => (await status(server)).discovery.active_revision === 'd4', 'd4 applied');
      expect((await status(server)).discovery.message).toBe('Keys in the discovered configuration overridden by boot configuration: services.acme.url');
      expect(await allows(server, 'bob')).toBe(true);
      active = 'd4';
      await refused(
        'd5',
        `${uk}\n\ndiscovery := {"bundles": {${AUTHZ}}, "services": {"acme": {"headers": {"X-Other": "1"}}}}`,
        'updates to the discovery service are not allowed',
      );
      await refused(
        'd6',
        `${uk}\n\ndiscovery := {"bundles": {${AUTHZ}}, "keys": {"ci": {"algorithm": "HS256", "key": "another"}}}`,
        'updates to keys specified in the boot configuration are not allowed',
      );
      await refused(
        'd7',
        `${uk}\n\ndiscovery := {"bundles": {${AUTHZ}}, "decision_logs": {"console": true}}`,
        'the discovered configuration\'s "decision_logs" section is not supported here (bundles, services, keys, labels)',
      );
      await refused('d8', `${uk}\n\nother := 1`, 'undefined configuration');
      // Stricter than OPA: the discovery policy is evaluated without the network (and within a budget).
      await refused(
        'd10',
        `${uk}\n\ndiscovery := x if {\n  http.send({"method": "get", "url": "http://127.0.0.1:1/"})\n  x := {"bundles": {${AUTHZ}}}\n}`,
        /^the discovery bundle: .*the discovery policy may not reach the network here/,
      );
      await refused('d9', `${uk}\n\ndiscovery := {"bundles": {${AUTHZ}}}`, /^config\/config\.rego: digest mismatch/, { tamper: true });
    } finally {
      await server.close();
    }
  }, 60_000);

  it("lets the boot configuration override what is discovered, so discovery cannot drop a boot bundle's signing", async () => {
    served.set('/bundles/us.tar.gz', await policyBundle('us-1', 'alice'));
    served.set('/bundles/unsigned.tar.gz', tarGz([{ name: 'authz/policy.rego', content: 'package authz\n\nallow := true\n' }]));
    served.set(
      '/discovery.tar.gz',
      await discoveryBundle(
        'o1',
        'discovery := {"bundles": {"authz": {"resource": "bundles/unsigned.tar.gz", "signing": null, "polling": {"min_delay_seconds": 1, "max_delay_seconds": 1}}}}',
      ),
    );
    const server = await start(
      boot({
        bundles: {
          authz: { service: 'acme', resource: 'bundles/us.tar.gz', signing: { keyid: 'ci' }, polling: { min_delay_seconds: 1, max_delay_seconds: 1 } },
        },
      }),
    );
    try {
      await waitFor(async () => (await status(server)).discovery.active_revision === 'o1', 'the discovery bundle applied');
      expect((await status(server)).discovery.message).toBe(
        'Keys in the discovered configuration overridden by boot configuration: bundles.authz.resource, bundles.authz.signing',
      );
      // The boot bundle (signed, from bundles/us.tar.gz) serves: the unsigned one was never asked for.
      await waitFor(async () => (await allows(server, 'alice')) === true, 'the boot bundle serving');
      expect(await allows(server, 'mallory')).toBe(false);
      expect((await status(server)).bundles.authz?.active_revision).toBe('us-1');
    } finally {
      await server.close();
    }
  });

  it('persists the discovery bundle and the bundles it yields, and serves from them at the next start with the bundle server gone', async () => {
    const directory = join(work, 'persisted');
    const us = await policyBundle('us-1', 'alice');
    const disco = await discoveryBundle(
      'p1',
      `${REGION}\n\nregion_bundle := {"US": "us"}\n\ndiscovery := {"bundles": {"authz": {"service": "acme", "resource": sprintf("bundles/%s.tar.gz", [region_bundle[region]]), "signing": {"keyid": "ci"}, "persist": true}}}`,
    );
    served.set('/bundles/us.tar.gz', us);
    served.set('/discovery.tar.gz', disco);
    const config = boot({ persistence_directory: directory });
    (config.discovery as Record<string, unknown>).persist = true;
    const first = await start(config);
    try {
      await waitFor(
        async () => existsSync(join(directory, 'bundles', 'discovery', 'bundle.tar.gz')) && existsSync(join(directory, 'bundles', 'authz', 'bundle.tar.gz')),
        'both bundles persisted',
      );
      expect(readFileSync(join(directory, 'bundles', 'discovery', 'bundle.tar.gz'))).toEqual(disco);
      expect(readFileSync(join(directory, 'bundles', 'authz', 'bundle.tar.gz'))).toEqual(us);
    } finally {
      await first.close();
    }
    served.clear();
    const second = await start(config);
    try {
      // Nothing downloadable: the persisted discovery bundle yields the configuration, the persisted authz bundle serves.
      expect(await allows(second, 'alice')).toBe(true);
      expect((await status(second)).discovery.active_revision).toBe('p1');
      expect((await status(second)).bundles.authz?.active_revision).toBe('us-1');
    } finally {
      await second.close();
    }
  });

  it('reads the discovery section as OPA does, refusing what it cannot follow', () => {
    const refusal = (discovery: unknown) => {
      try {
        serverConfigOf({ services: { s: { url: 'http://x' } }, discovery });
      } catch (error) {
        if (error instanceof BundleConfigError) return error.message;
        throw error;
      }
      return 'accepted';
    };
    expect(refusal({})).toBe('missing required discovery.resource field');
    expect(refusal({ resource: 'd', trigger: 'manual' })).toBe('discovery.trigger is not supported here');
    expect(refusal({ resource: 'd', signing: { keyid: 'nope' } })).toBe('discovery.signing.keyid names no key in the keys section');
    expect(refusal({ resource: 'd', decision: 5 })).toBe('discovery.decision must be a string');
    // OPA's defaults: resource <prefix>/<name> (prefix bundles), the decision the name, else data whole.
    expect(serverConfigOf({ services: { s: { url: 'http://x' } }, discovery: { name: 'example/disco' } }).discovery).toMatchObject({
      bundle: { name: 'example/disco', url: 'http://x/bundles/example/disco' },
      path: ['example', 'disco'],
      service: 's',
      signs: false,
    });
    expect(serverConfigOf({ services: { s: { url: 'http://x' } }, discovery: { resource: '/d.tar.gz', prefix: 'p' } }).discovery).toMatchObject({
      bundle: { name: 'discovery', url: 'http://x/d.tar.gz' },
      path: [],
    });
  });
});
