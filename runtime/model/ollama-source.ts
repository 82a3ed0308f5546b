import { access, constants, copyFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { knownModelManifest, type KnownModel } from './known-models.js';
import { sha256File, type ModelStore, type StoredModel } from './model-store.js';
import type { PullProgress } from './pull-progress.js';
import { DEFAULT_URLS } from '../core/defaults.js';

/** The part of Ollama's `POST /api/show` answer a pull reads. */
const OllamaShowSchema = z.object({ modelfile: z.string() });

/** `OLLAMA_HOST` as Ollama reads it (`host:port` or a URL), default `http://127.0.0.1:11434`. */
export function resolveOllamaHost(options: { host?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const raw = (options.host ?? (options.env ?? process.env).OLLAMA_HOST ?? '').trim() || DEFAULT_URLS.model;
  return (/^https?:\/\//.test(raw) ? raw : `http://${raw}`).replace(/\/+$/, '');
}

/** The path on the `FROM` line of a Modelfile, when there is one. */
export function modelfileFromPath(modelfile: string): string | undefined {
  const line = modelfile.split('\n').find((l) => /^FROM\s+/i.test(l.trim()));
  return (
    line
      ?.trim()
      .replace(/^FROM\s+/i, '')
      .trim() || undefined
  );
}

/** The sha256 named by an Ollama blob file (`sha256-<hex>`), when it has one. */
export function blobDigest(path: string): string | undefined {
  return /^sha256[-:]([0-9a-f]{64})$/.exec(basename(path))?.[1];
}

/**
 * Copies a known model out of a running Ollama (or our own server): asks
 * `POST /api/show` for its Modelfile and copies the `FROM` file when it is
 * readable here. Returns the reason as a string when this source cannot
 * serve the model (no server, unknown model, unreadable path, wrong checksum),
 * so the caller can try the next source.
 */
export async function pullFromOllama(options: {
  store: ModelStore;
  known: KnownModel;
  host: string;
  report: (progress: PullProgress) => void;
  timeoutMs?: number;
}): Promise<StoredModel | string> {
  const { known, host } = options;
  let modelfile: string;
  try {
    const response = await fetch(`${host}/api/show`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: known.name }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 1000),
    });
    if (!response.ok) return `ollama at ${host}: /api/show answered ${response.status}`;
    const parsed = OllamaShowSchema.safeParse(await response.json());
    if (!parsed.success) return `ollama at ${host}: /api/show answer has no modelfile`;
    modelfile = parsed.data.modelfile;
  } catch (error) {
    return `ollama at ${host}: not reachable (${error instanceof Error ? error.message : String(error)})`;
  }
  const from = modelfileFromPath(modelfile);
  if (!from) return `ollama at ${host}: the modelfile has no FROM line`;
  try {
    await access(from, constants.R_OK);
  } catch {
    return `ollama at ${host}: ${from} is not readable on this machine`;
  }
  const named = blobDigest(from);
  if (named && named !== known.sha256) return `ollama at ${host}: its ${known.name} is sha256 ${named}, expected ${known.sha256}`;
  const companions = known.companions ?? [];
  for (const companion of companions) {
    const path = join(dirname(from), companion.file);
    if ((await sha256File(path).catch(() => undefined)) !== companion.sha256) return `ollama at ${host}: ${companion.file} is missing next to ${from}`;
  }

  options.report({ status: 'downloading', model: known.name, source: `ollama:${host}`, total: known.size, completed: 0 });
  const target = join(options.store.blobsDir, known.file);
  await mkdir(dirname(target), { recursive: true });
  const temp = `${target}.${process.pid}.ollama.tmp`;
  try {
    await copyFile(from, temp);
    options.report({ status: 'downloading', model: known.name, source: `ollama:${host}`, total: known.size, completed: (await stat(temp)).size });
    options.report({ status: 'verifying', model: known.name });
    const digest = await sha256File(temp);
    if (digest !== known.sha256) return `ollama at ${host}: checksum mismatch for ${from}: expected sha256 ${known.sha256}, got ${digest}`;
    // Companions before the weights: the store sees a model once its weights are in place.
    for (const companion of companions) {
      const companionTemp = join(dirname(target), `${companion.file}.${process.pid}.tmp`);
      await copyFile(join(dirname(from), companion.file), companionTemp);
      await rename(companionTemp, join(dirname(target), companion.file));
    }
    await rename(temp, target);
  } finally {
    await rm(temp, { force: true });
  }
  const stored = await options.store.save({
    ...knownModelManifest(known, { size: (await stat(target)).size, source: `ollama:${host}` }),
    modifiedAt: new Date().toISOString(),
  });
  options.report({ status: 'success', model: known.name });
  return stored;
}
