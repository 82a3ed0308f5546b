import { AgentNotReadyError } from '../core/errors/agent-not-ready-error.js';

const NO_ANSWER = 'no answer';

/** The base address of an agent URL (scheme, host, port), where GET /health answers. */
export function agentBase(url: string): string {
  return new URL(url).origin;
}

/**
 * Waits until the agent at `url` answers GET /health with 2xx, polling every
 * `intervalMs` (default 100 ms) for at most `timeoutMs` (default 10 s);
 * rejects with "target agent not ready at <url>" after that.
 *
 * @example
 * await waitForAgent('http://127.0.0.1:8101', { timeoutMs: 5_000 });
 */
export async function waitForAgent(url: string, options: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {}): Promise<void> {
  const health = `${agentBase(url)}/health`;
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let last = NO_ANSWER;
  for (;;) {
    options.signal?.throwIfAborted();
    const attemptMs = Math.max(1, Math.min(2_000, deadline - Date.now()));
    const timeout = AbortSignal.timeout(attemptMs);
    try {
      const response = await fetch(health, { signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout });
      await response.body?.cancel();
      if (response.ok) return;
      last = `GET /health answered ${response.status}`;
    } catch (error) {
      options.signal?.throwIfAborted();
      // An attempt cut short by the deadline says nothing new: keep the reason an earlier attempt gave.
      if (!timeout.aborted) last = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      else if (last === NO_ANSWER) last = `no answer within ${attemptMs} ms`;
    }
    if (Date.now() >= deadline) throw new AgentNotReadyError({ url, detail: last });
    await new Promise((resolve) => setTimeout(resolve, Math.min(options.intervalMs ?? 100, Math.max(0, deadline - Date.now()))));
  }
}
