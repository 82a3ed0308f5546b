import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

/** A POST the receiver took (its JWT verified) or refused (with why). */
export interface SignedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  claims?: JWTPayload;
  refused?: string;
}

/**
 * A webhook receiver on loopback that does what the A2A spec asks of one
 * (verify the sender before trusting a notification): it reads the JWT in
 * `X-A2A-Notification-Signature`, verifies it with the agent's public keys
 * fetched from the JWKS URL the agent's card names (jose's
 * `createRemoteJWKSet`), checks `iss` (the agent's URL), `aud` (this
 * webhook's own URL), `exp`/`iat`, that `request_body_sha256` is the SHA-256
 * of the body it got, and that the `jti` was not seen before. Answers 200,
 * or 401 with the reason (our sender does not retry a 401).
 */
export async function startVerifyingReceiver() {
  const deliveries: SignedDelivery[] = [];
  const seen = new Set<string>();
  let trust: { jwks: ReturnType<typeof createRemoteJWKSet>; issuer: string } | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      void verify(path, req.headers, raw).then(
        (claims) => {
          deliveries.push({ path, headers: req.headers, raw, claims });
          res.writeHead(200).end();
        },
        (error: unknown) => {
          const reason = (error as { code?: string }).code ?? (error as Error).message;
          deliveries.push({ path, headers: req.headers, raw, refused: reason });
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'signature_invalid', message: reason }));
        },
      );
    });
  });
  async function verify(path: string, headers: IncomingHttpHeaders, raw: string): Promise<JWTPayload> {
    if (!trust) throw new Error('no agent trusted yet');
    const token = headers['x-a2a-notification-signature'];
    if (typeof token !== 'string') throw new Error('unsigned');
    const { payload } = await jwtVerify(token, trust.jwks, { issuer: trust.issuer, audience: url(path), maxTokenAge: 300 });
    if (payload.request_body_sha256 !== createHash('sha256').update(raw, 'utf8').digest('hex')) throw new Error('body hash mismatch');
    if (typeof payload.jti !== 'string' || seen.has(payload.jti)) throw new Error('replayed jti');
    seen.add(payload.jti);
    return payload;
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  return {
    port,
    url,
    deliveries,
    /** Trusts the agent whose card names `jwksUrl` and whose A2A URL is `issuer`. */
    trust(jwksUrl: string, issuer: string) {
      trust = { jwks: createRemoteJWKSet(new URL(jwksUrl)), issuer };
    },
    /** POSTs `raw` with `headers` to `path` as someone else would (a replay, a forgery); resolves to the status. */
    async post(path: string, headers: Record<string, string>, raw: string): Promise<number> {
      const response = await fetch(url(path), { method: 'POST', headers, body: raw });
      await response.body?.cancel();
      return response.status;
    },
    /** Waits (up to 10 s) until `predicate` holds for what reached `path`. */
    async waitFor(path: string, predicate: (got: SignedDelivery[]) => boolean): Promise<SignedDelivery[]> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const got = deliveries.filter((d) => d.path === path);
        if (predicate(got)) return got;
        if (Date.now() > deadline) throw new Error(`webhook ${path}: condition not met; got ${JSON.stringify(got.map((d) => d.refused ?? d.raw))}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
