import { posix } from 'node:path';
import type { Hono } from 'hono';
import { z } from 'zod';
import { canonicalModelName, modelTag } from './known-models.js';
import { readGgufDetails } from './gguf-details.js';
import { ModelRequestError } from './model-request-error.js';
import { checkParameters } from './model-parameters.js';
import { writableModelName } from './model-name.js';
import type { ModelManifest, ModelStore } from './model-store.js';
import { parseModelRequest, readModelRequest } from './read-model-request.js';

/** `sha256:<hex>` (or Ollama's file spelling `sha256-<hex>`). */
const DIGEST = /^sha256[:-]([0-9a-fA-F]{64})$/;

const NameSchema = z.object({ model: z.string().optional(), name: z.string().optional() });

/** `POST /api/create`, Ollama's current form (no `modelfile`: its CLI parses the Modelfile and sends these fields). */
export const OllamaCreateRequestSchema = NameSchema.extend({
  from: z.string().optional(),
  files: z.record(z.string(), z.string()).optional(),
  adapters: z.record(z.string(), z.string()).optional(),
  template: z.string().optional(),
  system: z.string().optional(),
  license: z.union([z.string(), z.array(z.string())]).optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string().default('') })).optional(),
  quantize: z.string().optional(),
  stream: z.boolean().default(true),
}).refine((b) => Boolean(b.model || b.name), 'model is required');

const CopyRequestSchema = z.object({ source: z.string().default(''), destination: z.string().default('') });
const PushRequestSchema = NameSchema.extend({ insecure: z.boolean().optional(), stream: z.boolean().optional() });

export interface ManagementRoutesOptions {
  store: ModelStore;
  maxBodyBytes: number;
  /** Unloads the model of that (canonical) name if it is loaded: its manifest is about to change or go. */
  unload: (name: string) => Promise<void>;
}

/**
 * The model-management part of Ollama's API: `POST /api/create`,
 * `POST /api/copy`, `DELETE /api/delete`, `HEAD|POST /api/blobs/:digest`
 * and `POST /api/push` (answered with an error: there is no registry to
 * push to). Errors are `{"error": message}` with Ollama's status.
 */
export function managementRoutes(app: Hono, options: ManagementRoutesOptions): void {
  const { store } = options;

  // Hono answers HEAD through the GET route; Ollama has no GET here.
  app.get('/api/blobs/:digest', async (c) => {
    if (c.req.method !== 'HEAD') return c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404);
    const hex = digestHex(c.req.param('digest'));
    return new Response(null, { status: (await store.findBlob(hex)) ? 200 : 404 });
  });

  // The body streams to disk while it is hashed: no size limit, as in Ollama (a GGUF is gigabytes).
  app.post('/api/blobs/:digest', async (c) => {
    const digest = c.req.param('digest');
    const hex = digestHex(digest);
    const body = c.req.raw.body ?? (async function* () {})();
    const written = await store.writeBlob(hex, body as AsyncIterable<Uint8Array>);
    if (written.outcome === 'mismatch') return c.json({ error: `digest mismatch, expected "${digest}", got "sha256:${written.actual}"` }, 400);
    return c.body(null, written.outcome === 'created' ? 201 : 200);
  });

  app.post('/api/create', async (c) => {
    const body = parseModelRequest(OllamaCreateRequestSchema, await readModelRequest(c, options.maxBodyBytes));
    const name = writableModelName((body.model || body.name)!);
    const statuses: string[] = [];
    const manifest = await createdManifest(store, body, statuses);
    await options.unload(name);
    await store.save({ ...manifest, name });
    statuses.push('writing manifest', 'success');
    if (!body.stream) return c.json({ status: 'success' });
    const lines = statuses.map((status) => `${JSON.stringify({ status })}\n`).join('');
    return new Response(lines, { headers: { 'Content-Type': 'application/x-ndjson' } });
  });

  app.post('/api/copy', async (c) => {
    const body = parseModelRequest(CopyRequestSchema, await readModelRequest(c, options.maxBodyBytes));
    writableModelName(body.source, `source "${body.source}" is invalid`);
    const destination = writableModelName(body.destination, `destination "${body.destination}" is invalid`);
    if (!(await store.get(body.source))) throw new ModelRequestError({ status: 404, message: `model "${body.source}" not found` });
    await options.unload(destination);
    await store.copy(body.source, destination);
    return c.body(null, 200);
  });

  app.delete('/api/delete', async (c) => {
    const body = parseModelRequest(NameSchema, await readModelRequest(c, options.maxBodyBytes));
    const given = body.model || body.name || '';
    const name = writableModelName(given, `name "${given}" is invalid`);
    await options.unload(name);
    if (!(await store.delete(name))) throw new ModelRequestError({ status: 404, message: `model '${given}' not found` });
    return c.body(null, 200);
  });

  app.post('/api/push', async (c) => {
    const body = parseModelRequest(PushRequestSchema, await readModelRequest(c, options.maxBodyBytes));
    if (!body.model && !body.name) throw new ModelRequestError({ status: 400, message: 'model is required' });
    throw new ModelRequestError({
      status: 501,
      message: 'push is not supported by this server: it has no registry to push to (copy the GGUF file shown by /api/show instead)',
    });
  });
}

function digestHex(digest: string): string {
  const hex = DIGEST.exec(digest)?.[1];
  if (!hex) throw new ModelRequestError({ status: 400, message: 'invalid digest format' });
  return hex.toLowerCase();
}

type CreateRequest = z.infer<typeof OllamaCreateRequestSchema>;

/**
 * The manifest a create request makes (without its name): the weights and
 * details of `from` or of the one GGUF in `files`, then the request's system,
 * template, license and messages over the base's, and its parameters merged
 * over the base's. Records the steps in `statuses`, in Ollama's words.
 */
async function createdManifest(store: ModelStore, body: CreateRequest, statuses: string[]): Promise<Omit<ModelManifest, 'name'>> {
  const refuse = (message: string, param?: string) => new ModelRequestError({ status: 400, message, ...(param ? { param } : {}) });
  if (body.quantize) throw refuse('quantize is not supported by this server: create the model from a GGUF file that is already quantized', 'quantize');
  if (body.adapters && Object.keys(body.adapters).length > 0) throw refuse('adapters are not supported by this server', 'adapters');
  const parameters = body.parameters ? checkParameters(body.parameters) : undefined;
  let base: Omit<ModelManifest, 'name'>;
  if (body.from) {
    writableModelName(body.from);
    const from = await store.get(body.from);
    if (!from) throw new ModelRequestError({ status: 404, message: `model '${body.from}' not found, try pulling it first` });
    const { name: _name, path: _path, source: _source, ...fields } = from;
    base = { ...fields, parent: modelTag(from.name) };
    statuses.push(`using existing layer sha256:${from.sha256}`);
  } else if (body.files && Object.keys(body.files).length > 0) {
    base = await fromFiles(store, body.files, statuses);
  } else {
    throw refuse("neither 'from' or 'files' was specified");
  }
  const license = typeof body.license === 'string' ? body.license : body.license?.join('\n');
  return {
    ...base,
    modifiedAt: new Date().toISOString(),
    source: body.from ? `create:from ${canonicalModelName(body.from)}` : 'create:files',
    ...(body.system !== undefined ? { system: body.system } : {}),
    ...(body.template !== undefined ? { template: body.template } : {}),
    ...(license !== undefined ? { license } : {}),
    ...(body.messages ? { messages: body.messages } : {}),
    ...(parameters ? { parameters: { ...base.parameters, ...parameters } } : {}),
  };
}

/** The base of a model made from uploaded files: exactly one GGUF blob (safetensors are not converted here). */
async function fromFiles(store: ModelStore, files: Record<string, string>, statuses: string[]) {
  const refuse = (message: string) => new ModelRequestError({ status: 400, message, param: 'files' });
  for (const [file, digest] of Object.entries(files)) {
    if (file === '' || posix.isAbsolute(file) || file.split(/[\\/]/).includes('..')) throw refuse('file path must be relative');
    if (!DIGEST.test(digest)) throw refuse('invalid digest format');
  }
  const ggufs = Object.entries(files).filter(([file]) => file.toLowerCase().endsWith('.gguf'));
  if (ggufs.length !== Object.keys(files).length)
    throw refuse('only GGUF files are supported by this server (safetensors and other formats are not converted)');
  if (ggufs.length > 1) throw refuse('one GGUF file per model is supported by this server (no adapters, projectors or split files)');
  const [, digest] = ggufs[0]!;
  const hex = digestHex(digest);
  const blob = await store.findBlob(hex);
  if (!blob) throw refuse(`blob ${digest} not found: upload it first with POST /api/blobs/${digest}`);
  statuses.push('parsing GGUF');
  const details = await readGgufDetails(`${store.blobsDir}/${blob.file}`);
  statuses.push(`using existing layer sha256:${hex}`);
  return { kind: 'chat' as const, file: blob.file, size: blob.size, sha256: hex, ...details, modifiedAt: '' };
}
