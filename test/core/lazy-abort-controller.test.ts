import { describe, expect, it } from 'vitest';
import { AbortedError, AgentResponse, FrameworkCore } from '../../runtime/index.js';
import { abortSourceOf, LazyAbortController } from '../../runtime/core/abort.js';

describe('LazyAbortController', () => {
  it('fires its listeners and its signal, once, with the reason', () => {
    const controller = new LazyAbortController();
    const signal = controller.signal;
    const heard: unknown[] = [];
    controller.onAbort((reason) => heard.push(reason));
    const removed = controller.onAbort(() => heard.push('removed listener'));
    removed();
    signal.addEventListener('abort', () => heard.push(`signal: ${String(signal.reason)}`));
    controller.abort('gone');
    controller.abort('again');
    expect(heard).toEqual(['signal: gone', 'gone']);
    expect(controller.aborted).toBe(true);
    expect(controller.reason).toBe('gone');
    expect(signal.aborted).toBe(true);
  });

  it('gives a signal read after the abort, already aborted, and an AbortError reason by default', () => {
    const controller = new LazyAbortController();
    controller.abort();
    expect(controller.signal.aborted).toBe(true);
    expect((controller.reason as DOMException).name).toBe('AbortError');
  });

  it('is what a signal it handed out is listened to through', () => {
    const controller = new LazyAbortController();
    expect(abortSourceOf(controller.signal)).toBe(controller);
    const plain = new AbortController();
    const source = abortSourceOf(plain.signal);
    const heard: unknown[] = [];
    source.onAbort((reason) => heard.push(reason));
    plain.abort('plain');
    expect(heard).toEqual(['plain']);
  });

  it('ends a task run stuck in something that ignores the abort, and hands the task a working signal', async () => {
    const core = new FrameworkCore();
    let taskSignal: AbortSignal | undefined;
    core.task({ name: 'stuck' }, async function* ({ signal }) {
      taskSignal = signal;
      yield AgentResponse.status('started');
      await new Promise(() => undefined);
    });
    const controller = new LazyAbortController();
    const run = core.executeTask('stuck', { query: 'x', abort: controller });
    expect((await run.next()).value).toMatchObject({ type: 'status' });
    const next = run.next();
    controller.abort(new Error('client left'));
    await expect(next).rejects.toBeInstanceOf(AbortedError);
    expect(taskSignal?.aborted).toBe(true);
  });
});
