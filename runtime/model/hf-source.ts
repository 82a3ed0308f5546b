import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ModelPullError } from './model-pull-error.js';
import { sha256File, type ModelStore, type StoredModel } from './model-store.js';
import type { PullProgress } from './pull-progress.js';

/** A file in a Hugging Face repository. */
export interface HfFileRef {
  owner: string;
  repo: string;
  /** Path of the file inside the repository. */
  path: string;
}

/**
 * Parses `hf:<owner>/<repo>/<path/to/file>` or `hf.co/<owner>/<repo>:<file>`;
 * `undefined` for anything else.
 *
 * @example
 * parseHfUri('hf:bartowski/SmolLM2-GGUF/SmolLM2.Q4_0.gguf'); // { owner: 'bartowski', repo: 'SmolLM2-GGUF', path: 'SmolLM2.Q4_0.gguf' }
 */
export function parseHfUri(uri: string): HfFileRef | undefined {
  const trimmed = uri.trim();
  const colon = /^hf:([^/\s]+)\/([^/\s]+)\/(\S+)$/.exec(trimmed);
  if (colon) return { owner: colon[1]!, repo: colon[2]!, path: colon[3]! };
  const short = /^(?:https?:\/\/)?(?:huggingface\.co|hf\.co)\/([^/\s]+)\/([^/:\s]+):(\S+)$/.exec(trimmed);
  if (short) return { owner: short[1]!, repo: short[2]!, path: short[3]! };
  return undefined;
}

/** `HF_ENDPOINT` (the hub's own mirror setting), default `https://huggingface.co`. */
export function resolveHfEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  return (env.HF_ENDPOINT?.trim() || 'https://huggingface.co').replace(/\/+$/, '');
}

/** The download URL of a file on the `main` revision. */
export function hfResolveUrl(ref: HfFileRef, endpoint: string): string {
  const path = ref.path.split('/').map(encodeURIComponent).join('/');
  return `${endpoint}/${encodeURIComponent(ref.owner)}/${encodeURIComponent(ref.repo)}/resolve/main/${path}`;
}

/**
 * Downloads a file from the hub into the store, streaming to a temp file,
 * and registers it under `name` (default: the file's stem). The sha256 from
 * `x-linked-etag` (sent for LFS files) is checked when present; otherwise
 * the file is hashed and the digest recorded.
 */
export async function pullFromHf(options: {
  store: ModelStore;
  ref: HfFileRef;
  name?: string;
  endpoint: string;
  report: (progress: PullProgress) => void;
  signal?: AbortSignal;
}): Promise<StoredModel> {
  const { ref } = options;
  const file = basename(ref.path);
  const name = options.name ?? basename(file, extname(file));
  const url = hfResolveUrl(ref, options.endpoint);
  const source = `hf:${ref.owner}/${ref.repo}/${ref.path}`;
  const fail = (message: string, cause?: unknown) => new ModelPullError({ model: name, message, ...(cause === undefined ? {} : { cause }) });
  const present = await options.store.get(name);
  if (present && present.source === source) {
    options.report({ status: 'present', model: name, digest: `sha256:${present.sha256}`, size: present.size });
    return present;
  }

  let response: Response;
  try {
    response = await fetch(url, { redirect: 'follow', ...(options.signal ? { signal: options.signal } : {}) });
  } catch (error) {
    throw fail(`Could not download ${url}: ${error instanceof Error ? error.message : String(error)}. Set HF_ENDPOINT to use a mirror.`, error);
  }
  if (!response.ok || !response.body) {
    await response.body?.cancel();
    throw fail(`Download of ${url} failed: HTTP ${response.status}${response.status === 404 ? ' (no such repository or file)' : ''}.`);
  }
  const etag = response.headers.get('x-linked-etag')?.replace(/^W\//, '').replace(/"/g, '').toLowerCase();
  const expected = etag && /^[0-9a-f]{64}$/.test(etag) ? etag : undefined;
  const lengthHeader = Number(response.headers.get('content-length'));
  const total = Number.isFinite(lengthHeader) && lengthHeader > 0 ? lengthHeader : undefined;

  const relative = join('hf', ref.owner, ref.repo, ref.path);
  const target = join(options.store.blobsDir, relative);
  await mkdir(join(target, '..'), { recursive: true });
  const temp = `${target}.${process.pid}.download`;
  try {
    let completed = 0;
    let lastReport = 0;
    const progress = () => options.report({ status: 'downloading', model: name, source, ...(total === undefined ? {} : { total }), completed });
    progress();
    const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
    body.on('data', (chunk: Buffer) => {
      completed += chunk.length;
      const now = Date.now();
      if (now - lastReport >= 100) {
        lastReport = now;
        progress();
      }
    });
    await pipeline(body, createWriteStream(temp));
    progress();
    if (total !== undefined && completed !== total) throw fail(`Download of ${url} was cut short: ${completed} of ${total} bytes.`);

    options.report({ status: 'verifying', model: name });
    const digest = await sha256File(temp);
    if (expected && digest !== expected)
      throw fail(`Checksum mismatch for ${url}: x-linked-etag says sha256 ${expected}, got ${digest}. Nothing was registered.`);
    await rename(temp, target);
    const stored = await options.store.save({
      name,
      kind: 'chat',
      file: relative,
      size: (await stat(target)).size,
      sha256: digest,
      source,
      modifiedAt: new Date().toISOString(),
    });
    options.report({ status: 'success', model: name });
    return stored;
  } finally {
    await rm(temp, { force: true });
  }
}
