import { metadataTags } from '../../runtime/semantic/metadata-tags.js';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import weaviate, { generateUuid5 } from 'weaviate-client';
import { ConfigError } from '../../runtime/core/errors/config-error.js';
import { FrameworkError } from '../../runtime/core/framework-error.js';
import type { VectorRecord } from '../../runtime/semantic/vector-store.js';
import { VectorStoreUnavailableError } from '../../runtime/semantic/vector-store-unavailable-error.js';
import { describeError, parseWeaviateUrl, probeWeaviate } from '../../runtime/semantic/weaviate-connection.js';
import { fromWeaviateObject, hitFromWeaviateObject, objectVector, tagFilter, toWeaviateObject, weaviateUuid } from '../../runtime/semantic/weaviate-objects.js';
import { schemaGaps, WEAVIATE_PROPERTIES, weaviateClassSchema } from '../../runtime/semantic/weaviate-schema.js';
import { WeaviateVectorStore } from '../../runtime/semantic/weaviate-vector-store.js';
import { freePort } from '../support/net.js';

/** A stand-in for Weaviate's REST side only: readiness with a chosen status, `/v1/meta`, and a log of requests. */
async function fakeWeaviateRest(options: { readyStatus: number; hang?: boolean }) {
  const requests: string[] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (options.hang) return; // never answers
    if (req.url === '/v1/.well-known/ready') {
      res.writeHead(options.readyStatus).end();
    } else if (req.url === '/v1/meta') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ version: '1.30.0', hostname: 'http://[::]:8080', modules: {} }));
    } else {
      res.writeHead(404).end();
    }
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())).then(() => undefined),
    server,
  };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()?.();
  vi.restoreAllMocks();
});

const record = (over: Partial<VectorRecord> = {}): VectorRecord => ({
  id: 'weather-agent',
  vector: [0.1, 0.2, 0.3],
  content: 'Weather agent: forecasts',
  metadata: { kind: 'card', lang: 'en' },
  uri: 'file:///cards/weather.json',
  ...over,
});

describe('parseWeaviateUrl', () => {
  it('maps http host and port, with gRPC on the same host at 50051 by default', () => {
    expect(parseWeaviateUrl({ url: 'http://127.0.0.1:8081' })).toEqual({
      httpHost: '127.0.0.1',
      httpPort: 8081,
      httpSecure: false,
      httpPath: '',
      grpcHost: '127.0.0.1',
      grpcPort: 50051,
      grpcSecure: false,
      baseUrl: 'http://127.0.0.1:8081',
    });
  });

  it('uses 443 and secure gRPC for https, keeps a proxy path, takes a gRPC port', () => {
    const endpoint = parseWeaviateUrl({ url: 'https://vectors.example.com/weaviate/', grpcPort: 443 });
    expect(endpoint).toMatchObject({
      httpHost: 'vectors.example.com',
      httpPort: 443,
      httpSecure: true,
      httpPath: '/weaviate',
      grpcPort: 443,
      grpcSecure: true,
    });
    expect(endpoint.baseUrl).toBe('https://vectors.example.com/weaviate');
    expect(parseWeaviateUrl({ url: 'http://weaviate' }).httpPort).toBe(80);
  });

  it('unwraps IPv6 hosts', () => {
    expect(parseWeaviateUrl({ url: 'http://[::1]:8080' })).toMatchObject({ httpHost: '::1', grpcHost: '::1', baseUrl: 'http://[::1]:8080' });
  });

  it.each(['127.0.0.1:8081', 'not a url', 'grpc://127.0.0.1:50051', 'http://user:pw@127.0.0.1:8080', 'http://h:8080/?x=1'])(
    'refuses %s naming VECTOR_STORE_URL',
    (url) => {
      const parse = () => parseWeaviateUrl({ url });
      expect(parse).toThrow(ConfigError);
      expect(parse).toThrow(/VECTOR_STORE_URL/);
    },
  );

  it('refuses a gRPC port out of range', () => {
    expect(() => parseWeaviateUrl({ url: 'http://h:8080', grpcPort: 70_000 })).toThrow(/gRPC port/);
  });
});

describe('weaviateUuid', () => {
  it('is a deterministic UUID v5, the same as the client and Python derive', () => {
    const uuid = weaviateUuid({ id: 'weather-agent' });
    expect(uuid).toBe(weaviateUuid({ id: 'weather-agent' }));
    expect(uuid).toBe(generateUuid5('weather-agent'));
    // python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_DNS, 'weather-agent'))"
    expect(uuid).toBe('833690a9-b6c7-5fee-842c-056a717c5bfc');
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(weaviateUuid({ id: 'other-agent' })).not.toBe(uuid);
  });
});

describe('metadata tags and filters', () => {
  it('writes key=value tags, escaping % and = in keys', () => {
    expect(metadataTags({ metadata: { lang: 'en', 'a=b': 'c', '100%': 'x=y' } })).toEqual(['lang=en', 'a%3Db=c', '100%25=x=y']);
  });

  it('builds a containsAll filter on metadata_tags, or none', () => {
    expect(tagFilter({ filter: { lang: 'en', kind: 'card' } })).toEqual({
      operator: 'ContainsAll',
      target: { property: 'metadata_tags' },
      value: ['lang=en', 'kind=card'],
    });
    expect(tagFilter({ filter: undefined })).toBeUndefined();
    expect(tagFilter({ filter: {} })).toBeUndefined();
  });

  it('does not confuse a key holding = with another pair', () => {
    const [tag] = metadataTags({ metadata: { 'a=b': 'c' } });
    const [other] = metadataTags({ metadata: { a: 'b=c' } });
    expect(tag).not.toBe(other);
  });
});

describe('record ⇄ Weaviate object', () => {
  it('maps a record to an object with a derived id, our id in card_id, and the vector', () => {
    const object = toWeaviateObject({ record: record() });
    expect(object).toEqual({
      id: weaviateUuid({ id: 'weather-agent' }),
      properties: {
        card_id: 'weather-agent',
        uri: 'file:///cards/weather.json',
        content: 'Weather agent: forecasts',
        metadata_json: '{"kind":"card","lang":"en"}',
        metadata_tags: ['kind=card', 'lang=en'],
      },
      vectors: [0.1, 0.2, 0.3],
    });
  });

  it('reads an object back, with the unnamed vector under `default`', () => {
    const { id, properties, vectors } = toWeaviateObject({ record: record() });
    expect(fromWeaviateObject({ object: { uuid: id, properties, vectors: { default: vectors } } })).toEqual({
      id: 'weather-agent',
      content: 'Weather agent: forecasts',
      metadata: { kind: 'card', lang: 'en' },
      uri: 'file:///cards/weather.json',
      hasVector: true,
    });
  });

  it('marks objects with no, empty, zero or non-flat vectors as hasVector: false', () => {
    const { properties } = toWeaviateObject({ record: record() });
    for (const vectors of [undefined, {}, { default: [] }, { default: [0, 0] }, { default: [[1, 2]] }]) {
      expect(fromWeaviateObject({ object: { uuid: 'u', properties, vectors } }).hasVector).toBe(false);
    }
  });

  it('takes the first named vector when there is no unnamed one', () => {
    expect(objectVector({ object: { vectors: { minilm: [1, 2] } } })).toEqual([1, 2]);
  });

  it('tolerates objects written by others: no card_id, bad metadata_json', () => {
    const read = fromWeaviateObject({
      object: {
        uuid: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
        properties: { uri: 'file:///x.json', metadata_json: '{not json', metadata_tags: ['lang=en', 'a%3Db=c', 'junk'] },
      },
    });
    expect(read).toEqual({
      id: '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      content: '',
      metadata: { lang: 'en', 'a=b': 'c' },
      uri: 'file:///x.json',
      hasVector: false,
    });
    // JSON of the wrong shape also falls back to the tags.
    expect(fromWeaviateObject({ object: { uuid: 'u', properties: { metadata_json: '{"n":1}', metadata_tags: ['k=v'] } } }).metadata).toEqual({ k: 'v' });
  });

  it('scores a hit as 1 - cosine distance, and refuses a hit without distance', () => {
    const { properties } = toWeaviateObject({ record: record() });
    expect(hitFromWeaviateObject({ object: { uuid: 'u', properties, metadata: { distance: 0.25 } } })).toMatchObject({ id: 'weather-agent', score: 0.75 });
    expect(hitFromWeaviateObject({ object: { uuid: 'u', properties, metadata: { distance: 2 } } }).score).toBe(-1);
    expect(() => hitFromWeaviateObject({ object: { uuid: 'u', properties, metadata: {} } })).toThrow(/without a distance/);
  });
});

describe('schema', () => {
  it('defines AgentCard and Document with no vectorizer, cosine HNSW, and field-tokenized filter properties', () => {
    const schema = weaviateClassSchema({ collection: 'agent_cards' });
    expect(schema).toMatchObject({ class: 'AgentCard', vectorizer: 'none', vectorIndexType: 'hnsw', vectorIndexConfig: { distance: 'cosine' } });
    expect(weaviateClassSchema({ collection: 'documents' }).class).toBe('Document');
    expect(schema.properties.map((p) => p.name)).toEqual(['card_id', 'uri', 'content', 'metadata_json', 'metadata_tags']);
    expect(schema.properties.find((p) => p.name === 'metadata_tags')).toMatchObject({ dataType: ['text[]'], tokenization: 'field', indexFilterable: true });
    expect(schema.properties.find((p) => p.name === 'uri')).toMatchObject({ dataType: ['text'] });
  });

  it('finds the properties an existing class lacks and word-tokenized filter properties', () => {
    const gaps = schemaGaps({ properties: [{ name: 'uri', tokenization: 'word' }, { name: 'content', tokenization: 'word' }, { name: 'extra' }] });
    expect(gaps.missing.map((p) => p.name)).toEqual(['card_id', 'metadata_json', 'metadata_tags']);
    expect(gaps.mistokenized).toEqual(['uri']);
    expect(schemaGaps({ properties: WEAVIATE_PROPERTIES })).toEqual({ missing: [], mistokenized: [] });
  });
});

describe('readiness against a real HTTP server', () => {
  it('is ready when /v1/.well-known/ready answers 200', async () => {
    const fake = await fakeWeaviateRest({ readyStatus: 200 });
    closers.push(fake.close);
    expect(await probeWeaviate({ baseUrl: fake.url, timeoutMs: 2000 })).toEqual({ ready: true, detail: `${fake.url}/v1/.well-known/ready answered 200` });
    expect(fake.requests).toEqual(['GET /v1/.well-known/ready']);
  });

  it('is not ready on 503, nor when nothing listens, nor when nothing answers in time', async () => {
    const fake = await fakeWeaviateRest({ readyStatus: 503 });
    closers.push(fake.close);
    expect(await probeWeaviate({ baseUrl: fake.url, timeoutMs: 2000 })).toEqual({ ready: false, detail: `${fake.url}/v1/.well-known/ready answered 503` });

    const nothing = `http://127.0.0.1:${await freePort()}`;
    const down = await probeWeaviate({ baseUrl: nothing, timeoutMs: 2000 });
    expect(down.ready).toBe(false);
    expect(down.detail).toMatch(/ECONNREFUSED/);

    const hanging = await fakeWeaviateRest({ readyStatus: 200, hang: true });
    closers.push(async () => {
      hanging.server.closeAllConnections();
      await hanging.close();
    });
    const started = Date.now();
    expect(await probeWeaviate({ baseUrl: hanging.url, timeoutMs: 300 })).toEqual({
      ready: false,
      detail: `${hanging.url}/v1/.well-known/ready did not answer: no answer within 300 ms`,
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('store.ready() follows the server, and is false once closed', async () => {
    const fake = await fakeWeaviateRest({ readyStatus: 200 });
    closers.push(fake.close);
    const client = await weaviate.connectToCustom({ httpHost: '127.0.0.1', httpPort: fake.port, grpcPort: await freePort(), skipInitChecks: true });
    const store = WeaviateVectorStore.fromClient({ client, url: fake.url, timeoutMs: 1000 });
    expect(store.kind).toBe('weaviate');
    expect(store.location).toBe(fake.url);
    expect(await store.ready()).toBe(true);
    await fake.close();
    expect(await store.ready()).toBe(false);
    await store.close();
    await store.close(); // idempotent
    expect(await store.ready()).toBe(false);
    await expect(store.count('agent_cards')).rejects.toThrow(/closed/);
  });
});

describe('connect', () => {
  it('fails fast with store_unavailable naming the URL when nothing listens', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const error = await WeaviateVectorStore.connect({ url, timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toBeInstanceOf(VectorStoreUnavailableError);
    expect(FrameworkError.isInstance(error) && error.code).toBe('store_unavailable');
    expect((error as Error).message).toContain(url);
    expect((error as Error).message).toMatch(/not ready.*ECONNREFUSED/);
  });

  it('fails with store_unavailable when Weaviate answers 503 (starting up)', async () => {
    const fake = await fakeWeaviateRest({ readyStatus: 503 });
    closers.push(fake.close);
    await expect(WeaviateVectorStore.connect({ url: fake.url, timeoutMs: 1000 })).rejects.toMatchObject({
      code: 'store_unavailable',
      message: expect.stringMatching(/answered 503/),
    });
  });

  it('fails within its timeout with store_unavailable when REST answers but the gRPC port is closed', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined); // the client logs its gRPC health retry
    const fake = await fakeWeaviateRest({ readyStatus: 200 });
    closers.push(fake.close);
    const grpcPort = await freePort();
    const started = Date.now();
    const error = await WeaviateVectorStore.connect({ url: fake.url, grpcPort, timeoutMs: 1000 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(error).toMatchObject({ code: 'store_unavailable' });
    expect((error as Error).message).toContain(fake.url);
    expect((error as Error).message).toContain(`gRPC 127.0.0.1:${grpcPort}`);
    expect(fake.requests).toContain('GET /v1/meta');
  });

  it('rejects a malformed URL with ConfigError before any network call', async () => {
    await expect(WeaviateVectorStore.connect({ url: 'localhost:8080' })).rejects.toBeInstanceOf(ConfigError);
  });
});

describe('validation before the network', () => {
  async function offlineStore(options: { dimensions?: number } = {}) {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined); // the client logs each gRPC retry
    const fake = await fakeWeaviateRest({ readyStatus: 200 });
    closers.push(fake.close);
    const client = await weaviate.connectToCustom({
      httpHost: '127.0.0.1',
      httpPort: fake.port,
      grpcPort: await freePort(),
      skipInitChecks: true,
      timeout: { query: 1, insert: 1 },
    });
    const store = WeaviateVectorStore.fromClient({ client, url: fake.url, timeoutMs: 1000, ...options });
    closers.push(() => store.close());
    return { store, fake };
  }

  it.each([
    ['empty', []],
    ['not finite', [0.1, Number.NaN, 0.3]],
    ['all zeros', [0, 0, 0]],
  ])('refuses the whole batch when one vector is %s, naming its id', async (_what, vector) => {
    const { store, fake } = await offlineStore();
    const error = await store.upsert('agent_cards', [record(), record({ id: 'broken-agent', vector })]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect((error as Error).message).toContain('"broken-agent"');
    expect(fake.requests).toEqual([]);
  });

  it('refuses a vector of the wrong dimension, and a bad query vector', async () => {
    const { store, fake } = await offlineStore({ dimensions: 3 });
    await expect(store.upsert('documents', [record({ id: 'doc-1', vector: [1, 2] })])).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('"doc-1"'),
    });
    await expect(store.search('documents', [1, 2], { limit: 3 })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(store.search('documents', [], { limit: 3 })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(fake.requests).toEqual([]);
  });

  it('does nothing for empty batches, empty deletes and a zero limit', async () => {
    const { store, fake } = await offlineStore();
    await store.upsert('agent_cards', []);
    await store.delete('agent_cards', []);
    expect(await store.search('agent_cards', [1, 0, 0], { limit: 0 })).toEqual([]);
    expect(fake.requests).toEqual([]);
  });

  it('turns a failed write (gRPC unreachable) into store_unavailable naming the URL', async () => {
    const { store, fake } = await offlineStore();
    const error = await store.upsert('agent_cards', [record()]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VectorStoreUnavailableError);
    expect((error as Error).message).toContain(fake.url);
    expect((error as Error).message).toMatch(/writing 1 object\(s\) to AgentCard failed/);
    expect(store.dimensions).toBeUndefined();
  });

  it('turns failed reads into store_unavailable', async () => {
    const { store } = await offlineStore();
    for (const attempt of [
      () => store.count('documents'),
      () => store.get('agent_cards', 'x'),
      () => store.list('agent_cards'),
      () => store.search('documents', [1, 0, 0], { limit: 1 }),
    ]) {
      await expect(attempt()).rejects.toMatchObject({ code: 'store_unavailable' });
    }
  });
});

describe('describeError', () => {
  it('adds the cause', () => {
    expect(describeError(new Error('fetch failed', { cause: new Error('ECONNREFUSED') }))).toBe('fetch failed (ECONNREFUSED)');
    expect(describeError('x')).toBe('x');
  });
});
